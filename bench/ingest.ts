/**
 * Ingest throughput: mainnet-shaped `getBlock` JSON (base64) → JSON.parse → normalizeRpcBlock →
 * ingester.ingestBlocks (parse, fold, one SQL transaction per batch) into PostgreSQL, compared with mainnet's
 * ≈ 1,050 non-vote tx/s. Same-run baselines isolate JSON.parse + normalize and parse/fold (no database), and every
 * SQL statement is timed, so the report shows where the time goes. A measurement: it never asserts on speed.
 *
 *   npm run bench -- ingest [--blocks 50] [--txs-per-block 1300] [--seed 42] [--batch 4] [--vote-share 0.7]
 *                           [--wallets 100000] [--no-live]
 */
import { performance } from 'node:perf_hooks';
import type { Block } from '../src/core/model.js';
import { createIngester } from '../src/ingest/pipeline.js';
import { emptyContext, foldBlock, tokenAccountsNeeded, type ParsedTx } from '../src/ingest/fold-block.js';
import { parseJsonLossless } from '../src/sources/json.js';
import { parseTransaction } from '../src/parsers/registry.js';
import { normalizeRpcBlock } from '../src/sources/normalize-rpc.js';
import type { BlockSource } from '../src/sources/source.js';
import { mergeUpdates } from '../src/store/write-block.js';
import { MainnetBlockGenerator, NON_VOTE_MIX, type TxKind } from './gen/mainnet-blocks.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { countRows, createBenchDb } from './lib/db.js';
import { fmt, table, writeResult } from './lib/report.js';
import { timeDb } from './lib/timed-db.js';

/** One-line summary for `bench/run.ts --help`. */
export const description = 'getBlock JSON → normalize → parse/fold → PostgreSQL; non-vote tx/s vs mainnet (≈1,050/s)';

/** Mainnet's non-vote transaction rate (tx/s) the results are compared with. */
export const MAINNET_NON_VOTE_TPS = 1_050;

/** The tables ingestion writes. */
const TABLES = [
  'blocks', 'transactions', 'address_transactions', 'address_slots', 'address_typed', 'sol_balances', 'mints', 'mint_supply_changes',
  'token_accounts', 'token_extensions', 'wallet_transfers', 'wallet_funding', 'name_records', 'ingest_checkpoint',
] as const;

/** Wall time of a stage and the non-vote transaction rate it implies. */
export interface StageResult {
  ms: number;
  nonVoteTxPerSec: number;
  xMainnet: number;
}

/** What `.bench-out/ingest.json` holds. */
export interface IngestResult {
  config: { blocks: number; txsPerBlock: number; voteShare: number; seed: number; batch: number; wallets: number };
  database: string;
  workload: { transactions: number; nonVoteTransactions: number; jsonMB: number; generateMs: number; kinds: Partial<Record<TxKind, number>>; nonVoteMix: typeof NON_VOTE_MIX };
  baselines: { jsonParse: StageResult; normalize: StageResult; decode: StageResult; parseFold: StageResult };
  pipeline: { total: StageResult; jsonParse: StageResult; normalize: StageResult; prepare: StageResult; write: StageResult };
  /** ingester.run() with decoding overlapping the writes (null with --no-live). */
  live: StageResult | null;
  statements: { label: string; calls: number; ms: number }[];
  rows: Record<string, number>;
  mainnetNonVoteTps: number;
  node: string;
  timestamp: string;
}

const stage = (ms: number, nonVote: number): StageResult => {
  const tps = nonVote / (ms / 1000);
  return { ms: Math.round(ms), nonVoteTxPerSec: Math.round(tps), xMainnet: Number((tps / MAINNET_NON_VOTE_TPS).toFixed(2)) };
};

/** Runs the benchmark with command-line style options; prints a report and writes `.bench-out/ingest.json`. */
export async function run(argv: string[] = []): Promise<IngestResult> {
  const flags = parseFlags(argv);
  const config = {
    blocks: numberFlag(flags, 'blocks', 50),
    txsPerBlock: numberFlag(flags, 'txs-per-block', 1_300),
    voteShare: numberFlag(flags, 'vote-share', 0.7),
    seed: numberFlag(flags, 'seed', 42),
    batch: Math.max(1, numberFlag(flags, 'batch', 4)),
    wallets: numberFlag(flags, 'wallets', 100_000),
  };
  const log = (s: string) => process.stdout.write(`${s}\n`);

  // 1. Workload: JSON text, as an RPC node would send it.
  log(`ingest: generating ${config.blocks} blocks × ${config.txsPerBlock} txs (seed ${config.seed}) …`);
  let t = performance.now();
  const gen = new MainnetBlockGenerator({ seed: config.seed, txsPerBlock: config.txsPerBlock, voteShare: config.voteShare, wallets: config.wallets });
  const texts: string[] = [];
  const slots: number[] = [];
  const kinds: Partial<Record<TxKind, number>> = {};
  let nonVote = 0;
  let bytes = 0;
  for (let i = 0; i < config.blocks; i++) {
    const b = gen.next();
    const text = JSON.stringify({ jsonrpc: '2.0', result: b.result, id: b.slot });
    texts.push(text);
    slots.push(b.slot);
    bytes += text.length;
    nonVote += b.nonVoteTxs;
    for (const [k, n] of Object.entries(b.kinds)) kinds[k as TxKind] = (kinds[k as TxKind] ?? 0) + (n ?? 0);
  }
  const generateMs = performance.now() - t;
  const total = config.blocks * config.txsPerBlock;
  log(`ingest: ${fmt(total)} txs (${fmt(nonVote)} non-vote), ${fmt(bytes / 1e6)} MB JSON, generated in ${fmt(generateMs / 1000)} s`);

  const decode = (i: number): Block => normalizeRpcBlock((parseJsonLossless(texts[i]) as { result: unknown }).result, slots[i], { skipVotes: true });

  // 2. Baseline: JSON.parse and normalizeRpcBlock alone.
  let jsonMs = 0;
  let normMs = 0;
  for (let i = 0; i < texts.length; i++) {
    t = performance.now();
    const obj = parseJsonLossless(texts[i]) as { result: unknown };
    const t1 = performance.now();
    normalizeRpcBlock(obj.result, slots[i], { skipVotes: true });
    normMs += performance.now() - t1;
    jsonMs += t1 - t;
  }
  log(`ingest: baseline JSON.parse + normalize: ${fmt((jsonMs + normMs) / 1000)} s`);

  // 3. Baseline: parse + fold (what the ingester does before touching the database), no database.
  let foldMs = 0;
  for (let i = 0; i < texts.length; i += config.batch) {
    const blocks: Block[] = [];
    for (let j = i; j < Math.min(i + config.batch, texts.length); j++) blocks.push(decode(j));
    t = performance.now();
    const parsed = blocks.map((b) => b.transactions.filter((tx) => !tx.isVote).map((tx): ParsedTx => ({ tx, events: parseTransaction(tx) })));
    new Set(parsed.flat().flatMap(tokenAccountsNeeded));
    mergeUpdates(blocks.map((b, k) => foldBlock(b, parsed[k], emptyContext())));
    foldMs += performance.now() - t;
  }
  log(`ingest: baseline parse + fold: ${fmt(foldMs / 1000)} s`);

  // 4. The full pipeline into a throwaway database.
  const bench = await createBenchDb();
  log(`ingest: database: ${bench.description}`);
  if (bench.kind === 'pglite') log('ingest: NOTE DATABASE_URL is unset — running against PGlite in memory; figures are not representative of PostgreSQL');
  const timed = timeDb(bench.db);
  const ingester = createIngester(timed.db);
  let pJson = 0;
  let pNorm = 0;
  let pPrepare = 0;
  let pWrite = 0;
  let rows: Record<string, number> = {};
  const start = performance.now();
  try {
    for (let i = 0; i < texts.length; i += config.batch) {
      const blocks: Block[] = [];
      for (let j = i; j < Math.min(i + config.batch, texts.length); j++) {
        const t0 = performance.now();
        const obj = parseJsonLossless(texts[j]) as { result: unknown };
        const t1 = performance.now();
        blocks.push(normalizeRpcBlock(obj.result, slots[j], { skipVotes: true }));
        pNorm += performance.now() - t1;
        pJson += t1 - t0;
      }
      const t0 = performance.now();
      await ingester.ingestBlocks(blocks);
      const t2 = performance.now();
      pPrepare += timed.lastTxStart - t0;
      pWrite += t2 - timed.lastTxStart;
    }
  } catch (e) {
    await bench.drop().catch(() => {});
    throw e;
  }
  const pipelineMs = performance.now() - start;
  const statements = [...timed.statements].map(([label, s]) => ({ label, calls: s.calls, ms: Math.round(s.ms) })).sort((a, b) => b.ms - a.ms);
  rows = await countRows(bench.db, TABLES);
  await bench.drop();

  // 5. Live mode: ingester.run() with a source that JSON.parses + normalizes (as the RPC poller does), so decoding
  //    the next blocks overlaps with the database writing the current batch — how catching up actually runs.
  let liveMs: number | null = null;
  if (!flags['no-live']) {
    const liveDb = await createBenchDb();
    try {
      const source: BlockSource = {
        name: 'bench:json',
        async *blocks() {
          for (let i = 0; i < texts.length; i++) yield decode(i);
        },
      };
      const t0 = performance.now();
      await createIngester(liveDb.db).run(source, { fromSlot: slots[0], maxBatch: config.batch });
      liveMs = performance.now() - t0;
    } finally {
      await liveDb.drop();
    }
    log(`ingest: live mode (ingester.run, decode overlapping writes): ${fmt(liveMs / 1000)} s`);
  }

  const result: IngestResult = {
    config,
    database: bench.description,
    workload: { transactions: total, nonVoteTransactions: nonVote, jsonMB: Number((bytes / 1e6).toFixed(1)), generateMs: Math.round(generateMs), kinds, nonVoteMix: NON_VOTE_MIX },
    baselines: { jsonParse: stage(jsonMs, nonVote), normalize: stage(normMs, nonVote), decode: stage(jsonMs + normMs, nonVote), parseFold: stage(foldMs, nonVote) },
    pipeline: { total: stage(pipelineMs, nonVote), jsonParse: stage(pJson, nonVote), normalize: stage(pNorm, nonVote), prepare: stage(pPrepare, nonVote), write: stage(pWrite, nonVote) },
    live: liveMs === null ? null : stage(liveMs, nonVote),
    statements,
    rows,
    mainnetNonVoteTps: MAINNET_NON_VOTE_TPS,
    node: process.version,
    timestamp: new Date().toISOString(),
  };
  printReport(result);
  log(`\ningest: result written to ${writeResult('ingest', result)}`);
  return result;
}

function printReport(r: IngestResult): void {
  const log = (s = '') => process.stdout.write(`${s}\n`);
  const c = r.config;
  const share = (ms: number) => `${((100 * ms) / r.pipeline.total.ms).toFixed(1)}%`;
  const row = (name: string, s: StageResult, ofTotal = false): (string | number)[] => [
    name, `${fmt(s.ms / 1000)} s`, s.nonVoteTxPerSec, `${s.xMainnet.toFixed(2)}×`, ofTotal ? share(s.ms) : '',
  ];
  log(`\n=== ingest: ${c.blocks} blocks × ${c.txsPerBlock} txs, ${Math.round(c.voteShare * 100)}% votes → ${fmt(r.workload.nonVoteTransactions)} non-vote txs; ${fmt(r.workload.jsonMB)} MB JSON; batch ${c.batch} blocks/SQL tx; seed ${c.seed}`);
  log(`    database: ${r.database}; node ${r.node}`);
  log(`    mainnet ≈ ${fmt(MAINNET_NON_VOTE_TPS)} non-vote tx/s; target 3× = ${fmt(3 * MAINNET_NON_VOTE_TPS)}\n`);
  log(table(['stage', 'time', 'non-vote tx/s', '× mainnet', 'share'], [
    row('FULL PIPELINE → database', r.pipeline.total, true),
    row('  JSON.parse', r.pipeline.jsonParse, true),
    row('  normalizeRpcBlock', r.pipeline.normalize, true),
    row('  parse/fold + lookups (prepare)', r.pipeline.prepare, true),
    row('  SQL write transaction', r.pipeline.write, true),
    ...(r.live ? [row('LIVE MODE (ingester.run, overlapped)', r.live)] : []),
    row('baseline: JSON.parse + normalize', r.baselines.decode),
    row('  JSON.parse', r.baselines.jsonParse),
    row('  normalizeRpcBlock', r.baselines.normalize),
    row('baseline: parse + fold (no DB)', r.baselines.parseFold),
  ]));
  log('\nSQL statements in the full pipeline:');
  log(table(['statement', 'calls', 'total ms', 'ms/call', 'share of pipeline'], r.statements.map((s) => [s.label, s.calls, s.ms, s.ms / s.calls, share(s.ms)])));
  log('\nRows per table after the run:');
  log(table(['table', 'rows'], Object.entries(r.rows).map(([t, n]) => [t, n])));
  log('\nTransaction kinds generated:');
  log(table(['kind', 'count'], Object.entries(r.workload.kinds).map(([k, n]) => [k, n ?? 0])));
}
