/**
 * History reads on real mainnet blocks: N copies of the recorded block 254170887 (as bench/replay makes them)
 * replayed by the built CLI into a throwaway PostgreSQL database, then the reads behind the wallet history
 * (`queryHistory`) and the signature lists of getSignaturesForAddress / getTransactionsForAddress
 * (`addressTransactionsPage`) timed against it: the address with the most links (a program's account, 273 per block),
 * an address with one link per block, and the address with the most SWAP transactions under the type filter. A
 * measurement: it never asserts on speed.
 *
 * With --baseline-root DIR, another checkout replays the same files into a database of its own and its build's reads
 * are timed against it, the two alternating round by round; each read's time is reported with the ratio. Each read
 * runs --reads times (after a tenth as many untimed) per round, one connection, queries as the gateway sends them.
 *
 *   npm run bench -- history [--copies 100] [--reads 200] [--rounds 3] [--root DIR] [--baseline-root DIR]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Queryable } from '../src/store/db.js';
import type * as ChainReads from '../src/store/chain-reads.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { cliDb, ensureBuild } from './lib/checkout.js';
import type { BenchDb } from './lib/db.js';
import { fmt, REPO_ROOT, table, writeResult } from './lib/report.js';
import { copyBlockText } from './replay.js';

export const description = 'wallet history and signature pages over replayed mainnet blocks (the address index reads); ms per read';
export const onlyWhenNamed = true;

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'photon-blocks', 'index_block_metadata', '254170887');
const BASE_SLOT = 254170887;

interface Checkout {
  which: 'this' | 'baseline';
  bench: BenchDb;
  cases: [string, () => Promise<unknown>][];
}

export interface HistoryBenchResult {
  config: { copies: number; reads: number; rounds: number };
  addresses: { busiest: string; oneALink: string; swaps: string };
  /** ms per read, per round, by checkout. */
  reads: { name: string; thisMs: number[]; baselineMs: number[] | null }[];
  node: string;
  timestamp: string;
}

function replay(root: string, dir: string, url: string): Promise<void> {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, [join(root, 'dist', 'cli', 'main.js'), 'replay', dir], {
      cwd: root, env: { ...process.env, DATABASE_URL: url, SOLANA_RPC_URL: '', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'],
    });
    p.on('error', rej);
    p.on('exit', (c) => (c === 0 ? res() : rej(new Error(`history bench: solgate replay in ${root} exited with ${c}`))));
  });
}

/** The addresses the reads ask for, picked through the link view both schemas have (`address_transactions`). */
async function pickAddresses(q: Queryable): Promise<HistoryBenchResult['addresses']> {
  const one = async (sql: string) => (await q.query<{ address: string }>(sql)).rows[0].address;
  return {
    busiest: await one('SELECT address FROM address_transactions GROUP BY address ORDER BY count(*) DESC, address LIMIT 1'),
    oneALink: await one(`SELECT address FROM address_transactions GROUP BY address
                          HAVING count(*) = count(DISTINCT slot) AND count(*) = (SELECT count(*) FROM blocks) ORDER BY address LIMIT 1`),
    swaps: await one(`SELECT a.address FROM address_transactions a JOIN transactions t ON t.slot = a.slot AND t.tx_index = a.tx_index
                       WHERE t.enhanced_type = 'SWAP' GROUP BY a.address ORDER BY count(*) DESC, a.address LIMIT 1`),
  };
}

function cases(r: typeof ChainReads, q: Queryable, a: HistoryBenchResult['addresses'], midSlot: number): [string, () => Promise<unknown>][] {
  const history = (address: string, over: Partial<ChainReads.HistoryQuery> = {}) => () =>
    r.queryHistory(q, { address, maxRelation: 3, limit: 100, from: null, ascending: false, maxSlot: Number.MAX_SAFE_INTEGER, ...over });
  const page = (over: Partial<ChainReads.AddressTxQuery>) => () =>
    r.addressTransactionsPage(q, { address: a.busiest, desc: true, limit: 1000, status: 'any', relations: [1], ...over });
  return [
    ['wallet history, busiest address, first 100', history(a.busiest)],
    ['wallet history, busiest address, 100 from mid-way', history(a.busiest, { from: { slot: midSlot, txIndex: 300, signature: '' } })],
    ['wallet history, one link per block, 100', history(a.oneALink)],
    ['wallet history, type SWAP, 100', history(a.swaps, { type: 'SWAP' })],
    ['signatures, busiest address, relation 1, 1,000', page({})],
    ['signatures, busiest address, succeeded, 100', page({ limit: 100, status: 'succeeded' })],
  ];
}

async function timeRead(fn: () => Promise<unknown>, n: number): Promise<number> {
  for (let i = 0; i < Math.max(1, Math.round(n / 10)); i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return (performance.now() - t0) / n;
}

export async function run(argv: string[] = []): Promise<HistoryBenchResult> {
  const flags = parseFlags(argv);
  const copies = Math.max(2, Math.floor(numberFlag(flags, 'copies', 100)));
  const reads = Math.max(1, Math.floor(numberFlag(flags, 'reads', 200)));
  const rounds = Math.max(1, Math.floor(numberFlag(flags, 'rounds', 3)));
  const root = typeof flags.root === 'string' ? resolve(flags.root) : REPO_ROOT;
  const baselineRoot = typeof flags['baseline-root'] === 'string' ? resolve(flags['baseline-root']) : null;
  const log = (s: string) => process.stdout.write(`${s}\n`);
  if (!process.env.DATABASE_URL) throw new Error('history bench: set DATABASE_URL (the CLI replays into PostgreSQL)');

  const original = readFileSync(FIXTURE, 'utf8');
  const dir = mkdtempSync(join(tmpdir(), 'solgate-bench-history-'));
  for (let k = 0; k < copies; k++) writeFileSync(join(dir, String(BASE_SLOT + k)), copyBlockText(original, k));
  log(`history: ${copies} copies of block ${BASE_SLOT} in ${dir}`);

  const checkouts: Checkout[] = [];
  try {
    let addresses: HistoryBenchResult['addresses'] | null = null;
    for (const [which, r] of [['this', root], ...(baselineRoot ? [['baseline', baselineRoot]] : [])] as ['this' | 'baseline', string][]) {
      await ensureBuild(r);
      const c: Checkout = { which, bench: await cliDb(r), cases: [] };
      checkouts.push(c); // dropped in `finally` from here on
      await replay(r, dir, c.bench.url as string);
      await c.bench.db.query('ANALYZE');
      const mod = (await import(pathToFileURL(join(r, 'dist', 'store', 'chain-reads.js')).href)) as typeof ChainReads;
      addresses ??= await pickAddresses(c.bench.db);
      c.cases = cases(mod, c.bench.db, addresses, BASE_SLOT + Math.floor(copies / 2));
      log(`history: ${which} (${r}) replayed`);
    }
    const a = addresses as HistoryBenchResult['addresses'];
    log(`history: busiest ${a.busiest}, one link per block ${a.oneALink}, SWAP ${a.swaps}`);

    const names = checkouts[0].cases.map(([n]) => n);
    const ms = new Map(checkouts.map((c) => [c.which, names.map(() => [] as number[])]));
    for (let round = 0; round < rounds; round++) {
      // Alternating which checkout goes first.
      const order = round % 2 === 0 ? checkouts : [...checkouts].reverse();
      for (const c of order) for (let i = 0; i < c.cases.length; i++) ms.get(c.which)![i].push(await timeRead(c.cases[i][1], reads));
    }
    const range = (xs: number[]) => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const rows = names.map((n, i) => {
      const t = ms.get('this')![i];
      const b = ms.get('baseline')?.[i];
      return b ? [n, range(t), range(b), `${(mean(t) / mean(b)).toFixed(2)}×`] : [n, range(t)];
    });
    log(`\n=== history reads: ms per read over ${copies} replayed copies (${rounds} rounds of ${reads})\n`);
    log(table(baselineRoot ? ['read', 'this', 'baseline', 'this ÷ baseline'] : ['read', 'this'], rows));
    const result: HistoryBenchResult = {
      config: { copies, reads, rounds },
      addresses: a,
      reads: names.map((name, i) => ({ name, thisMs: ms.get('this')![i], baselineMs: ms.get('baseline')?.[i] ?? null })),
      node: process.version,
      timestamp: new Date().toISOString(),
    };
    log(`\nhistory: result written to ${writeResult('history', result)}`);
    return result;
  } finally {
    for (const c of checkouts) await c.bench.drop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
