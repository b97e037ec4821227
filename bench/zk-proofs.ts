/**
 * The two proof methods of `bench/zk` in process, for what one request costs in CPU rather than in wall time (on a
 * shared machine wall times move with the other work; CPU time per request moves less): the gateway (buildApp) and
 * the requests in one process (Fastify's inject, no sockets), on the database `npm run bench -- zk --keep` left.
 * Phases, in order: 10 cold requests of each method; N requests of account proofs under 10 concurrent, then M
 * alone; the same for address proofs; then M account proofs alone again (after the address proofs went through
 * the pair memo). Each phase reports p50, req/s, CPU ms per request (process.cpuUsage: the gateway's work plus
 * the small cost of inject, every thread of the process) and, when the checkout has them, the Poseidon counters:
 * hashes computed and pair-memo lookups and hits per request. The counters are the main thread's: since proof
 * batches are verified on their own thread (src/proofs/light/verify-pool.ts) they count only what the main thread
 * still hashes (address leaves, small batches).
 *
 *   npm run bench -- zk-proofs [--accounts 1000000] [--seed 7] [--requests 400] [--alone 40] [--root DIR]
 *
 * --root runs another checkout's gateway (its `src/`, e.g. a `git archive` of the commit before, node_modules
 * linked) for a same-machine before/after; the benchmark's own code is this checkout's. DATABASE_URL names the
 * server (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { Rng } from './gen/rng.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { DEFAULT_DATABASE_URL } from './lib/kept-db.js';
import { REPO_ROOT, table, writeResult } from './lib/report.js';

export const description = 'ZK proof methods in process on the kept zk database: CPU ms per request, Poseidon hashes and pair-memo hits (--root DIR: another checkout)';
export const onlyWhenNamed = true;

interface Counters {
  hashes: number;
  pairLookups: number;
  pairHits: number;
}

export interface PhaseResult {
  phase: string;
  requests: number;
  concurrency: number;
  p50Ms: number;
  reqPerSec: number;
  cpuMsPerRequest: number;
  hashesPerRequest: number | null;
  pairLookupsPerRequest: number | null;
  pairHitRate: number | null;
}

export async function run(argv: string[] = []): Promise<{ root: string; loadAvg: number[]; phases: PhaseResult[] }> {
  const flags = parseFlags(argv);
  const accounts = numberFlag(flags, 'accounts', 1_000_000);
  const seed = numberFlag(flags, 'seed', 7);
  const warm = numberFlag(flags, 'requests', 400);
  const aloneN = numberFlag(flags, 'alone', 40);
  const root = typeof flags.root === 'string' ? resolve(flags.root) : REPO_ROOT;
  const from = (p: string) => import(pathToFileURL(`${root}/src/${p}`).href);
  const { buildApp } = await from('api/app.ts');
  const { openDb } = await from('store/db.ts');
  const { createApiKey } = await from('store/keys.ts');
  const { createFileTokenRegistry } = await from('pricing/token-registry.ts');
  const { bytesToBase58 } = await from('core/encoding.ts');
  const poseidon = (await from('proofs/light/poseidon.ts')) as { poseidonCounters?: () => Counters; pairMemoSize?: () => unknown };

  const server = new URL(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL);
  server.pathname = `/solgate_bench_zk_${accounts}_s${seed}`;
  const db = await openDb({ databaseUrl: server.toString(), poolSize: 10 });
  const log = (s = '') => process.stdout.write(`${s}\n`);
  try {
    const app = await buildApp({ db, logger: pino({ level: 'warn' }), tokens: createFileTokenRegistry('/nonexistent/tokens.json'), explorerTxUrl: 'https://orbmarkets.io/tx/' });
    const { key } = await createApiKey(db, { name: 'bench-zk-proofs' });
    // the same samples as bench/zk
    await db.query('SELECT setseed($1)', [((seed % 1000) / 1000) * 2 - 1]);
    const hashes = (await db.query('SELECT hash FROM zk_accounts WHERE NOT spent AND NOT in_output_queue AND owner IS NOT NULL ORDER BY random() LIMIT 20000')).rows.map((r: { hash: Buffer }) => bytesToBase58(r.hash) as string);
    const trees = (await db.query('SELECT tree FROM zk_trees WHERE tree_type = 4 ORDER BY tree')).rows.map((r: { tree: Buffer }) => bytesToBase58(r.tree) as string);
    if (!hashes.length || !trees.length) throw new Error(`zk-proofs: ${server.pathname.slice(1)} holds no dataset: run \`npm run bench -- zk --keep\` first`);
    const rng = new Rng(seed + 1);
    const accountProofs = () => {
      const s = new Set<string>();
      while (s.size < 100) s.add(rng.pick(hashes));
      return [...s];
    };
    const addressProofs = () =>
      Array.from({ length: 100 }, () => {
        const b = rng.bytes(32);
        b[0] = 0;
        return { address: bytesToBase58(b) as string, tree: rng.pick(trees) };
      });
    const counters = (): Counters | null => poseidon.poseidonCounters?.() ?? null;
    const call = async (method: string, params: unknown) => {
      const res = await app.inject({ method: 'POST', url: `/?api-key=${key}`, payload: { jsonrpc: '2.0', id: 1, method, params } });
      const body = res.json() as { error?: unknown };
      if (body.error) throw new Error(`zk-proofs: ${method}: ${JSON.stringify(body.error)}`);
    };
    const phases: PhaseResult[] = [];
    const phase = async (name: string, method: string, params: () => unknown, n: number, concurrency: number) => {
      const c0 = counters();
      const times: number[] = [];
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      let started = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (started < n) {
            started++;
            const p = params();
            const t = performance.now();
            await call(method, p);
            times.push(performance.now() - t);
          }
        }),
      );
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const c1 = counters();
      times.sort((a, b) => a - b);
      const per = (k: keyof Counters) => (c0 && c1 ? Number(((c1[k] - c0[k]) / n).toFixed(0)) : null);
      phases.push({
        phase: name, requests: n, concurrency,
        p50Ms: Number(times[Math.floor(times.length / 2)].toFixed(1)),
        reqPerSec: Number(((n / wall) * 1000).toFixed(1)),
        cpuMsPerRequest: Number(((cpu.user + cpu.system) / 1000 / n).toFixed(1)),
        hashesPerRequest: per('hashes'),
        pairLookupsPerRequest: per('pairLookups'),
        pairHitRate: c0 && c1 && c1.pairLookups > c0.pairLookups ? Number(((c1.pairHits - c0.pairHits) / (c1.pairLookups - c0.pairLookups)).toFixed(3)) : null,
      });
    };
    const A = 'getMultipleCompressedAccountProofs';
    const N = 'getMultipleNewAddressProofsV2';
    const loadAvg0 = (await import('node:os')).loadavg()[0];
    await phase('account proofs ×100, cold', A, accountProofs, 10, 1);
    await phase('address proofs ×100, cold', N, addressProofs, 10, 1);
    await phase('account proofs ×100, 10 concurrent', A, accountProofs, warm, 10);
    await phase('account proofs ×100, alone', A, accountProofs, aloneN, 1);
    await phase('address proofs ×100, 10 concurrent', N, addressProofs, warm, 10);
    await phase('address proofs ×100, alone', N, addressProofs, aloneN, 1);
    await phase('account proofs ×100, alone, after address proofs', A, accountProofs, aloneN, 1);
    const loadAvg = [loadAvg0, (await import('node:os')).loadavg()[0]].map((x) => Number(x.toFixed(2)));
    await app.close();
    const dash = (x: number | null) => (x === null ? '–' : x);
    log(`zk-proofs: gateway of ${root}; load average ${loadAvg.join(' → ')}${poseidon.pairMemoSize ? `; pair memo ${JSON.stringify(poseidon.pairMemoSize())}` : ''}`);
    log(table(['phase', 'requests', 'concurrent', 'p50 ms', 'req/s', 'CPU ms/request', 'hashes/request', 'memo lookups/request', 'memo hits'], phases.map((p) => [
      p.phase, p.requests, p.concurrency, p.p50Ms, p.reqPerSec, p.cpuMsPerRequest, dash(p.hashesPerRequest), dash(p.pairLookupsPerRequest), p.pairHitRate === null ? '–' : `${(p.pairHitRate * 100).toFixed(1)}%`,
    ])));
    const result = { root, loadAvg, phases };
    log(`zk-proofs: result written to ${writeResult(`zk-proofs-${new Date().toISOString().replace(/[:.]/g, '-')}`, result)}`);
    return result;
  } finally {
    await db.close();
  }
}
