/**
 * Standard JSON-RPC passthrough: the latency and throughput cost of calling a standard Solana method through solgate's
 * `/` instead of the node directly, both measured in the same run. A measurement: it never asserts on speed.
 *
 * Setup (child processes, so the load generator, the gateway and the node do not share an event loop): the upstream
 * is `solgate localnet` (LiteSVM, slot time --slot-ms, no Light genesis); the gateway is the app as `solgate serve`
 * builds it for the passthrough (bench/gen/rpc-server.ts: buildApp with the forwarder and the meter, no ingestion) on
 * a throwaway PostgreSQL database (DATABASE_URL, default the local server) holding one API key whose plan's limits
 * are out of reach (bench/lib/bench-plan.ts) — every call is still authenticated (one key lookup in PostgreSQL),
 * checked against the limiter and charged.
 *
 * Cases: getBalance (the faucet), getLatestBlockhash, getAccountInfo (the Clock sysvar, base64) and a batch of 10
 * getBalance (distinct accounts). Each case is driven at --concurrencies (default 1 and 32 requests in flight) by the
 * closed-loop load generator (bench/gen/load.ts: undici keep-alive pool, one connection per request in flight, the
 * next request as soon as the previous answer is read; fixed --duration after a --warmup) against the node directly
 * and then through solgate — or the other way round, alternating from one case to the next so neither path always
 * runs second — after an untimed warm-up of every case on both paths. An answer counts only when it is HTTP 200
 * without a JSON-RPC error (every answer of a batch). Reported: p50/p99 and req/s per path, the added p50/p99
 * (gateway − direct) and the throughput ratio (gateway ÷ direct). The gateway forwards a batch's calls one by one
 * (10 upstream requests for the batch the direct path sends as one).
 *
 *   npm run bench -- rpc [--duration 5] [--warmup 1] [--concurrencies 1,32] [--slot-ms 400] [--pool 10] [--cases a,b] [--profile]
 *
 * --pool is the gateway's PostgreSQL pool (default 10, DATABASE_POOL_SIZE's default: every request looks its key up
 * there); --cases runs only the cases whose names contain one of the given words; --profile writes the gateway's CPU
 * profile to .bench-out/prof/ (summarise it with bench/tools/cpuprofile-top.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiKey } from '../src/store/keys.js';
import { runLoad, type LoadResult } from './gen/load.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { BENCH_PLAN } from './lib/bench-plan.js';
import { openKeptBenchDb } from './lib/kept-db.js';
import { fmt, REPO_ROOT, table, writeResult } from './lib/report.js';
import { startLocalnet, type Child } from './lib/solgate-child.js';
import { stopChild } from './lib/samples.js';

/** One-line summary for `bench/run.ts --help`. */
export const description = 'standard JSON-RPC through solgate vs the node directly (localnet), same run: added p50/p99 and req/s ratio of getBalance, getLatestBlockhash, getAccountInfo, a batch of 10, at 1 and 32 in flight';

/** Not part of a bare `npm run bench` (≈2 min, needs a PostgreSQL server); run it by name. */
export const onlyWhenNamed = true;

const here = dirname(fileURLToPath(import.meta.url));
const CLOCK = 'SysvarC1ock11111111111111111111111111111111';
/** Accounts every localnet has, for the batch (the faucet is added first). */
const BATCH_ACCOUNTS = [
  CLOCK, 'SysvarRent111111111111111111111111111111111', 'SysvarEpochSchedu1e111111111111111111111111', 'SysvarRecentB1ockHashes11111111111111111111',
  'SysvarS1otHashes111111111111111111111111111', 'SysvarStakeHistory1111111111111111111111111', 'SysvarFees111111111111111111111111111111111',
  'SysvarRewards111111111111111111111111111111', 'Sysvar1nstructions1111111111111111111111111',
];

type PathName = 'direct' | 'solgate';

interface RpcCase {
  name: string;
  /** The request body for JSON-RPC id `id`. */
  body: (id: number) => string;
  batch: boolean;
}

export interface PathFigures {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  requests: number;
  errors: number;
  firstError: string | null;
  bytesPerResponse: number;
}

export interface RpcRun {
  case: string;
  concurrency: number;
  first: PathName;
  direct: PathFigures;
  solgate: PathFigures;
  /** solgate − direct. */
  addedP50Ms: number;
  addedP99Ms: number;
  /** solgate ÷ direct. */
  throughputRatio: number;
  loadAvg: number;
}

export interface RpcResult {
  config: { duration: number; warmup: number; concurrencies: number[]; slotMs: number; pool: number };
  machine: { cpus: number; cpuModel: string; memGB: number; node: string; postgres: string };
  runs: RpcRun[];
  timestamp: string;
}

function cases(faucet: string): RpcCase[] {
  const call = (method: string, params: unknown[] | undefined) => (id: number) =>
    JSON.stringify(params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method });
  const batchAccounts = [faucet, ...BATCH_ACCOUNTS];
  return [
    { name: 'getBalance', body: call('getBalance', [faucet]), batch: false },
    { name: 'getLatestBlockhash', body: call('getLatestBlockhash', undefined), batch: false },
    { name: 'getAccountInfo (Clock sysvar, base64)', body: call('getAccountInfo', [CLOCK, { encoding: 'base64' }]), batch: false },
    {
      name: 'batch of 10 getBalance', batch: true,
      body: (id) => JSON.stringify(batchAccounts.map((a, i) => ({ jsonrpc: '2.0', id: id * 10 + i, method: 'getBalance', params: [a] }))),
    },
  ];
}

/** An answer without a JSON-RPC error: a result object, or (batch) an array of them. */
const answered = (batch: boolean) => (text: string) => !text.includes('"error"') && (batch ? text.startsWith('[') : text.includes('"result"'));

function startGateway(databaseUrl: string, upstreamUrl: string, children: ChildProcess[], o: { profile: boolean; pool: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, 'gen', 'rpc-server.ts'), [], {
      execArgv: [...(o.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(REPO_ROOT, '.bench-out', 'prof')}`] : []), '--import', 'tsx'],
      env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, BENCH_UPSTREAM_URL: upstreamUrl, BENCH_POOL_SIZE: String(o.pool) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    const timer = setTimeout(() => reject(new Error('rpc bench: the gateway did not start within 60 s')), 60_000);
    child.once('message', (m: { port?: number }) => {
      clearTimeout(timer);
      if (m.port) resolve(m.port);
      else reject(new Error(`rpc bench: the gateway sent ${JSON.stringify(m)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`rpc bench: the gateway exited with ${code}`));
    });
  });
}

/** Checks that both paths answer `c` with the same result (ids aside) before it is timed. */
async function checkCase(c: RpcCase, targets: Record<PathName, string>): Promise<void> {
  const strip = (v: unknown): unknown => (Array.isArray(v) ? v.map(strip) : { ...(v as object), id: undefined, result: { ...((v as { result?: object }).result ?? {}), context: undefined } });
  const answers: Record<string, unknown> = {};
  for (const p of ['direct', 'solgate'] as const) {
    const res = await fetch(targets[p], { method: 'POST', headers: { 'content-type': 'application/json' }, body: c.body(1) });
    const text = await res.text();
    if (res.status !== 200 || !answered(c.batch)(text)) throw new Error(`rpc bench: ${c.name} through ${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
    answers[p] = strip(JSON.parse(text));
  }
  // getLatestBlockhash may move between the two calls; the others must agree.
  if (c.name !== 'getLatestBlockhash' && JSON.stringify(answers.direct) !== JSON.stringify(answers.solgate))
    throw new Error(`rpc bench: ${c.name}: the paths answer differently:\n  direct  ${JSON.stringify(answers.direct)}\n  solgate ${JSON.stringify(answers.solgate)}`);
}

const figures = (r: LoadResult): PathFigures => ({
  reqPerSec: Number(r.reqPerSec.toFixed(1)), p50Ms: Number(r.p50Ms.toFixed(3)), p99Ms: Number(r.p99Ms.toFixed(3)), meanMs: Number(r.meanMs.toFixed(3)),
  requests: r.requests, errors: r.errors, firstError: r.firstError, bytesPerResponse: r.bytesPerResponse,
});

export async function run(argv: string[] = []): Promise<RpcResult> {
  const flags = parseFlags(argv);
  const config = {
    duration: numberFlag(flags, 'duration', 5),
    warmup: numberFlag(flags, 'warmup', 1),
    concurrencies: (typeof flags.concurrencies === 'string' ? flags.concurrencies : '1,32').split(',').map((s) => Math.max(1, Math.round(Number(s)))).filter(Number.isFinite),
    slotMs: Math.max(10, numberFlag(flags, 'slot-ms', 400)),
    pool: Math.max(1, Math.round(numberFlag(flags, 'pool', 10))),
  };
  const log = (s = '') => process.stdout.write(`${s}\n`);

  const solgateChildren: Child[] = [];
  const forked: ChildProcess[] = [];
  const bench = await openKeptBenchDb({ prefix: 'rpc', stages: [], keep: false, fresh: true, stableName: 'solgate_bench_rpc', want: {}, poolSize: 2 });
  const cleanup = async () => {
    await Promise.all([...solgateChildren.map((c) => c.proc), ...forked].map((p) => stopChild(p).catch(() => {})));
    await bench.close().catch(() => {});
  };
  const onSignal = () => {
    for (const p of [...solgateChildren.map((c) => c.proc), ...forked]) if (p.exitCode === null) p.kill('SIGKILL');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const { url: upstream, faucet } = await startLocalnet('rpc bench', config.slotMs, solgateChildren);
    const { key } = await createApiKey(bench.db, { name: 'rpc-bench', plan: BENCH_PLAN });
    const port = await startGateway(bench.url, upstream, forked, { profile: flags.profile === true, pool: config.pool });
    const u = new URL(upstream);
    const targets: Record<PathName, string> = { direct: upstream, solgate: `http://127.0.0.1:${port}/?api-key=${key}` };
    log(`rpc: localnet (child process, slot ${config.slotMs} ms) at ${upstream}; solgate (buildApp + forwarder + meter, child process, pool of ${config.pool}) at http://127.0.0.1:${port}/ on PostgreSQL ${bench.serverVersion}`);

    const only = typeof flags.cases === 'string' ? flags.cases.split(',').map((x) => x.trim().toLowerCase()) : null;
    const all = cases(faucet).filter((c) => !only || only.some((o) => c.name.toLowerCase().includes(o)));
    for (const c of all) await checkCase(c, targets);
    // An untimed warm-up of both paths (the gateway's code paths compiled, pools filled) before the first case.
    for (const p of ['direct', 'solgate'] as const)
      for (const c of all) {
        let id = 0;
        await runLoad({
          origin: p === 'direct' ? u.origin : `http://127.0.0.1:${port}`, path: p === 'direct' ? `${u.pathname}${u.search}` : `/?api-key=${key}`,
          connections: 8, durationMs: 1000, warmupMs: 0, next: () => c.body(++id), okPrefix: '',
        });
      }
    log(`rpc: both paths answer every case alike; warmed up (1 s per path and case, 8 in flight); ${config.duration} s per path and case after a ${config.warmup} s warm-up`);

    const runs: RpcRun[] = [];
    let seq = 0;
    for (const concurrency of config.concurrencies) {
      for (const c of all) {
        let id = 0;
        const measure = async (p: PathName) =>
          figures(await runLoad({
            origin: p === 'direct' ? u.origin : `http://127.0.0.1:${port}`,
            path: p === 'direct' ? `${u.pathname}${u.search}` : `/?api-key=${key}`,
            connections: concurrency,
            durationMs: config.duration * 1000,
            warmupMs: config.warmup * 1000,
            next: () => c.body(++id),
            okPrefix: c.batch ? '[' : '{',
            ok: answered(c.batch),
          }));
        const first: PathName = seq++ % 2 === 0 ? 'direct' : 'solgate';
        const second: PathName = first === 'direct' ? 'solgate' : 'direct';
        const got = { [first]: await measure(first) } as Partial<Record<PathName, PathFigures>>;
        got[second] = await measure(second);
        const direct = got.direct!;
        const solgate = got.solgate!;
        const r: RpcRun = {
          case: c.name, concurrency, first, direct, solgate,
          addedP50Ms: Number((solgate.p50Ms - direct.p50Ms).toFixed(3)),
          addedP99Ms: Number((solgate.p99Ms - direct.p99Ms).toFixed(3)),
          throughputRatio: Number((solgate.reqPerSec / direct.reqPerSec).toFixed(3)),
          loadAvg: Number(loadavg()[0].toFixed(2)),
        };
        runs.push(r);
        log(`rpc: ${c.name}, ${concurrency} in flight: direct p50 ${ms(direct.p50Ms)} / p99 ${ms(direct.p99Ms)}, ${fmt(direct.reqPerSec)} req/s; `
          + `solgate p50 ${ms(solgate.p50Ms)} / p99 ${ms(solgate.p99Ms)}, ${fmt(solgate.reqPerSec)} req/s → added p50 = ${signed(r.addedP50Ms)} ms, throughput ${r.throughputRatio.toFixed(2)}× (errors ${direct.errors}/${solgate.errors}, load ${r.loadAvg})`);
        for (const [p, f] of [['direct', direct], ['solgate', solgate]] as const) if (f.firstError) log(`rpc:   first ${p} error: ${f.firstError}`);
      }
    }

    const result: RpcResult = {
      config,
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '?', memGB: Math.round(totalmem() / 1e9), node: process.version, postgres: bench.serverVersion },
      runs,
      timestamp: new Date().toISOString(),
    };
    printReport(result, log);
    log(`\nrpc: result written to ${writeResult('rpc', result)}`);
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;

function printReport(r: RpcResult, log: (s?: string) => void): void {
  const c = r.config;
  log(`\n=== rpc: standard JSON-RPC through solgate vs the node directly (solgate localnet, slot ${c.slotMs} ms), same run; ${c.duration} s per path and case after ${c.warmup} s warm-up; closed loop, keep-alive`);
  log(`    machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memGB} GB; node ${r.machine.node}; PostgreSQL ${r.machine.postgres} (key lookups, usage); load generator, gateway and node on the same cores\n`);
  log(table(['case', 'in flight', 'direct p50', 'direct p99', 'direct req/s', 'solgate p50', 'solgate p99', 'solgate req/s', 'added p50', 'added p99', 'req/s ratio', 'errors d/s', 'load avg'],
    r.runs.map((x) => [x.case, x.concurrency, ms(x.direct.p50Ms), ms(x.direct.p99Ms), x.direct.reqPerSec, ms(x.solgate.p50Ms), ms(x.solgate.p99Ms), x.solgate.reqPerSec,
      `${signed(x.addedP50Ms)} ms`, `${signed(x.addedP99Ms)} ms`, `${x.throughputRatio.toFixed(2)}×`, `${x.direct.errors}/${x.solgate.errors}`, x.loadAvg])));
  log('');
  for (const x of r.runs) log(`    ${x.case}, ${x.concurrency} in flight: added p50 = ${signed(x.addedP50Ms)} ms; throughput ${x.throughputRatio.toFixed(2)}× direct`);
}
