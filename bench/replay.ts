/**
 * Replay throughput on REAL mainnet blocks: N copies of the recorded block 254170887 (602 transactions, 444 of
 * them non-vote, many swaps with deep CPI trees) written as `getBlock` files named by slot, replayed by the built
 * CLI (`node bin/solgate.js replay <dir>`) into a throwaway PostgreSQL database. Wall time includes the process's
 * start (module loading, connecting, the migration check); the rate is non-vote tx/s compared with mainnet's
 * ≈ 1,050/s. A measurement: it never asserts on speed.
 *
 * Copies are distinct, real-shaped blocks: copy k sits at slot 254170887 + k (parent the slot before) and every
 * signature of its transactions is rewritten deterministically (its last 4 bytes XOR k; copy 0 is the recorded
 * block as is). Without the rewrite every copy would repeat the signatures of copy 0, and the store keys
 * transactions by signature: the repeats would update nothing in `transactions` (a faster, meaningless write)
 * while adding address links at a second slot for the same signature. The rest of each transaction (message,
 * accounts, meta, logs) is byte-for-byte the recorded one.
 *
 * Same-run figures beside it:
 * - the CLI on ONE copy (process start + migration check + one block): the fixed cost of a run;
 * - the CLI again on the same N copies into the now full database (re-replay: must change nothing);
 * - an in-process split of the same work, stage by stage, on one thread: read + JSON.parse, normalizeRpcBlock,
 *   parse + fold (no database), and the SQL write of `ingester.ingestBlocks` (into a second throwaway database,
 *   every statement timed).
 *
 * With --baseline-root DIR, another checkout's CLI replays the same files into a database of its own; with --pairs N as
 * well, the two alternate in A-B-B-A order over 2N runs and each pair's time ratio is reported.
 *
 * The CLI run's CPU is reported with PostgreSQL's, and by thread (read from /proc every 50 ms: the ingesting main
 * thread, the decoding workers, V8's collector and compiler helpers). After the CLI run it reports the bytes on disk
 * per table and index per non-vote transaction and their projection at mainnet's rate (bench/lib/storage.ts).
 *
 *   npm run bench -- replay [--copies 100] [--batch 8] [--no-split] [--cpu-prof DIR] [--root DIR] [--baseline-root DIR] [--pairs N]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Block } from '../src/core/model.js';
import { createIngester } from '../src/ingest/pipeline.js';
import { emptyContext, foldBlock, tokenAccountsNeeded, type ParsedTx } from '../src/ingest/fold-block.js';
import { parseJsonLossless } from '../src/sources/json.js';
import { parseTransaction } from '../src/parsers/registry.js';
import { normalizeRpcBlock } from '../src/sources/normalize-rpc.js';
import { mergeUpdates } from '../src/store/write-block.js';
import { alternationOf, type Alternation } from './lib/alternation.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { countRows, createBenchDb } from './lib/db.js';
import { cliDb, ensureBuild } from './lib/checkout.js';
import { fmt, REPO_ROOT, table, writeResult } from './lib/report.js';
import { measureStorage, storageRows, type StorageReport } from './lib/storage.js';
import { timeDb } from './lib/timed-db.js';
import { cpuSeconds, endedChildrenSeconds, readCpu, sampleThreads } from './lib/proc-cpu.js';

export const description = 'solgate replay of N copies of a real mainnet block → PostgreSQL; non-vote tx/s vs mainnet (≈1,050/s)';
/** Builds tens of MB of files and several databases: run it by name. */
export const onlyWhenNamed = true;

const MAINNET_NON_VOTE_TPS = 1_050;
const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'photon-blocks', 'index_block_metadata', '254170887');
const BASE_SLOT = 254170887;

const TABLES = [
  'blocks', 'transactions', 'address_transactions', 'address_slots', 'address_typed', 'sol_balances', 'mints', 'mint_supply_changes',
  'token_accounts', 'token_extensions', 'wallet_transfers', 'wallet_funding', 'swap_prices', 'ingest_checkpoint',
] as const;

/** CPU seconds of a CLI run: the CLI process (all its threads) and the PostgreSQL server (NaN/0 without /proc). */
interface CliCpu {
  cliS: number;
  postgresS: number;
  /** The CLI's CPU seconds by thread name (sampled from /proc every 50 ms; empty where /proc is missing). */
  byThread: [string, number][];
}

interface CliRun {
  ms: number;
  stdout: string;
  cpu: CliCpu;
}

interface Stage {
  ms: number;
  nonVoteTxPerSec: number;
  xMainnet: number;
}

export interface ReplayBenchResult {
  config: { copies: number; batch: number };
  database: string;
  workload: { blocks: number; transactions: number; nonVoteTransactions: number; jsonMB: number };
  cli: { root: string; full: Stage; fullCpu: CliCpu; oneCopy: { ms: number }; rereplay: { ms: number }; fullMinusStart: Stage };
  /** The same files through another checkout's CLI (--baseline-root). */
  baseline: null | { root: string; full: Stage; cpu: CliCpu; rows: Record<string, number> };
  /** With --pairs N (N > 1) and --baseline-root: every run's wall time in A-B-B-A order and the pairs' time ratios. */
  alternation: Alternation | null;
  split: null | { readJson: Stage; normalize: Stage; parseFold: Stage; sqlWrite: Stage; inProcessTotal: Stage };
  statements: { label: string; calls: number; ms: number }[];
  rows: Record<string, number>;
  /** Bytes on disk per table and index after the CLI run, per non-vote transaction, projected to mainnet. */
  storage: StorageReport;
  rowsAfterRereplay: Record<string, number>;
  node: string;
  timestamp: string;
}

const stage = (ms: number, nonVote: number): Stage => {
  const tps = nonVote / (ms / 1000);
  return { ms: Math.round(ms), nonVoteTxPerSec: Math.round(tps), xMainnet: Number((tps / MAINNET_NON_VOTE_TPS).toFixed(2)) };
};

/** Copy `k` of the recorded block's text: every transaction's signatures with their last 4 bytes XOR k. */
export function copyBlockText(text: string, k: number): string {
  const body = k === 0 ? text : text.replace(/"transaction":\["([A-Za-z0-9+/=]+)","base64"\]/g, (_m, b64: string) => `"transaction":["${rewriteSignatures(b64, k)}","base64"]`);
  // The slot comes from the file name; the parent is the slot before, as in a chain without skipped slots.
  return body.replace(/"parentSlot":\d+/, `"parentSlot":${BASE_SLOT + k - 1}`);
}

function rewriteSignatures(b64: string, k: number): string {
  const bytes = Buffer.from(b64, 'base64');
  // Compact-u16 signature count (< 128 in practice: one byte), then 64-byte signatures.
  const n = bytes[0];
  if (n >= 0x80) throw new Error('replay bench: unexpected signature count encoding');
  for (let s = 0; s < n; s++) {
    const end = 1 + 64 * (s + 1);
    bytes.writeUInt32BE((bytes.readUInt32BE(end - 4) ^ k) >>> 0, end - 4);
  }
  return bytes.toString('base64');
}

/**
 * Runs the built CLI of the checkout `root` (`node <root>/dist/cli/main.js replay <dir>`, what bin/solgate.js runs
 * when the build is current: called directly so that a source file edited after the build never makes it fall
 * back to compiling TypeScript on start) against `url`; resolves with its wall time (ms).
 */
function runCli(root: string, dir: string, url: string, cpuProf?: string): Promise<CliRun> {
  const cpuBefore = readCpu();
  const childBefore = endedChildrenSeconds();
  return new Promise((resolve, reject) => {
    const args = [...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []), join(root, 'dist', 'cli', 'main.js'), 'replay', dir];
    const t0 = performance.now();
    const proc = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url, SOLANA_RPC_URL: '', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const threads = proc.pid === undefined ? null : sampleThreads(proc.pid);
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => {
      const ms = performance.now() - t0;
      const byThread = threads?.stop() ?? [];
      if (code !== 0) reject(new Error(`replay bench: solgate replay exited with ${code}\n${err.slice(-4000)}`));
      else {
        // The CLI's CPU (its threads and the decode workers: the ended child's user + system time) and PostgreSQL's.
        const cpu = { cliS: endedChildrenSeconds() - childBefore, postgresS: cpuSeconds(cpuBefore, readCpu(), { postgres: true }), byThread };
        resolve({ ms, stdout: out.trim(), cpu });
      }
    });
  });
}

export async function run(argv: string[] = []): Promise<ReplayBenchResult> {
  const flags = parseFlags(argv);
  const copies = Math.max(1, Math.floor(numberFlag(flags, 'copies', 100)));
  const batch = Math.max(1, Math.floor(numberFlag(flags, 'batch', 8)));
  const pairs = Math.max(1, Math.floor(numberFlag(flags, 'pairs', 1)));
  const cpuProf = typeof flags['cpu-prof'] === 'string' ? flags['cpu-prof'] : undefined;
  // Which checkout's CLI replays (default this one), and optionally another one's on the same files in the same run
  // (e.g. a `git archive` of the commit before a change, with node_modules linked): a same-run before/after.
  const root = typeof flags.root === 'string' ? resolve(flags.root) : REPO_ROOT;
  const baselineRoot = typeof flags['baseline-root'] === 'string' ? resolve(flags['baseline-root']) : null;
  const log = (s: string) => process.stdout.write(`${s}\n`);
  if (!process.env.DATABASE_URL) throw new Error('replay bench: set DATABASE_URL (the CLI replays into PostgreSQL)');
  await ensureBuild(root);
  if (baselineRoot) await ensureBuild(baselineRoot);

  // 1. Workload: N files named by slot in a temporary directory, and one copy alone in another.
  const original = readFileSync(FIXTURE, 'utf8');
  const dir = mkdtempSync(join(tmpdir(), 'solgate-bench-replay-'));
  const oneDir = mkdtempSync(join(tmpdir(), 'solgate-bench-replay1-'));
  let bytes = 0;
  for (let k = 0; k < copies; k++) {
    const text = copyBlockText(original, k);
    bytes += text.length;
    writeFileSync(join(dir, String(BASE_SLOT + k)), text);
  }
  // The lone copy is one not in the N (another slot and signatures), so its database stays separate in content too.
  writeFileSync(join(oneDir, String(BASE_SLOT + copies)), copyBlockText(original, copies));
  const sample = normalizeRpcBlock((parseJsonLossless(original) as unknown), BASE_SLOT, { skipVotes: true });
  const perBlock = (JSON.parse(original) as { transactions: unknown[] }).transactions.length;
  const nonVote = sample.transactions.filter((t) => !t.isVote).length * copies;
  log(`replay: ${copies} copies of block ${BASE_SLOT} (${perBlock} txs, ${nonVote / copies} non-vote each) → ${fmt(nonVote)} non-vote txs, ${fmt(bytes / 1e6)} MB JSON in ${dir}`);

  const dbs: Awaited<ReturnType<typeof createBenchDb>>[] = [];
  try {
    // 2. The CLI on one copy: the fixed cost of a run (process start, connect, migration check).
    const one = await cliDb(root);
    dbs.push(one);
    const oneRun = await runCli(root, oneDir, one.url as string);
    log(`replay: CLI, one copy: ${fmt(oneRun.ms / 1000)} s`);

    // 3. The CLI on the N copies: the figure.
    const main = await cliDb(root);
    dbs.push(main);
    const full = await runCli(root, dir, main.url as string, cpuProf);
    log(`replay: CLI, ${copies} copies: ${fmt(full.ms / 1000)} s — ${full.stdout}`);
    const rows = await countRows(main.db, TABLES);
    if (rows.transactions !== nonVote) log(`replay: WARNING ${rows.transactions} transaction rows, expected ${nonVote}`);
    const storage = await measureStorage(main.db, nonVote, MAINNET_NON_VOTE_TPS);

    // 4. Again on the same files: a replay of what is there must change nothing.
    const again = await runCli(root, dir, main.url as string);
    const rowsAfterRereplay = await countRows(main.db, TABLES);
    log(`replay: CLI again on the same files (no-op): ${fmt(again.ms / 1000)} s`);
    if (JSON.stringify(rowsAfterRereplay) !== JSON.stringify(rows)) log('replay: WARNING row counts changed on re-replay');

    // 4b. The baseline checkout's CLI on the same files, each run into a database of its own. With --pairs N, 2N runs
    // in A-B-B-A order (run 1 is the figure above): which checkout goes first alternates, so neither gains from its
    // place (the database server's checkpoints, caches and the machine's drift).
    let baseline: ReplayBenchResult['baseline'] = null;
    let alternation: ReplayBenchResult['alternation'] = null;
    if (baselineRoot) {
      const runs: { which: 'this' | 'baseline'; ms: number }[] = [{ which: 'this', ms: full.ms }];
      for (let k = 1; k < 2 * pairs; k++) {
        const which = k % 4 === 0 || k % 4 === 3 ? 'this' : 'baseline';
        const r = which === 'this' ? root : baselineRoot;
        const d = await cliDb(r);
        try {
          const run = await runCli(r, dir, d.url as string);
          runs.push({ which, ms: run.ms });
          log(`replay: ${which === 'this' ? 'this' : `baseline (${baselineRoot})`} CLI, ${copies} copies, run ${k + 1} of ${2 * pairs}: ${fmt(run.ms / 1000)} s`);
          if (which === 'baseline' && baseline === null) {
            const bRows = await countRows(d.db, TABLES);
            if (JSON.stringify(bRows) !== JSON.stringify(rows)) log(`replay: NOTE row counts differ from the baseline's: ${JSON.stringify(bRows)}`);
            baseline = { root: baselineRoot, full: stage(run.ms, nonVote), cpu: run.cpu, rows: bRows };
          }
        } finally {
          await d.drop().catch(() => {});
        }
      }
      if (pairs > 1) alternation = alternationOf(runs);
    }

    // 5. In-process split of the same work, one stage at a time on this thread.
    let split: ReplayBenchResult['split'] = null;
    let statements: ReplayBenchResult['statements'] = [];
    if (!flags['no-split']) {
      const files = readdirSync(dir).sort().map((f) => join(dir, f));
      let readMs = 0;
      let normMs = 0;
      let foldMs = 0;
      let writeMs = 0;
      const inproc = await createBenchDb();
      dbs.push(inproc);
      const timed = timeDb(inproc.db);
      const ingester = createIngester(timed.db);
      for (let i = 0; i < files.length; i += batch) {
        const blocks: Block[] = [];
        for (const f of files.slice(i, i + batch)) {
          let t = performance.now();
          const doc = parseJsonLossless(await readFile(f, 'utf8'));
          readMs += performance.now() - t;
          t = performance.now();
          blocks.push(normalizeRpcBlock(doc, Number(f.slice(f.lastIndexOf('/') + 1)), { skipVotes: true }));
          normMs += performance.now() - t;
        }
        let t = performance.now();
        const parsed = blocks.map((b) => b.transactions.filter((tx) => !tx.isVote).map((tx): ParsedTx => ({ tx, events: parseTransaction(tx) })));
        new Set(parsed.flat().flatMap(tokenAccountsNeeded));
        mergeUpdates(blocks.map((b, k) => foldBlock(b, parsed[k], emptyContext())));
        const foldBatch = performance.now() - t;
        foldMs += foldBatch;
        t = performance.now();
        await ingester.ingestBlocks(blocks);
        // The write: ingestBlocks parses and folds again before it (measured just above) and looks up what the
        // blocks do not tell (token accounts); the rest is the SQL write transaction.
        writeMs += Math.max(0, performance.now() - t - foldBatch);
      }
      await ingester.settle();
      statements = [...timed.statements].map(([label, s]) => ({ label, calls: s.calls, ms: Math.round(s.ms) })).sort((a, b) => b.ms - a.ms);
      split = {
        readJson: stage(readMs, nonVote),
        normalize: stage(normMs, nonVote),
        parseFold: stage(foldMs, nonVote),
        sqlWrite: stage(writeMs, nonVote),
        inProcessTotal: stage(readMs + normMs + foldMs + writeMs, nonVote),
      };
    }

    const result: ReplayBenchResult = {
      config: { copies, batch },
      database: main.description,
      workload: { blocks: copies, transactions: perBlock * copies, nonVoteTransactions: nonVote, jsonMB: Number((bytes / 1e6).toFixed(1)) },
      baseline,
      alternation,
      cli: { root, full: stage(full.ms, nonVote), fullCpu: full.cpu, oneCopy: { ms: Math.round(oneRun.ms) }, rereplay: { ms: Math.round(again.ms) }, fullMinusStart: stage(Math.max(1, full.ms - oneRun.ms), nonVote - nonVote / copies) },
      split,
      statements,
      rows,
      storage,
      rowsAfterRereplay,
      node: process.version,
      timestamp: new Date().toISOString(),
    };
    printReport(result);
    log(`\nreplay: result written to ${writeResult('replay', result)}`);
    return result;
  } finally {
    for (const d of dbs) await d.drop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    rmSync(oneDir, { recursive: true, force: true });
  }
}

function printReport(r: ReplayBenchResult): void {
  const log = (s = '') => process.stdout.write(`${s}\n`);
  const row = (name: string, s: Stage, share?: number): (string | number)[] => [
    name, `${fmt(s.ms / 1000)} s`, s.nonVoteTxPerSec, `${s.xMainnet.toFixed(2)}×`, share === undefined ? '' : `${((100 * s.ms) / share).toFixed(1)}%`,
  ];
  log(`\n=== replay: ${r.config.copies} copies of mainnet block ${BASE_SLOT} → ${fmt(r.workload.nonVoteTransactions)} non-vote txs (${fmt(r.workload.transactions)} in all), ${fmt(r.workload.jsonMB)} MB JSON`);
  log(`    database: ${r.database}; node ${r.node}`);
  log(`    mainnet ≈ ${fmt(MAINNET_NON_VOTE_TPS)} non-vote tx/s; goal 10× = ${fmt(10 * MAINNET_NON_VOTE_TPS)}, floor 5× = ${fmt(5 * MAINNET_NON_VOTE_TPS)}\n`);
  const rows: (string | number)[][] = [
    row('solgate replay (CLI, process start included)', r.cli.full),
    row('  minus the one-copy run (start + 1 block)', r.cli.fullMinusStart),
    ...(r.baseline ? [row(`baseline checkout's CLI (${r.baseline.root})`, r.baseline.full)] : []),
    ['baseline: CLI on one copy', `${fmt(r.cli.oneCopy.ms / 1000)} s`, '', '', ''],
    ['baseline: CLI again on the N copies (no-op)', `${fmt(r.cli.rereplay.ms / 1000)} s`, '', '', ''],
  ];
  if (r.split) {
    const tot = r.split.inProcessTotal.ms;
    rows.push(
      row(`in-process split, one thread, batch ${r.config.batch}`, r.split.inProcessTotal, tot),
      row('  read + JSON.parse', r.split.readJson, tot),
      row('  normalizeRpcBlock', r.split.normalize, tot),
      row('  parse + fold (no DB)', r.split.parseFold, tot),
      row('  SQL write (ingestBlocks − its parse/fold)', r.split.sqlWrite, tot),
    );
  }
  log(table(['stage', 'time', 'non-vote tx/s', '× mainnet', 'share'], rows));
  const alt = r.alternation;
  if (alt) {
    const secs = (ms: number[]) => ms.map((m) => fmt(m / 1000)).join(' / ');
    log(`\nA-B-B-A (${alt.order}, A = this checkout): this ${secs(alt.thisMs)} s, baseline ${secs(alt.baselineMs)} s; time of this over the baseline per pair ${alt.pairRatios.join(', ')}, mean ${alt.meanRatio}`);
  }
  const cpu = (c: CliCpu) => `CLI ${fmt(c.cliS)} s, PostgreSQL ${fmt(c.postgresS)} s (${Math.round((1000 * (c.cliS + c.postgresS)) / r.config.copies)} ms per block)`;
  log(`\nCPU of the CLI run (user + system): ${cpu(r.cli.fullCpu)}${r.baseline ? `; baseline's ${cpu(r.baseline.cpu)}` : ''}`);
  const threads = (c: CliCpu) => c.byThread.filter(([, sec]) => sec >= 0.05).map(([name, sec]) => `${name} ${fmt(sec)} s`).join(', ');
  if (r.cli.fullCpu.byThread.length) log(`  by thread (sampled every 50 ms; MainThread ingests, replay-decode reads and decodes files, V8Worker is V8's collector and compiler helpers): ${threads(r.cli.fullCpu)}${r.baseline?.cpu.byThread.length ? `; baseline's ${threads(r.baseline.cpu)}` : ''}`);
  if (r.statements.length) {
    log('\nSQL statements of the in-process split:');
    log(table(['statement', 'calls', 'total ms', 'ms/call'], r.statements.map((s) => [s.label, s.calls, s.ms, s.ms / s.calls])));
  }
  const st = r.storage;
  log(`\nStorage after the CLI run (bytes on disk, partitions summed; per non-vote tx; "state" tables hold one row per account and do not grow with time — copies of one block touch the same accounts, so their figure is no projection):`);
  log(table(['relation', 'kind', 'MB', 'bytes/tx', ''], storageRows(st)));
  log(`history tables: ${fmt(st.historyBytesPerTx)} bytes per non-vote tx → at ${fmt(st.projection.txPerSec)} non-vote tx/s ${fmt(st.projection.gbPerDay)} GB/day, ${fmt(st.projection.gbPer30Days)} GB per 30 days, ${fmt(st.projection.gbPer90Days)} GB per 90 days (state tables here: ${fmt(st.stateBytes / 1e6)} MB)`);
  log('\nRows per table after the CLI run:');
  log(table(['table', 'rows'], Object.entries(r.rows).map(([t, n]) => [t, n])));
}
