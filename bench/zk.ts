/**
 * ZK Compression read throughput on a synthetic mainnet-shaped dataset (default 1M compressed accounts over 4 V1
 * and 2 V2 state trees, 200k addresses in 2 V2 address trees; bench/gen/zk-data.ts) in real PostgreSQL.
 *
 * 1. Generates the dataset: plans it from the seed, computes every Poseidon tree node level by level on worker
 *    threads (reporting µs per hash on one core and hashes/s on the pool), writes it through the ZK store's bulk
 *    statements (timed), then VACUUM ANALYZE.
 * 2. Starts the gateway (buildApp) and a ceiling server (Fastify + one primary-key query on zk_accounts per request)
 *    in child processes, with pg pools of the same size, and drives each with the same closed-loop load generator
 *    (N keep-alive connections, fixed duration, random parameters per request): getCompressedTokenAccountsByOwner
 *    (owners of 1–20 with the default page, whales with pages of 100 and 1000), getMultipleCompressedAccountProofs
 *    with 100 random provable hashes per request and getMultipleNewAddressProofsV2 with 100 random new addresses
 *    per request over the V2 address trees. Every answer is checked before the load (proofs verified client-side).
 *    Each case's req/s is reported as a ratio to the ceiling's, measured before and after the cases; p50/p99 are
 *    under that load (10 concurrent requests by default), "alone p50" of requests sent one at a time.
 * 3. With --explain, prints EXPLAIN ANALYZE of every statement those requests run, flagging full scans and sorts
 *    in list queries.
 *
 *   npm run bench -- zk [--accounts 1000000] [--seed 7] [--keep] [--fresh] [--duration 10] [--warmup 2]
 *                       [--connections 10] [--pool 10] [--min-requests 50] [--max-duration 60] [--workers 2]
 *                       [--explain] [--cases a,b] [--no-load] [--cpu-prof DIR]
 *
 * --keep keeps the database (solgate_bench_zk_<accounts>_s<seed>) and reuses it on the next run when it holds the
 * same complete dataset (no regeneration); --fresh forces regeneration. --cases runs only the cases whose names
 * contain one of the given words (the ceiling always runs). --cpu-prof writes a CPU profile of the gateway's process
 * (all its cases, warm-up included) into DIR. DATABASE_URL names the server (default
 * postgres://postgres@127.0.0.1:5432/postgres); the benchmark's database is created next to it and dropped at the
 * end unless kept.
 */
import type { ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToBase58 } from '../src/core/encoding.js';
import { initPoseidon, isAddressInLowElementRange, verifyLightProof, verifyNewAddressProof, type NewAddressProof } from '../src/proofs/light/index.js';
import type { Db } from '../src/store/db.js';
import { DATA_VERSION, DEFAULT_ZK_CONFIG, generateZkData, type ZkDataConfig, type ZkDataStats } from './gen/zk-data.js';
import { explainZkRequest } from './gen/zk-explain.js';
import type { LoadResult } from './gen/load.js';
import { Rng } from './gen/rng.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { loadSettingsLine, measureAgainstCeiling, type LoadCase } from './lib/http-load.js';
import { explainRequests, printExplain, type ExplainedCase } from './lib/explain.js';
import { databaseFacts, openKeptBenchDb } from './lib/kept-db.js';
import { fmt, machineInfo, machineLine, table, writeResult, type Machine } from './lib/report.js';

export const description =
  'ZK Compression reads on 1M synthetic compressed accounts (getCompressedTokenAccountsByOwner, getMultipleCompressedAccountProofs ×100, getMultipleNewAddressProofsV2 ×100) vs a one-query Fastify ceiling';
/** Not part of a bare `npm run bench` (it builds a multi-GB database and hashes ~1.4M Poseidon nodes); run it by name. */
export const onlyWhenNamed = true;

const here = dirname(fileURLToPath(import.meta.url));

/** Hashes / addresses per proof request. */
const BATCH = 100;

interface Sample {
  hashes: string[];
  whales: { owner: string; tokens: number }[];
  small: { owner: string; tokens: number }[];
  addressTrees: string[];
}

type Case = LoadCase<unknown>;

export interface CaseResult extends LoadResult {
  name: string;
  loadAvg: number;
  /** Latency of requests sent one at a time (one connection): what one request costs without queueing. */
  aloneP50Ms: number;
  xCeiling: number;
  p50VsCeiling: number;
  p99VsCeiling: number;
}

export interface ZkResult {
  config: ZkDataConfig & { duration: number; warmup: number; connections: number; pool: number; minRequests: number; maxDuration: number; workers: number };
  machine: Machine;
  database: { name: string; reused: boolean; sizeGB: number };
  dataset: ZkDataStats;
  vacuumAnalyzeMs: number;
  rows: Record<string, number>;
  ceiling: { before: LoadResult & { loadAvg: number }; after: LoadResult & { loadAvg: number }; reqPerSec: number; p50Ms: number; p99Ms: number; aloneP50Ms: number };
  cases: CaseResult[];
  explain: ExplainedCase[];
  timestamp: string;
}

const ROW_TABLES = ['zk_accounts', 'zk_token_accounts', 'zk_state_nodes', 'zk_indexed_elements', 'zk_owner_balances', 'zk_token_owner_balances', 'zk_batch_events'];

export async function run(argv: string[] = []): Promise<ZkResult> {
  const flags = parseFlags(argv);
  const log = (s = '') => process.stdout.write(`${s}\n`);
  const cfg: ZkDataConfig = { ...DEFAULT_ZK_CONFIG, accounts: numberFlag(flags, 'accounts', 1_000_000), seed: numberFlag(flags, 'seed', 7) };
  const opts = {
    duration: numberFlag(flags, 'duration', 10),
    warmup: numberFlag(flags, 'warmup', 2),
    connections: Math.max(1, numberFlag(flags, 'connections', 10)),
    pool: Math.max(1, numberFlag(flags, 'pool', 10)),
    minRequests: numberFlag(flags, 'min-requests', 50),
    maxDuration: numberFlag(flags, 'max-duration', 60),
    workers: Math.max(1, numberFlag(flags, 'workers', Math.max(1, cpus().length))),
  };
  const only = typeof flags.cases === 'string' ? flags.cases.split(',').map((s) => s.trim().toLowerCase()) : null;
  const keep = flags.keep === true;

  const bench = await openKeptBenchDb({
    prefix: 'zk',
    stages: ['complete'],
    keep,
    fresh: flags.fresh === true,
    stableName: `solgate_bench_zk_${cfg.accounts}_s${cfg.seed}`,
    want: { version: DATA_VERSION, ...cfg },
    poolSize: 4,
  });
  const reused = bench.stage === 'complete';
  const children: ChildProcess[] = [];
  const cleanup = async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await bench.close().catch((e: unknown) => log(`zk: cleanup: ${String(e)}`));
  };
  try {
    const db = bench.db;
    log(`zk: database ${bench.name} on PostgreSQL ${bench.serverVersion}${reused ? ' (reused: dataset already generated)' : ''}`);

    // 1. Dataset.
    let dataset: ZkDataStats;
    let vacuumAnalyzeMs: number;
    if (reused) {
      dataset = bench.stored!.dataset as ZkDataStats;
      vacuumAnalyzeMs = bench.stored!.vacuumAnalyzeMs as number;
      const t = dataset.timings;
      log(`zk: timings of the run that built it: generation ${fmt(t.generateMs / 1000)} s (Poseidon ${fmt(t.poseidonMs / 1000)} s for ${fmt(t.hashes)} hashes on ${t.workers} workers)`);
    } else {
      log(`zk: generating ${fmt(cfg.accounts)} compressed accounts (seed ${cfg.seed}) …`);
      dataset = await generateZkData(db, cfg, log, opts.workers);
      log(`zk: generated in ${fmt(dataset.timings.generateMs / 1000)} s`);
      const t = performance.now();
      await db.exec('VACUUM (ANALYZE)');
      vacuumAnalyzeMs = Math.round(performance.now() - t);
      log(`zk: VACUUM ANALYZE in ${fmt(vacuumAnalyzeMs / 1000)} s`);
      await bench.mark('complete', { dataset, vacuumAnalyzeMs });
    }
    const { rows, sizeGB, sharedBuffers } = await databaseFacts(db, ROW_TABLES);

    // 2. Request parameters, sampled from the data.
    const sample = await sampleParams(db, cfg.seed);
    const rng = new Rng(cfg.seed + 1);
    await initPoseidon();
    const cases = buildCases(sample, rng).filter((c) => c.target === 'ceiling' || !only || only.some((o) => c.name.toLowerCase().includes(o)));

    const result: ZkResult = {
      config: { ...cfg, ...opts },
      machine: machineInfo(bench.serverVersion, sharedBuffers),
      database: { name: bench.name, reused, sizeGB: Number(sizeGB.toFixed(2)) },
      dataset,
      vacuumAnalyzeMs,
      rows,
      ceiling: null as unknown as ZkResult['ceiling'],
      cases: [],
      explain: [],
      timestamp: new Date().toISOString(),
    };

    if (flags['no-load'] !== true) {
      const ceilingCase = cases.find((c) => c.target === 'ceiling')!;
      const { before, after, ceilingAloneP50Ms, measured } = await measureAgainstCeiling({
        label: 'zk', db, serverScript: join(here, 'gen', 'zk-server.ts'), databaseUrl: bench.url, children, cases, settings: opts,
        warmUps: [{ case: ceilingCase, seconds: 5, minRequests: 0 }, ...cases.filter((x) => x.target === 'app').map((c) => ({ case: c, seconds: 2, minRequests: 0 }))],
        alone: true, checkedNote: ', proofs verified', clipParams: 300, log,
        cpuProfDir: typeof flags['cpu-prof'] === 'string' ? flags['cpu-prof'] : undefined,
      });
      const ceil = {
        before, after, aloneP50Ms: ceilingAloneP50Ms!, reqPerSec: (before.reqPerSec + after.reqPerSec) / 2, p50Ms: (before.p50Ms + after.p50Ms) / 2, p99Ms: (before.p99Ms + after.p99Ms) / 2,
      };
      result.ceiling = ceil;
      result.cases = measured.map((m) => ({
        ...m,
        aloneP50Ms: m.aloneP50Ms!,
        xCeiling: Number((m.reqPerSec / ceil.reqPerSec).toFixed(4)),
        p50VsCeiling: Number((m.p50Ms / ceil.p50Ms).toFixed(2)),
        p99VsCeiling: Number((m.p99Ms / ceil.p99Ms).toFixed(2)),
      }));
    }

    // 3. Plans.
    if (flags.explain === true) {
      const w = sample.whales[0];
      const s = sample.small.find((x) => x.tokens >= 5) ?? sample.small[0];
      const erng = new Rng(cfg.seed + 2);
      const requests: [string, string, unknown][] = [
        [`getCompressedTokenAccountsByOwner (owner of ${s.tokens} token accounts, default limit)`, 'getCompressedTokenAccountsByOwner', { owner: s.owner }],
        [`getCompressedTokenAccountsByOwner limit 100 (whale, ${fmt(w.tokens)} token accounts)`, 'getCompressedTokenAccountsByOwner', { owner: w.owner, limit: 100 }],
        [`getCompressedTokenAccountsByOwner limit 1000 (whale, ${fmt(w.tokens)} token accounts)`, 'getCompressedTokenAccountsByOwner', { owner: w.owner, limit: 1000 }],
        [`getMultipleCompressedAccountProofs ×${BATCH}`, 'getMultipleCompressedAccountProofs', pickDistinct(erng, sample.hashes, BATCH)],
        [`getMultipleNewAddressProofsV2 ×${BATCH}`, 'getMultipleNewAddressProofsV2', newAddresses(erng, sample.addressTrees, BATCH)],
      ];
      result.explain = await explainRequests(requests, (method, params) => explainZkRequest(db, method, params));
      printExplain(result.explain, log, true);
    }

    printDataset(result, log);
    if (result.cases.length) printReport(result, log);
    log(`\nzk: result written to ${writeResult(`zk-${result.timestamp.replace(/[:.]/g, '-')}`, result)}`);
    if (keep) log(`zk: database ${bench.name} kept (--keep); the next run with the same --accounts/--seed reuses it`);
    return result;
  } finally {
    await cleanup();
  }
}

async function sampleParams(db: Db, seed: number): Promise<Sample> {
  await db.query('SELECT setseed($1)', [((seed % 1000) / 1000) * 2 - 1]);
  // Provable hashes: unspent accounts whose leaf is in the tree (not waiting in a V2 output queue).
  const hashes = (await db.query<{ hash: Buffer }>('SELECT hash FROM zk_accounts WHERE NOT spent AND NOT in_output_queue AND owner IS NOT NULL ORDER BY random() LIMIT 20000')).rows.map((r) => bytesToBase58(r.hash));
  const whales = (await db.query<{ owner: string; tokens: number }>('SELECT owner, token_accounts AS tokens FROM bench_zk_owners WHERE whale ORDER BY token_accounts DESC')).rows;
  const small = (await db.query<{ owner: string; tokens: number }>('SELECT owner, token_accounts AS tokens FROM bench_zk_owners WHERE NOT whale AND token_accounts > 0 ORDER BY random() LIMIT 5000')).rows;
  const addressTrees = (await db.query<{ tree: Buffer }>('SELECT tree FROM zk_trees WHERE tree_type = 4 ORDER BY tree')).rows.map((r) => bytesToBase58(r.tree));
  return { hashes, whales, small, addressTrees };
}

function pickDistinct(rng: Rng, items: readonly string[], n: number): string[] {
  const out = new Set<string>();
  while (out.size < Math.min(n, items.length)) out.add(rng.pick(items));
  return [...out];
}

/** `n` random new addresses (< 2^248, as Light derives them), each in a random address tree. */
function newAddresses(rng: Rng, trees: readonly string[], n: number): { address: string; tree: string }[] {
  return Array.from({ length: n }, () => {
    const b = rng.bytes(32);
    b[0] = 0;
    return { address: bytesToBase58(b), tree: rng.pick(trees) };
  });
}

function buildCases(s: Sample, rng: Rng): Case[] {
  const tokens = new Map([...s.whales, ...s.small].map((o) => [o.owner, o.tokens]));
  const tokenPage = (limit: number) => (r: unknown, p: unknown) => {
    const owner = (p as { owner: string }).owner;
    const items = (r as { value?: { items?: { tokenData?: { owner?: string } }[] } }).value?.items ?? [];
    const want = Math.min(limit, tokens.get(owner) ?? -1);
    if (items.length !== want) return `${items.length} items, expected ${want}`;
    if (items.some((t) => t.tokenData?.owner !== owner)) return 'an item of another owner';
    return null;
  };
  const proofs = (r: unknown, p: unknown) => {
    const hashes = p as string[];
    const items = (r as { value?: { hash: string; root: string; proof: string[]; leafIndex: number }[] }).value ?? [];
    if (items.length !== hashes.length) return `${items.length} proofs for ${hashes.length} hashes`;
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if (it.hash !== hashes[i]) return `proof ${i} is of another hash`;
      if (!verifyLightProof({ root: it.root, leaf: it.hash, proof: it.proof, leafIndex: it.leafIndex })) return `proof ${i} does not verify`;
    }
    return null;
  };
  const addressProofs = (r: unknown, p: unknown) => {
    const asked = p as { address: string; tree: string }[];
    const items = (r as { value?: NewAddressProof[] }).value ?? [];
    if (items.length !== asked.length) return `${items.length} proofs for ${asked.length} addresses`;
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if (it.address !== asked[i].address || it.merkleTree !== asked[i].tree) return `proof ${i} is of another address`;
      if (!verifyNewAddressProof(it, 'AddressV2', 40)) return `proof ${i} does not verify`;
      if (!isAddressInLowElementRange(it)) return `proof ${i}: the address is not inside its low element's range`;
    }
    return null;
  };
  return [
    { name: 'ceiling: Fastify + 1 indexed query', target: 'ceiling', params: () => ({ hash: rng.pick(s.hashes) }) },
    {
      name: 'getCompressedTokenAccountsByOwner (owners of 1-20, default limit)', target: 'app', method: 'getCompressedTokenAccountsByOwner',
      params: () => ({ owner: rng.pick(s.small).owner }), check: tokenPage(1000),
    },
    {
      name: 'getCompressedTokenAccountsByOwner limit 100 (whales)', target: 'app', method: 'getCompressedTokenAccountsByOwner',
      params: () => ({ owner: rng.pick(s.whales).owner, limit: 100 }), check: tokenPage(100),
    },
    {
      name: 'getCompressedTokenAccountsByOwner limit 1000 (whales)', target: 'app', method: 'getCompressedTokenAccountsByOwner',
      params: () => ({ owner: rng.pick(s.whales).owner, limit: 1000 }), check: tokenPage(1000),
    },
    {
      name: `getMultipleCompressedAccountProofs ×${BATCH} hashes`, target: 'app', method: 'getMultipleCompressedAccountProofs',
      params: () => pickDistinct(rng, s.hashes, BATCH), check: proofs,
    },
    {
      name: `getMultipleNewAddressProofsV2 ×${BATCH} addresses`, target: 'app', method: 'getMultipleNewAddressProofsV2',
      params: () => newAddresses(rng, s.addressTrees, BATCH), check: addressProofs,
    },
  ];
}

function printDataset(r: ZkResult, log: (s?: string) => void): void {
  const d = r.dataset;
  const a = d.accounts;
  const t = d.timings;
  log(`\n=== zk: ${fmt(a.total)} compressed accounts (${fmt(a.token)} token, ${fmt(a.sol)} SOL, ${fmt(a.program)} program-owned with data, ${fmt(a.withAddress)} with an address; ${fmt(a.spent)} spent; ${fmt(a.v1)} in V1 trees, ${fmt(a.v2)} in V2 trees of which ${fmt(a.inOutputQueue)} in output queues); ${d.mints} mints`);
  log(`    owners: ${d.owners.whales.length} whales (${d.owners.whales.map((w) => `${fmt(w.accounts)} accounts/${fmt(w.unspentTokenAccounts)} unspent token`).join(', ')}) + ${fmt(d.owners.small)} owners of 1-20 (${fmt(d.owners.smallWithTokens)} with token accounts)`);
  log(table(['tree', 'type', 'height', 'entries', 'leaves', 'nodes', 'root seq'], d.trees.map((x) => [x.tree.slice(0, 8) + '…', x.type, x.height, x.entries, x.leaves, x.nodes, x.rootSeq])));
  log(machineLine(r.machine, r.database.sizeGB));
  log(`    generation${r.database.reused ? ' (the run that built the kept database)' : ''}: ${fmt(t.generateMs / 1000)} s = plan ${fmt(t.planMs / 1000)} s + Poseidon ${fmt(t.poseidonMs / 1000)} s (${fmt(t.hashes)} hashes, ${fmt(t.hashesPerSec)}/s on ${t.workers} workers; ${fmt(t.poseidonUsOneCore)} µs per hash on one core) + writes: accounts ${fmt(t.writeAccountsMs / 1000)} s, ${fmt(d.rows.stateNodes)} tree nodes ${fmt(t.writeNodesMs / 1000)} s, ${fmt(d.rows.indexedElements)} indexed elements ${fmt(t.writeElementsMs / 1000)} s; VACUUM ANALYZE ${fmt(r.vacuumAnalyzeMs / 1000)} s`);
}

function printReport(r: ZkResult, log: (s?: string) => void): void {
  log(loadSettingsLine(r.config));
  log(`    ceiling (Fastify POST + SELECT … FROM zk_accounts WHERE hash = $1): ${fmt(r.ceiling.before.reqPerSec)} req/s before, ${fmt(r.ceiling.after.reqPerSec)} after → ${fmt(r.ceiling.reqPerSec)} req/s, p50 ${fmt(r.ceiling.p50Ms)} ms, p99 ${fmt(r.ceiling.p99Ms)} ms\n`);
  log(table(['case', '× ceiling req/s', 'req/s', 'p50 ms', 'p99 ms', 'p50 ÷ ceiling', 'p99 ÷ ceiling', 'alone p50 ms', 'KB/answer', 'requests', 'window s', 'errors', 'load avg'], [
    ['ceiling (mean of before/after)', '1', r.ceiling.reqPerSec, r.ceiling.p50Ms, r.ceiling.p99Ms, '1', '1', r.ceiling.aloneP50Ms, r.ceiling.before.bytesPerResponse / 1000, r.ceiling.before.requests + r.ceiling.after.requests, (r.ceiling.before.durationMs + r.ceiling.after.durationMs) / 1000, r.ceiling.before.errors + r.ceiling.after.errors, `${r.ceiling.before.loadAvg}/${r.ceiling.after.loadAvg}`],
    ...r.cases.map((c) => [c.name, c.xCeiling.toFixed(3), c.reqPerSec, c.p50Ms, c.p99Ms, c.p50VsCeiling.toFixed(1), c.p99VsCeiling.toFixed(1), c.aloneP50Ms, c.bytesPerResponse / 1000, c.requests, c.durationMs / 1000, c.errors, c.loadAvg]),
  ]));
}
