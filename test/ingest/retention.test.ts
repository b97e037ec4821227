/**
 * Partitions and retention under live ingestion (issue #22): the localnet produces slots with the demo workload
 * running while the poller ingests them and the retention job (10-slot partitions, 40 slots of history kept, a round
 * every 50 ms) creates partitions ahead and drops old ones. Checked: ingestion never fails and never stalls, it
 * reaches the chain's tip; partitions were dropped; no history row older than the slot retention reports is left;
 * every row from that slot on equals what an index of the same chain without retention holds; the wallet history
 * says it is partial (`basis=retention`) and funded-by still answers. Runs on PGlite, and on PostgreSQL with
 * DATABASE_URL (there ingestion, reads and the job's DETACH/DROP run on separate connections, under lock timeouts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { registry } from '../../src/core/metrics.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createRetentionJob, type RetentionRound } from '../../src/ingest/retention.js';
import { createCoverageService } from '../../src/ingest/hydrate.js';
import { createLocalnet, startDemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { createRpcPoller, fetchAccounts } from '../../src/sources/rpc-poller.js';
import { getCheckpoint } from '../../src/store/chain.js';
import type { Db } from '../../src/store/db.js';
import { family, listPartitions, retainedFrom } from '../../src/store/partitions.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HISTORY = ['transactions', 'address_transactions', 'wallet_transfers'];
const KEEP = 40;
const WIDTH = 10;

let net: Localnet;
let ta: TestApp;
let reference: TestDb;
let wallets: string[] = [];
let tip = 0;
const rounds: RetentionRound[] = [];
let longestStallMs = 0;
let runError: unknown = null;

/** Follows the localnet from slot 0 into `db` until `until()` is true and the index has reached the chain's tip. */
async function follow(db: Db, until: () => boolean, onTick?: () => Promise<void>): Promise<void> {
  const ingester = createIngester(db, logger, { fetchAccounts: (keys) => fetchAccounts(net.url, keys, { commitment: 'confirmed' }) });
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', pollIntervalMs: 20, logger });
  const ctl = new AbortController();
  const run = ingester.run(poller, { startSlot: 0, signal: ctl.signal }).catch((e: unknown) => void (runError = e));
  let last = -1;
  let lastMoved = Date.now();
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline && runError === null) {
    await onTick?.();
    const cp = (await getCheckpoint(db)) ?? -1;
    if (cp > last) {
      longestStallMs = Math.max(longestStallMs, Date.now() - lastMoved);
      last = cp;
      lastMoved = Date.now();
    }
    if (until() && cp >= net.chain.slot) break;
    await sleep(25);
  }
  ctl.abort();
  await run;
  await poller.close();
}

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0 });
  const demo = await startDemoWorkload(net.chain, { intervalMs: 5, wallets: 4, failureRate: 0.05, light: false });
  wallets = demo.wallets.map(String);
  ta = await createTestApp((db) => ({ ensureCovered: createCoverageService({ db, client: null, commitment: 'confirmed' }).ensureCovered }));
  const job = createRetentionJob({ db: ta.t.db, logger, intervalMs: 50, partitionSlots: WIDTH, historySlots: KEEP, webhookAttemptDays: 0, usageDays: 0 });
  // The job's own loop runs beside ingestion; its rounds are also run here, to see what each did.
  job.start();
  let produced = 0;
  let nextRound = 0;
  await follow(ta.t.db, () => produced >= 240, async () => {
    if (produced < 240) {
      net.chain.produceSlot();
      produced++;
    }
    if (Date.now() >= nextRound) {
      rounds.push(await job.runOnce());
      nextRound = Date.now() + 200;
    }
  });
  if (runError) throw runError;
  await demo.stop();
  net.chain.produceSlot();
  net.chain.produceSlot();
  await follow(ta.t.db, () => true);
  // The loop stopped, one last round at the tip (again if a lock was not granted in time).
  await job.stop();
  for (let i = 0; i < 10; i++) {
    const last = await job.runOnce();
    rounds.push(last);
    if (!last.lockTimeouts.length) break;
  }
  tip = (await getCheckpoint(ta.t.db))!;
  // The same chain indexed without retention: what every kept row must equal.
  reference = await createTestDb();
  await follow(reference.db, () => true);
}, 300_000);

afterAll(async () => {
  await ta?.close();
  await reference?.drop();
  await net?.close();
});

const digest = async (db: Db, table: string, from: number) =>
  (await db.query<{ n: number; h: string }>(
    `SELECT count(*)::int AS n, md5(COALESCE(string_agg(r, '|' ORDER BY r), '')) AS h FROM (SELECT (x.*)::text AS r FROM ${table} x WHERE slot >= $1) s`,
    [from],
  )).rows[0];

describe('retention under live ingestion', () => {
  it('never failed nor stalled ingestion, which reached the tip', async () => {
    expect(runError).toBeNull();
    expect(longestStallMs).toBeLessThan(10_000);
    expect(tip).toBeGreaterThanOrEqual(240);
    expect((await getCheckpoint(reference.db))).toBe(tip);
  });

  it('created partitions ahead and dropped the old ones', async () => {
    // The job's own loop and the rounds run here both count in /metrics (this file runs one job).
    const metric = async (name: string) => (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.family === 'history')?.value ?? 0;
    const dropped = await metric('solgate_partitions_dropped_total');
    expect(dropped).toBeGreaterThan(5);
    expect(dropped).toBeGreaterThanOrEqual(rounds.reduce((n, r) => n + (r.dropped.history ?? 0), 0));
    expect(await metric('solgate_partitions_created_total')).toBeGreaterThan(dropped);
    const parts = await listPartitions(ta.t.db, family('history'));
    const top = Math.max(...parts.filter((p) => !p.isDefault).map((p) => p.hi!));
    expect(top).toBeGreaterThan(tip);
    expect(parts.some((p) => p.name === 'transactions_p_old')).toBe(false);
  });

  it('keeps no history row older than the slot retention reports, and every row from it on', async () => {
    const from = (await retainedFrom(ta.t.db, 'history'))!;
    expect(from).toBeGreaterThanOrEqual(tip - KEEP - 2 * WIDTH);
    expect(from).toBeLessThanOrEqual(tip - KEEP);
    for (const table of HISTORY) {
      const { rows } = await ta.t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE slot < $1`, [from]);
      expect(rows[0].n, table).toBe(0);
      const { rows: ref } = await reference.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE slot < $1`, [from]);
      expect(ref[0].n, `${table}: the reference index has rows before ${from}`).toBeGreaterThan(0);
      const kept = await digest(ta.t.db, table, from);
      expect(kept.n, table).toBeGreaterThan(0);
      expect(kept, table).toEqual(await digest(reference.db, table, from));
    }
  });

  it('answers history as partial from that slot, and funded-by from the funding rows it keeps', async () => {
    const from = (await retainedFrom(ta.t.db, 'history'))!;
    const wallet = wallets[0];
    const r = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${wallet}/history?limit=100`, headers: { 'x-api-key': ta.key } });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['x-solgate-coverage']).toBe(`partial; basis=retention; slot=${from}`);
    const slots = (r.json().data as { slot: number }[]).map((x) => x.slot);
    expect(slots.length).toBeGreaterThan(0);
    expect(Math.min(...slots)).toBeGreaterThanOrEqual(from);
    // A wallet funded in the dropped range: its first funding is still answered.
    const { rows: [funded] } = await ta.t.db.query<{ wallet: string; slot: number }>('SELECT wallet, slot FROM wallet_funding WHERE slot < $1 ORDER BY slot LIMIT 1', [from]);
    expect(funded).toBeDefined();
    const f = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${funded.wallet}/funded-by`, headers: { 'x-api-key': ta.key } });
    expect(f.statusCode, f.body).toBe(200);
    expect(f.json().slot).toBe(funded.slot);
  });
});
