/**
 * `npm run bench -- outbox [--events 20000] [--rounds 2] [--root DIR] [--baseline-root DIR]` (only when named): the
 * webhook outbox's database work per delivered event, without HTTP — what PostgreSQL spends on the delivery side of
 * `bench/webhooks` (claims with their due events and payloads, recorded outcomes), measured alone so that a change of
 * the outbox's schema or statements can be compared on a noisy machine.
 *
 * Per run: a throwaway database migrated by the checkout's own CLI; 20 webhooks (raw and enhanced alternately); the
 * outbox filled through the checkout's `outboxStatements` in transactions of 200 transactions' payloads (the JSON of
 * the recorded mainnet block's 444 non-vote transactions, 7.6 KB on average) and two events per payload;
 * `VACUUM ANALYZE`; then one loop drains it through the checkout's `claimWebhook` (100 due events with the lease)
 * and `recordAttempts` (all delivered, lease given up). Reported: PostgreSQL's CPU
 * (every postgres process of the machine, `/proc`) per delivered event and the drain's wall time, and the fill's
 * PostgreSQL CPU per event; and the write-ahead log each phase wrote per event (from a CHECKPOINT, so that its
 * full-page images are the same in every run): a count of the work itself, which moves with the schema and the
 * statements but not with the machine's load. With `--baseline-root`, the two checkouts run alternately (A-B-B-A…) and each round's
 * ratio (this over the baseline, runs made next to each other) is printed with their mean, then the ratios of the
 * runs' means (per run figures above them).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { numberFlag, parseFlags } from './lib/args.js';
import { cliDb, ensureBuild } from './lib/checkout.js';
import { cpuSeconds, readCpu } from './lib/proc-cpu.js';
import { alternationOf, type Alternation } from './lib/alternation.js';
import { fmt, REPO_ROOT, table, writeResult } from './lib/report.js';
import type * as WebhookEvents from '../src/store/webhook-events.js';
import type * as Keys from '../src/store/keys.js';
import type * as Webhooks from '../src/store/webhooks.js';
import type { Matches } from '../src/core/webhook-types.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'photon-blocks', 'index_block_metadata', '254170887');

export const description = 'webhook outbox: PostgreSQL CPU per delivered event (claim + record, no HTTP), against a baseline checkout';
export const onlyWhenNamed = true;

interface OutboxRun {
  which: 'this' | 'baseline';
  events: number;
  fillPgUsPerEvent: number;
  drainPgUsPerEvent: number;
  drainMs: number;
  /** Write-ahead log bytes per queued / per delivered event: the work itself, steady where CPU figures are not. */
  fillWalPerEvent: number;
  drainWalPerEvent: number;
}

/** The server's WAL position after a checkpoint (the full-page images that follow it are then the same each run). */
async function walMark(db: { query: (sql: string) => Promise<{ rows: unknown[] }> }): Promise<string> {
  await db.query('CHECKPOINT');
  return ((await db.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0] as { lsn: string }).lsn;
}

async function walSince(db: { query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }> }, lsn: string): Promise<number> {
  return Number(((await db.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8 AS n', [lsn])).rows[0] as { n: number }).n);
}

/**
 * Payload bodies with the size and make-up of real ones (what PostgreSQL compresses and reads back): the JSON text of
 * the recorded mainnet block's non-vote transactions (wire transaction, meta with logs, balances and inner
 * instructions), each stamped with its copy's signature.
 */
function bodies(): (signature: string) => string {
  const block = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { transactions: { meta: { logMessages?: string[] } }[] };
  const txs = block.transactions.filter((t) => !(t.meta.logMessages ?? []).some((l) => l.startsWith('Program Vote111111111111111111111111111111111111111')));
  let i = 0;
  return (signature) => JSON.stringify({ signature, ...txs[i++ % txs.length] });
}

async function once(which: OutboxRun['which'], root: string, events: number): Promise<OutboxRun> {
  const mod = async <T>(path: string) => (await import(pathToFileURL(join(root, 'dist', path)).href)) as T;
  const ev = await mod<typeof WebhookEvents>('store/webhook-events.js');
  const keys = await mod<typeof Keys>('store/keys.js');
  const hooks = await mod<typeof Webhooks>('store/webhooks.js');
  const bench = await cliDb(root);
  try {
    const db = bench.db;
    const { record } = await keys.createApiKey(db, { name: 'bench-outbox', plan: 'developer' });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const raw = i % 2 === 0;
      const r = await hooks.createWebhook(db, record.id, {
        url: `http://127.0.0.1:9/hook-${i}`, webhookType: raw ? 'raw' : 'enhanced', transactionTypes: raw ? [] : ['ANY'],
        accountAddresses: [`Wallet${i}`], txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
      }, 100);
      if (!r.ok) throw new Error('outbox bench: webhook not created');
      ids.push(r.webhook.id);
    }
    const body = bodies();
    const wal0 = await walMark(db);
    const cpu0 = readCpu();
    let n = 0;
    let position = 1_000_000;
    while (n < events) {
      const m: Matches = { payloads: [], events: [] };
      for (let k = 0; k < 200 && n < events; k++) {
        const signature = randomBytes(48).toString('base64').replace(/[+/=]/g, 'x');
        m.payloads.push({ signature, slot: 1, raw: body(signature), enhanced: body(signature) });
        for (let j = 0; j < 2 && n < events; j++, n++) m.events.push({ webhookId: ids[(n * 7 + j) % ids.length], signature, slot: 1, position: position++ });
      }
      await db.tx(async (q) => {
        for (const s of ev.outboxStatements(m)) await q.query(s.sql, s.params);
      });
    }
    const fillPg = cpuSeconds(cpu0, readCpu(), { postgres: true });
    const fillWal = await walSince(db, wal0);
    await db.query('VACUUM ANALYZE');

    const wal1 = await walMark(db);
    const cpu1 = readCpu();
    const t0 = performance.now();
    let delivered = 0;
    for (;;) {
      const c = await ev.claimWebhook(db, 'bench-outbox', 60_000, 100);
      if (!c) break;
      await ev.recordAttempts(db, {
        webhookId: c.id, owner: 'bench-outbox', leaseMs: 60_000, windowMs: 86_400_000, release: true,
        attempts: c.due.map((d) => ({ eventId: d.id, ok: true, status: 200, latencyMs: 1, error: null, retryInMs: 0 })),
      });
      delivered += c.due.length;
    }
    const drainMs = performance.now() - t0;
    const drainPg = cpuSeconds(cpu1, readCpu(), { postgres: true });
    const drainWal = await walSince(db, wal1);
    if (delivered !== events) throw new Error(`outbox bench: ${which}: ${delivered} of ${events} events delivered`);
    return {
      which, events,
      fillPgUsPerEvent: Number(((fillPg * 1e6) / events).toFixed(1)),
      drainPgUsPerEvent: Number(((drainPg * 1e6) / events).toFixed(1)),
      drainMs: Math.round(drainMs),
      fillWalPerEvent: Math.round(fillWal / events),
      drainWalPerEvent: Math.round(drainWal / events),
    };
  } finally {
    await bench.drop().catch(() => {});
  }
}

export async function run(argv: string[] = []): Promise<OutboxRun[]> {
  const flags = parseFlags(argv);
  const events = Math.max(100, Math.floor(numberFlag(flags, 'events', 20_000)));
  const rounds = Math.max(1, Math.floor(numberFlag(flags, 'rounds', 2)));
  const root = typeof flags.root === 'string' ? resolve(flags.root) : REPO_ROOT;
  const baselineRoot = typeof flags['baseline-root'] === 'string' ? resolve(flags['baseline-root']) : null;
  const log = (s: string) => process.stdout.write(`${s}\n`);
  if (!process.env.DATABASE_URL) throw new Error('outbox bench: set DATABASE_URL (PostgreSQL: its processes\' CPU is the figure)');
  for (const r of [root, ...(baselineRoot ? [baselineRoot] : [])]) await ensureBuild(r);

  const runs: OutboxRun[] = [];
  for (let round = 0; round < rounds; round++) {
    // A-B, then B-A: neither checkout gains from its place in the run.
    const pair: [OutboxRun['which'], string][] = baselineRoot ? [['this', root], ['baseline', baselineRoot]] : [['this', root]];
    for (const [which, r] of round % 2 === 0 ? pair : [...pair].reverse()) {
      const x = await once(which, r, events);
      log(`outbox: ${which}: PostgreSQL ${fmt(x.drainPgUsPerEvent)} µs and ${fmt(x.drainWalPerEvent)} WAL bytes per delivered event, drain ${fmt(x.drainMs)} ms; fill ${fmt(x.fillPgUsPerEvent)} µs and ${fmt(x.fillWalPerEvent)} WAL bytes per event`);
      runs.push(x);
    }
  }
  const of = (w: OutboxRun['which']) => runs.filter((x) => x.which === w);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const rows = (['this', 'baseline'] as const).filter((w) => of(w).length).map((w) => [
    w, of(w).map((x) => fmt(x.drainPgUsPerEvent)).join(' / '), of(w).map((x) => fmt(x.drainWalPerEvent)).join(' / '), of(w).map((x) => fmt(x.drainMs)).join(' / '),
    of(w).map((x) => fmt(x.fillPgUsPerEvent)).join(' / '), of(w).map((x) => fmt(x.fillWalPerEvent)).join(' / '),
  ]);
  log(`\n=== webhook outbox, ${fmt(events)} events: PostgreSQL's CPU per delivered event (claim + record), drain time, fill CPU per event\n`);
  log(table(['checkout', 'PostgreSQL µs / delivered event', 'WAL bytes / delivered event', 'drain ms', 'fill µs / event', 'fill WAL bytes / event'], rows));
  let pairs: Record<'deliveredPg' | 'deliveredWal' | 'drain' | 'fillPg' | 'fillWal', Alternation> | null = null;
  if (baselineRoot) {
    // Each round is one pair (A-B or B-A): its ratio compares runs made next to each other.
    const by = (k: keyof Omit<OutboxRun, 'which' | 'events'>) => alternationOf(runs.map((x) => ({ which: x.which, ms: x[k] })));
    pairs = {
      deliveredPg: by('drainPgUsPerEvent'), deliveredWal: by('drainWalPerEvent'), drain: by('drainMs'), fillPg: by('fillPgUsPerEvent'), fillWal: by('fillWalPerEvent'),
    };
    const line = (name: string, a: Alternation) => `${name} ${a.pairRatios.map((x) => x.toFixed(3)).join(', ')} (mean ${a.meanRatio.toFixed(3)})`;
    log(`\nthis ÷ baseline per pair: ${line('PostgreSQL per delivered event', pairs.deliveredPg)}; ${line('WAL per delivered event', pairs.deliveredWal)}; ${line('drain time', pairs.drain)}; ${line('fill', pairs.fillPg)}; ${line('fill WAL', pairs.fillWal)}`);
    log(`this ÷ baseline (means of the runs): PostgreSQL per delivered event ${(mean(of('this').map((x) => x.drainPgUsPerEvent)) / mean(of('baseline').map((x) => x.drainPgUsPerEvent))).toFixed(3)}×, drain time ${(mean(of('this').map((x) => x.drainMs)) / mean(of('baseline').map((x) => x.drainMs))).toFixed(3)}×, fill ${(mean(of('this').map((x) => x.fillPgUsPerEvent)) / mean(of('baseline').map((x) => x.fillPgUsPerEvent))).toFixed(3)}×`);
  }
  log(`\noutbox: result written to ${writeResult('outbox', { events, rounds, runs, pairs, node: process.version, timestamp: new Date().toISOString() })}`);
  return runs;
}
