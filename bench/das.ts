/**
 * DAS read throughput on a synthetic mainnet-shaped dataset (default 1M assets: Token Metadata NFTs, MPL Core and
 * compressed NFTs; collections of 10k; whales holding 10k–50k assets; everyone else 1–20) in real PostgreSQL.
 *
 * 1. Generates the SOURCE rows (asset accounts, mints, holders, compressed assets and their Merkle trees;
 *    bench/gen/das-data.ts), checks their shape against rows ingested from recorded fixtures, ANALYZEs, marks every
 *    asset dirty and derives the list index with the real refresher (`refreshAssetIndex` rounds until the dirty set
 *    is empty, i.e. `drainAssetIndex`), timed (assets/s); then VACUUM ANALYZE.
 * 2. Starts the gateway (buildApp) and a ceiling server (Fastify + one indexed PostgreSQL query per request) in
 *    child processes, with pg pools of the same size, and drives each with the same closed-loop load generator
 *    (N keep-alive connections, fixed duration, random ids/owners per request): getAsset, getAssetsByOwner (page
 *    of 100 for whales and small owners, page of 1000 for whales), searchAssets by owner + collection, and
 *    getAssetProof. Each case's req/s is reported as a ratio to the ceiling's, measured before and after the cases;
 *    owner pages of 100 also to a list ceiling's (one query reading the same owners' rows with their documents,
 *    returned as JSON, `/list`), measured with the cases.
 * 3. With --explain, prints EXPLAIN ANALYZE of every statement those requests run, flagging full scans, sorts in
 *    list queries and over-reading.
 *
 *   npm run bench -- das [--assets 1000000] [--seed 7] [--keep] [--fresh] [--duration 10] [--warmup 2]
 *                        [--connections 10] [--pool 10] [--min-requests 50] [--max-duration 60] [--refresh-batch 2000]
 *                        [--explain] [--cases a,b] [--no-load] [--cpu-prof DIR]
 *
 * --keep keeps the database (solgate_bench_das_<assets>_s<seed>) and reuses it on the next run when it holds the
 * same dataset (no regeneration; a run interrupted after generation resumes at the index refresh); --fresh forces
 * regeneration. --cases runs only the cases whose names contain one of the given words (the ceiling always runs).
 * --cpu-prof writes a CPU profile of the gateway's process (`node --cpu-prof`) into DIR when it stops.
 * DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/postgres); the benchmark's database is
 * created next to it and dropped at the end unless kept.
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drainAssetIndex, refreshAssetIndex } from '../src/ingest/asset-index.js';
import { migrate } from '../src/store/migrate.js';
import { countDirty } from '../src/store/das-index.js';
import { verifyBuiltProof } from '../src/proofs/verify.js';
import type { Db } from '../src/store/db.js';
import { DATA_VERSION, DEFAULT_DATA_CONFIG, generateDasData, type DasDataConfig, type DasDataStats } from './gen/das-data.js';
import { checkShapes, type ShapeReport } from './gen/das-shapes.js';
import { explainRequest } from './gen/das-explain.js';
import type { LoadResult } from './gen/load.js';
import { Rng } from './gen/rng.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { loadSettingsLine, measureAgainstCeiling, type LoadCase } from './lib/http-load.js';
import { explainRequests, printExplain, type ExplainedCase } from './lib/explain.js';
import { databaseFacts, openKeptBenchDb } from './lib/kept-db.js';
import { fmt, machineInfo, machineLine, table, writeResult, type Machine } from './lib/report.js';

export const description = 'DAS reads on 1M synthetic assets (getAsset, getAssetsByOwner, searchAssets, getAssetProof) vs a one-query Fastify ceiling';
/** Not part of a bare `npm run bench` (it builds a multi-GB database); run it by name. */
export const onlyWhenNamed = true;

const here = dirname(fileURLToPath(import.meta.url));

interface Timings {
  generateMs: number;
  /** ANALYZE after generation, before the refresh. */
  analyzeMs: number;
  dirtyMs: number;
  drainMs: number;
  drainRounds: number;
  drainKeys: number;
  indexedAssets: number;
  assetsPerSec: number;
  vacuumAnalyzeMs: number;
  /** 1-minute load average right after the refresh (other work on the machine slows it). */
  loadAvgAfterDrain: number;
}

interface Sample {
  ids: string[];
  cnftIds: string[];
  whales: { owner: string; assets: number }[];
  small: { owner: string; assets: number }[];
  whalePairs: { owner: string; collection: string; n: number }[];
  smallPairs: { owner: string; collection: string; n: number }[];
}

type Case = LoadCase<Record<string, unknown>>;

export interface CaseResult extends LoadResult {
  name: string;
  /** 1-minute load average of the machine when the case ended (the benchmark itself keeps ~2 cores busy). */
  loadAvg: number;
  xCeiling: number;
  p50VsCeiling: number;
  /** Owner pages of 100: req/s ÷ the list ceiling's for the same owners (one query reading the same rows). */
  xListCeiling?: number;
}

export interface DasResult {
  config: DasDataConfig & { duration: number; warmup: number; connections: number; pool: number; refreshBatch: number; minRequests: number; maxDuration: number };
  machine: Machine;
  database: { name: string; stage: 'new' | 'generated' | 'complete'; sizeGB: number };
  dataset: DasDataStats;
  rows: Record<string, number>;
  timings: Timings;
  shapes: ShapeReport | null;
  ceiling: { before: LoadResult & { loadAvg: number }; after: LoadResult & { loadAvg: number }; reqPerSec: number; p50Ms: number };
  cases: CaseResult[];
  explain: ExplainedCase[];
  timestamp: string;
}

/** What a kept database records: 'complete' (generated and indexed), 'generated' (the index refresh still to do). */
const STAGES = ['complete', 'generated'] as const;

const ROW_TABLES = ['asset_accounts', 'mints', 'token_accounts', 'tm_edition_mints', 'cnft_assets', 'cnft_nodes', 'cnft_signatures',
  'das_assets', 'das_asset_groups', 'das_asset_creators', 'das_asset_authorities'];

export async function run(argv: string[] = []): Promise<DasResult> {
  const flags = parseFlags(argv);
  const log = (s = '') => process.stdout.write(`${s}\n`);
  const cfg: DasDataConfig = { ...DEFAULT_DATA_CONFIG, assets: numberFlag(flags, 'assets', 1_000_000), seed: numberFlag(flags, 'seed', 7) };
  const opts = {
    duration: numberFlag(flags, 'duration', 10),
    warmup: numberFlag(flags, 'warmup', 2),
    connections: Math.max(1, numberFlag(flags, 'connections', 10)),
    pool: Math.max(1, numberFlag(flags, 'pool', 10)),
    refreshBatch: Math.max(1, numberFlag(flags, 'refresh-batch', 2000)),
    minRequests: numberFlag(flags, 'min-requests', 50),
    maxDuration: numberFlag(flags, 'max-duration', 60),
  };
  const only = typeof flags.cases === 'string' ? flags.cases.split(',').map((s) => s.trim().toLowerCase()) : null;
  const keep = flags.keep === true;

  const bench = await openKeptBenchDb({
    prefix: 'das',
    stages: STAGES,
    keep,
    fresh: flags.fresh === true,
    stableName: `solgate_bench_das_${cfg.assets}_s${cfg.seed}`,
    want: { version: DATA_VERSION, ...cfg },
    poolSize: 4,
  });
  const children: ChildProcess[] = [];
  const cleanup = async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await bench.close().catch((e: unknown) => log(`das: cleanup: ${String(e)}`));
  };
  try {
    const db = bench.db;
    const stageNote = { new: '', generated: ' (resuming: dataset generated by an earlier run, list index not yet derived)', complete: ' (reused: dataset already generated and indexed)' };
    log(`das: database ${bench.name} on PostgreSQL ${bench.serverVersion}${stageNote[bench.stage]}`);

    // 1. Dataset and list index.
    let dataset: DasDataStats;
    let timings: Timings;
    let shapes: ShapeReport | null;
    if (bench.stage === 'complete') {
      dataset = bench.stored!.dataset as DasDataStats;
      timings = bench.stored!.timings as Timings;
      shapes = (bench.stored!.shapes as ShapeReport | undefined) ?? null;
      log(`das: timings of the run that built it: generate ${fmt(timings.generateMs / 1000)} s, refresh ${fmt(timings.drainMs / 1000)} s (${fmt(timings.assetsPerSec)} assets/s)`);
      // A database kept from an older schema: the migrations since are applied, and the dirty marks they leave (031
      // marks every asset so the refresher stores its document) are drained before measuring.
      await migrate(db);
      const pending = await countDirty(db);
      if (pending) {
        log(`das: ${fmt(pending)} dirty marks left by migrations since the database was built; draining …`);
        const t = performance.now();
        await drainAssetIndex(db, opts.refreshBatch);
        log(`das: drained in ${fmt((performance.now() - t) / 1000)} s; VACUUM ANALYZE …`);
        await db.exec('VACUUM (ANALYZE)');
      }
    } else {
      if (bench.stage === 'generated') {
        dataset = bench.stored!.dataset as DasDataStats;
        shapes = (bench.stored!.shapes as ShapeReport | undefined) ?? null;
        await db.exec('TRUNCATE das_assets, das_asset_creators, das_asset_authorities, das_asset_groups, das_dirty');
      } else {
        log(`das: generating ${fmt(cfg.assets)} assets (seed ${cfg.seed}) …`);
        dataset = await generateDasData(db, cfg, log);
        log(`das: generated in ${fmt(dataset.generateMs / 1000)} s`);
        shapes = await shapeCheck(db, log);
        await bench.mark('generated', { dataset, shapes });
      }
      // Statistics first, as a live database has them (without, the planner guesses and JIT-compiles seq scans).
      let t = performance.now();
      await db.exec('ANALYZE');
      const analyzeMs = performance.now() - t;
      t = performance.now();
      await db.exec(`INSERT INTO das_dirty (key)
        SELECT asset_id FROM asset_accounts WHERE kind = 'tm.metadata'
        UNION SELECT address FROM asset_accounts WHERE kind IN ('core.asset', 'core.collection')
        UNION SELECT asset_id FROM cnft_assets
        ON CONFLICT (key) DO NOTHING`);
      const dirtyMs = performance.now() - t;
      const dirty = await countDirty(db);
      log(`das: ANALYZE ${fmt(analyzeMs / 1000)} s; ${fmt(dirty)} dirty marks; refreshing the list index (drainAssetIndex, batch ${opts.refreshBatch}) …`);
      t = performance.now();
      let rounds = 0;
      let keys = 0;
      let lastLog = t;
      for (let n; (n = await refreshAssetIndex(db, opts.refreshBatch)) > 0; ) {
        rounds++;
        keys += n;
        if (performance.now() - lastLog > 30_000) {
          lastLog = performance.now();
          const sec = (lastLog - t) / 1000;
          log(`das: refresh: ${fmt(keys)} / ${fmt(dirty)} keys in ${fmt(sec)} s (${fmt(keys / sec)} keys/s)`);
        }
      }
      const drainMs = performance.now() - t;
      const indexed = Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM das_assets')).rows[0].n);
      log(`das: list index refreshed: ${fmt(indexed)} assets in ${fmt(drainMs / 1000)} s (${fmt(indexed / (drainMs / 1000))} assets/s, ${rounds} rounds)`);
      t = performance.now();
      await db.exec('VACUUM (ANALYZE)');
      const vacuumAnalyzeMs = performance.now() - t;
      log(`das: VACUUM ANALYZE in ${fmt(vacuumAnalyzeMs / 1000)} s`);
      timings = {
        generateMs: dataset.generateMs, analyzeMs: Math.round(analyzeMs), dirtyMs: Math.round(dirtyMs), drainMs: Math.round(drainMs), drainRounds: rounds,
        drainKeys: keys, indexedAssets: indexed, assetsPerSec: Math.round(indexed / (drainMs / 1000)), vacuumAnalyzeMs: Math.round(vacuumAnalyzeMs),
        loadAvgAfterDrain: Number(loadavg()[0].toFixed(2)),
      };
      await bench.mark('complete', { dataset, timings, shapes });
    }
    const { rows, sizeGB, sharedBuffers } = await databaseFacts(db, ROW_TABLES);

    // 2. Request parameters, sampled from the data.
    const sample = await sampleParams(db, cfg.seed);
    const rng = new Rng(cfg.seed + 1);
    const cases = buildCases(sample, rng).filter((c) => c.target === 'ceiling' || !only || only.some((o) => c.name.toLowerCase().includes(o)));

    const result: DasResult = {
      config: { ...cfg, ...opts },
      machine: machineInfo(bench.serverVersion, sharedBuffers),
      database: { name: bench.name, stage: bench.stage, sizeGB: Number(sizeGB.toFixed(2)) },
      dataset,
      rows,
      timings,
      shapes,
      ceiling: null as unknown as DasResult['ceiling'],
      cases: [],
      explain: [],
      timestamp: new Date().toISOString(),
    };

    if (flags['no-load'] !== true) {
      const ceilingCase = cases.find((c) => c.target === 'ceiling')!;
      const getAssetCase = cases.find((c) => c.method === 'getAsset');
      const { before, after, measured } = await measureAgainstCeiling({
        label: 'das', db, serverScript: join(here, 'gen', 'das-server.ts'), databaseUrl: bench.url, children, cases, settings: opts,
        warmUps: [{ case: ceilingCase, seconds: 5 }, ...(getAssetCase ? [{ case: getAssetCase, seconds: 5 }] : [])],
        log,
        cpuProfDir: typeof flags['cpu-prof'] === 'string' ? flags['cpu-prof'] : undefined,
      });
      const ceil = { before, after, reqPerSec: (before.reqPerSec + after.reqPerSec) / 2, p50Ms: (before.p50Ms + after.p50Ms) / 2 };
      result.ceiling = ceil;
      result.cases = measured.map((m) => ({ ...m, xCeiling: Number((m.reqPerSec / ceil.reqPerSec).toFixed(4)), p50VsCeiling: Number((m.p50Ms / ceil.p50Ms).toFixed(2)) }));
      for (const c of result.cases) {
        const list = result.cases.find((x) => x.name === listCeilingOf(c.name));
        if (list) c.xListCeiling = Number((c.reqPerSec / list.reqPerSec).toFixed(4));
      }
    }

    // 3. Plans.
    if (flags.explain === true) {
      const w = sample.whales[0];
      const s = sample.small.find((x) => x.assets >= 5) ?? sample.small[0];
      const wp = sample.whalePairs[0];
      const sp = sample.smallPairs[0];
      const requests: [string, string, Record<string, unknown>][] = [
        ['getAsset (Token Metadata NFT)', 'getAsset', { id: (await db.query<{ id: string }>("SELECT asset_id AS id FROM asset_accounts WHERE kind = 'tm.metadata' LIMIT 1")).rows[0].id }],
        [`getAssetsByOwner limit 100 (whale, ${fmt(w.assets)} assets)`, 'getAssetsByOwner', { ownerAddress: w.owner, page: 1, limit: 100 }],
        [`getAssetsByOwner limit 1000 (whale, ${fmt(w.assets)} assets)`, 'getAssetsByOwner', { ownerAddress: w.owner, page: 1, limit: 1000 }],
        [`getAssetsByOwner limit 100 (small owner, ${s.assets} assets)`, 'getAssetsByOwner', { ownerAddress: s.owner, page: 1, limit: 100 }],
        [`searchAssets owner+collection limit 100 (whale, ${wp.n} in the collection)`, 'searchAssets', { ownerAddress: wp.owner, grouping: ['collection', wp.collection], page: 1, limit: 100 }],
        [`searchAssets owner+collection limit 100 (small owner, ${sp.n} in the collection)`, 'searchAssets', { ownerAddress: sp.owner, grouping: ['collection', sp.collection], page: 1, limit: 100 }],
        ['getAssetsByGroup limit 100 (collection of 10k)', 'getAssetsByGroup', { groupKey: 'collection', groupValue: wp.collection, page: 1, limit: 100 }],
        ['getAssetProof', 'getAssetProof', { id: sample.cnftIds[0] }],
      ];
      result.explain = await explainRequests(requests, (method, params) => explainRequest(db, method, params));
      printExplain(result.explain, log, false);
    }

    if (result.cases.length) printReport(result, log);
    log(`\ndas: result written to ${writeResult(`das-${result.timestamp.replace(/[:.]/g, '-')}`, result)}`);
    if (keep) log(`das: database ${bench.name} kept (--keep); the next run with the same --assets/--seed reuses it`);
    return result;
  } finally {
    await cleanup();
  }
}

async function shapeCheck(db: Db, log: (s: string) => void): Promise<ShapeReport> {
  const scratch = await openKeptBenchDb({ prefix: 'das', stages: STAGES, keep: false, fresh: true, stableName: '', want: {}, poolSize: 2 });
  try {
    const r = await checkShapes(db, scratch.db);
    if (r.differences.length) {
      log(`das: SHAPE CHECK: generated rows differ from rows ingested from the fixtures:\n  ${r.differences.join('\n  ')}`);
    } else {
      log(`das: shape check: generated rows and rendered assets have the shape of ingested fixture rows (${r.checked.length} probes)`);
    }
    return r;
  } finally {
    await scratch.close();
  }
}

async function sampleParams(db: Db, seed: number): Promise<Sample> {
  await db.query('SELECT setseed($1)', [((seed % 1000) / 1000) * 2 - 1]);
  const ids = (await db.query<{ id: string }>('SELECT id FROM das_assets ORDER BY random() LIMIT 20000')).rows.map((r) => r.id);
  const cnftIds = (await db.query<{ id: string }>('SELECT asset_id AS id FROM cnft_assets ORDER BY random() LIMIT 5000')).rows.map((r) => r.id);
  const whales = (await db.query<{ owner: string; assets: number }>('SELECT owner, assets FROM bench_das_owners WHERE whale ORDER BY assets DESC')).rows;
  const small = (await db.query<{ owner: string; assets: number }>('SELECT owner, assets FROM bench_das_owners WHERE NOT whale ORDER BY random() LIMIT 5000')).rows;
  const pairs = async (owners: string[]) =>
    (await db.query<{ owner: string; collection: string; n: number }>(
      `SELECT a.owner, g.group_value AS collection, count(*)::int AS n FROM das_assets a JOIN das_asset_groups g ON g.asset_id = a.id
        WHERE a.owner = ANY($1::text[]) AND g.group_key = 'collection' GROUP BY 1, 2 ORDER BY 1, 2`,
      [owners],
    )).rows;
  return { ids, cnftIds, whales, small, whalePairs: await pairs(whales.map((w) => w.owner)), smallPairs: await pairs(small.map((s) => s.owner)) };
}

const LIST_CEILING = 'list ceiling: Fastify + 1 query, owner page (≤ 100 rows with documents)';

/** The list ceiling case an owner-page case compares with (same owners), if any. */
const listCeilingOf = (name: string): string | null =>
  name.startsWith('getAssetsByOwner limit 100 (') ? `${LIST_CEILING} ${name.slice(name.indexOf('('))}` : null;

function buildCases(s: Sample, rng: Rng): Case[] {
  const list = (limit: number, expected: (p: Record<string, unknown>) => number, owner = true) => (r: unknown, p: Record<string, unknown>) => {
    const items = (r as { items?: { ownership?: { owner?: string } }[] }).items ?? [];
    const want = Math.min(limit, expected(p));
    if (items.length !== want) return `${items.length} items, expected ${want}`;
    if (owner && items.some((a) => a.ownership?.owner !== p.ownerAddress)) return 'an item of another owner';
    return null;
  };
  const count = new Map([...s.whales, ...s.small].map((o) => [o.owner, o.assets]));
  const pairCount = (p: Record<string, unknown>) => [...s.whalePairs, ...s.smallPairs].find((x) => x.owner === p.ownerAddress && x.collection === (p.grouping as string[])[1])?.n ?? -1;
  return [
    { name: 'ceiling: Fastify + 1 indexed query', target: 'ceiling', params: () => ({ id: rng.pick(s.ids) }) },
    // The owner pages' own ceiling: one query reading the same rows (up to 100, with their documents) as JSON.
    { name: `${LIST_CEILING} (whales)`, target: 'ceiling', path: '/list', params: () => ({ owner: rng.pick(s.whales).owner }), check: (r) => ((r as unknown[]).length === 100 ? null : 'not 100 rows') },
    { name: `${LIST_CEILING} (owners of 1-20)`, target: 'ceiling', path: '/list', params: () => ({ owner: rng.pick(s.small).owner }) },
    {
      name: 'getAsset', target: 'app', method: 'getAsset', params: () => ({ id: rng.pick(s.ids) }),
      check: (r, p) => ((r as { id?: string }).id === p.id ? null : 'another asset'),
    },
    {
      name: 'getAssetsByOwner limit 100 (whales)', target: 'app', method: 'getAssetsByOwner',
      params: () => ({ ownerAddress: rng.pick(s.whales).owner, page: 1, limit: 100 }), check: list(100, (p) => count.get(p.ownerAddress as string)!),
    },
    {
      name: 'getAssetsByOwner limit 100 (owners of 1-20)', target: 'app', method: 'getAssetsByOwner',
      params: () => ({ ownerAddress: rng.pick(s.small).owner, page: 1, limit: 100 }), check: list(100, (p) => count.get(p.ownerAddress as string)!),
    },
    {
      name: 'getAssetsByOwner limit 1000 (whales)', target: 'app', method: 'getAssetsByOwner',
      params: () => ({ ownerAddress: rng.pick(s.whales).owner, page: 1, limit: 1000 }), check: list(1000, (p) => count.get(p.ownerAddress as string)!),
    },
    {
      name: 'searchAssets owner+collection limit 100 (whales)', target: 'app', method: 'searchAssets',
      params: () => {
        const x = rng.pick(s.whalePairs);
        return { ownerAddress: x.owner, grouping: ['collection', x.collection], page: 1, limit: 100 };
      },
      check: list(100, pairCount),
    },
    {
      name: 'searchAssets owner+collection limit 100 (owners of 1-20)', target: 'app', method: 'searchAssets',
      params: () => {
        const x = rng.pick(s.smallPairs);
        return { ownerAddress: x.owner, grouping: ['collection', x.collection], page: 1, limit: 100 };
      },
      check: list(100, pairCount),
    },
    {
      name: 'getAssetProof', target: 'app', method: 'getAssetProof', params: () => ({ id: rng.pick(s.cnftIds) }),
      check: (r) => (verifyBuiltProof({ ...(r as { root: string; proof: string[]; node_index: number; leaf: string }), nodeIndex: (r as { node_index: number }).node_index }) ? null : 'proof does not verify'),
    },
  ];
}

function printReport(r: DasResult, log: (s?: string) => void): void {
  const d = r.dataset;
  log(`\n=== das: ${fmt(d.assets.total)} assets (${fmt(d.assets.tokenMetadata)} Token Metadata, ${fmt(d.assets.core)} Core, ${fmt(d.assets.compressed)} compressed, ${d.assets.collectionAssets} collection assets); ${d.collections} collections of ≤ ${fmt(r.config.collectionSize)}; ${d.owners.whales.length} whales (${d.owners.whales.map((w) => fmt(w.assets)).join(', ')}) + ${fmt(d.owners.small)} owners of 1-20`);
  log(machineLine(r.machine, r.database.sizeGB));
  const t = r.timings;
  log(`    generation ${fmt(t.generateMs / 1000)} s${r.database.stage === 'generated' ? ' (earlier run)' : ''}; ANALYZE ${fmt((t.analyzeMs ?? 0) / 1000)} s; list index refresh (drainAssetIndex) ${fmt(t.drainMs / 1000)} s = ${fmt(t.assetsPerSec)} assets/s (${t.drainRounds} rounds); VACUUM ANALYZE ${fmt(t.vacuumAnalyzeMs / 1000)} s${r.database.stage === 'complete' ? ' (from the run that built the kept database)' : ''}`);
  log(loadSettingsLine(r.config));
  log(`    ceiling (Fastify POST + SELECT … FROM das_assets WHERE id = $1): ${fmt(r.ceiling.before.reqPerSec)} req/s before, ${fmt(r.ceiling.after.reqPerSec)} after → ${fmt(r.ceiling.reqPerSec)} req/s, p50 ${fmt(r.ceiling.p50Ms)} ms\n`);
  log(table(['case', 'req/s', 'p50 ms', 'p99 ms', '× ceiling req/s', '× list ceiling', 'p50 ÷ ceiling p50', 'KB/answer', 'requests', 'window s', 'errors', 'load avg'], [
    ['ceiling (mean of before/after)', r.ceiling.reqPerSec, r.ceiling.p50Ms, (r.ceiling.before.p99Ms + r.ceiling.after.p99Ms) / 2, '1', '', '1', r.ceiling.before.bytesPerResponse / 1000, r.ceiling.before.requests + r.ceiling.after.requests, (r.ceiling.before.durationMs + r.ceiling.after.durationMs) / 1000, r.ceiling.before.errors + r.ceiling.after.errors, `${r.ceiling.before.loadAvg}/${r.ceiling.after.loadAvg}`],
    ...r.cases.map((c) => [c.name, c.reqPerSec, c.p50Ms, c.p99Ms, c.xCeiling.toFixed(3), c.xListCeiling?.toFixed(3) ?? '', c.p50VsCeiling.toFixed(1), c.bytesPerResponse / 1000, c.requests, c.durationMs / 1000, c.errors, c.loadAvg]),
  ]));
}
