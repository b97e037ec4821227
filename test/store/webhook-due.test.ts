/**
 * Migration 047 (the outbox's due events in `webhook_due`, kept by triggers on `webhook_events`): after every kind of
 * statement that moves an event — the ingester's insert (a block written twice included), a worker's recording
 * (delivered, retried, failed for good), a replay, a webhook switched on again, retention, a webhook deleted, a
 * truncation — the due table holds exactly the pending events with their due times, and the workers' reads find
 * what is due. A database with pending events migrated by 047 keeps them due. A recorded delivery updates its event
 * in place (no new index entries). Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { claimWebhook, dueEvents, outboxStatements, pruneDeliveries, recordAttempt, recordAttempts, releaseLease, restartPending } from '../../src/store/webhook-events.js';
import { replayEvents } from '../../src/store/webhook-deliveries.js';
import { createApiKey } from '../../src/store/keys.js';
import { createWebhook, deleteWebhook } from '../../src/store/webhooks.js';
import type { Matches } from '../../src/core/webhook-types.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let keyId: string;
const hooks: string[] = [];
const DAY = 86_400_000;

async function hook(n: number): Promise<string> {
  const created = await createWebhook(t.db, keyId, {
    url: `http://127.0.0.1:9/due-${n}`, webhookType: 'raw', transactionTypes: ['ANY'], accountAddresses: ['11111111111111111111111111111111'],
    txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
  }, 1000);
  if (!created.ok) throw new Error('webhook not created');
  return created.webhook.id;
}

/** Events of `slot` for each webhook, as the ingester writes them. */
function block(slot: number, txs: number, webhooks: string[]): Matches {
  const m: Matches = { payloads: [], events: [] };
  for (let i = 0; i < txs; i++) {
    const signature = `sig-${slot}-${i}`;
    m.payloads.push({ signature, slot, raw: `{"slot":${slot},"i":${i}}`, enhanced: null });
    for (const w of webhooks) m.events.push({ webhookId: w, signature, slot, position: slot * 1_000_000 + i });
  }
  return m;
}

async function ingest(m: Matches): Promise<void> {
  await t.db.tx(async (q) => {
    for (const s of outboxStatements(m)) await q.query(s.sql, s.params);
  });
}

/** The pending events and the due table, as comparable lists. */
async function pendingAndDue(): Promise<{ pending: string[]; due: string[] }> {
  const rows = async (sql: string) => (await t.db.query<{ k: string }>(sql)).rows.map((r) => r.k);
  return {
    pending: await rows(`SELECT concat_ws(' ', webhook_id, next_attempt_at, position, id) AS k FROM webhook_events WHERE state = 'pending' ORDER BY 1`),
    due: await rows(`SELECT concat_ws(' ', webhook_id, next_attempt_at, position, event_id) AS k FROM webhook_due ORDER BY 1`),
  };
}

async function expectInStep(pendingCount: number): Promise<void> {
  const { pending, due } = await pendingAndDue();
  expect(due).toEqual(pending);
  expect(pending).toHaveLength(pendingCount);
}

beforeAll(async () => {
  // A database as 046 left it, with pending, delivered and failed events.
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 46) });
  keyId = (await createApiKey(t.db, { name: 'due' })).record.id;
  for (let i = 0; i < 3; i++) hooks.push(await hook(i));
  await ingest(block(10, 4, hooks));
  await t.db.query(`UPDATE webhook_events SET state = 'delivered', attempts = 1, delivered_at = now() WHERE slot = 10 AND position % 2 = 0`);
  await t.db.query(`UPDATE webhook_events SET state = 'failed', attempts = 3 WHERE webhook_id = $1 AND position = 10000001`, [hooks[0]]);
}, 120_000);

afterAll(async () => t?.drop());

describe('migration 047 (due events in webhook_due)', () => {
  it('keeps the pending events of an older database due, and only those', async () => {
    expect(await migrate(t.db)).toEqual(['047_webhook_due.sql']);
    await expectInStep(5);
    const got = await claimWebhook(t.db, 'w', 60_000, 10);
    expect(got).not.toBeNull();
    expect(got!.due.map((e) => e.signature)).toEqual(got!.id === hooks[0] ? ['sig-10-3'] : ['sig-10-1', 'sig-10-3']);
    await releaseLease(t.db, got!.id, 'w');
  });

  it('stays in step with every statement that moves an event', async () => {
    // The ingester, and the same block written again (nothing queued twice).
    await ingest(block(11, 5, hooks));
    await ingest(block(11, 5, hooks));
    await expectInStep(5 + 15);

    // A worker's chunk: two delivered, one retried in a minute, one failed for good.
    const got = await claimWebhook(t.db, 'w', 60_000, 100);
    const ids = got!.due.map((e) => e.id);
    expect(ids.length).toBeGreaterThanOrEqual(5);
    const recorded = await recordAttempts(t.db, {
      webhookId: got!.id, owner: 'w', leaseMs: 60_000, windowMs: DAY,
      attempts: [
        { eventId: ids[0], ok: true, status: 200, latencyMs: 3, error: null, retryInMs: 0 },
        { eventId: ids[1], ok: true, status: 200, latencyMs: 3, error: null, retryInMs: 0 },
        { eventId: ids[2], ok: false, status: 500, latencyMs: 3, error: 'HTTP 500', retryInMs: 60_000 },
        { eventId: ids[3], ok: false, status: 410, latencyMs: 3, error: 'gone', retryInMs: 60_000, final: true },
      ],
    });
    expect([...recorded.values()].map((r) => r.state)).toEqual(['delivered', 'delivered', 'pending', 'failed']);
    await expectInStep(20 - 3);
    // What is due for that webhook now: the rest, not the retried one (due in a minute).
    const rest = await dueEvents(t.db, got!.id, 100);
    expect(rest.map((e) => e.id)).toEqual(ids.slice(4));
    // One attempt at a time (recordAttempt), delivered.
    expect((await recordAttempt(t.db, { eventId: ids[4], webhookId: got!.id, owner: 'w', leaseMs: 60_000, ok: true, status: 200, latencyMs: 1, error: null, retryInMs: 0, windowMs: DAY }))?.state).toBe('delivered');
    await expectInStep(16);
    await releaseLease(t.db, got!.id, 'w');

    // A replay of slot 11 queues that webhook's events again, delivered and failed ones too.
    const finished = (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE webhook_id = $1 AND slot = 11 AND state <> 'pending'`, [got!.id])).rows[0].n;
    expect(finished).toBeGreaterThan(0);
    expect(await replayEvents(t.db, got!.id, 11, 11)).toBe(5);
    await expectInStep(16 + finished);
    // Switched on again: pending events due at once.
    await restartPending(t.db, got!.id);
    await expectInStep(16 + finished);
    expect((await dueEvents(t.db, got!.id, 100)).map((e) => e.signature).filter((s) => s.startsWith('sig-11'))).toHaveLength(5);

    // Retention removes finished events only.
    await t.db.query(`UPDATE webhook_events SET created_at = now() - interval '30 days'`);
    const before = (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE state <> 'pending'`)).rows[0].n;
    expect(await pruneDeliveries(t.db, DAY)).toBe(before);
    await expectInStep(16 + finished);

    // A webhook deleted takes its due events with it.
    const other = hooks.find((h) => h !== got!.id)!;
    const left = (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE webhook_id <> $1 AND state = 'pending'`, [other])).rows[0].n;
    expect(await deleteWebhook(t.db, keyId, other)).toBe(true);
    await expectInStep(left);
  });

  it('records a delivery without new index entries: the event is updated in place', async () => {
    // On fresh pages (a full page whose dead versions cannot be pruned yet would take the new version elsewhere).
    await t.db.query('TRUNCATE webhook_events CASCADE');
    await expectInStep(0);
    await ingest(block(12, 3, [await hook(9)]));
    const got = await claimWebhook(t.db, 'w', 60_000, 100);
    const stats = `SELECT pg_stat_get_xact_tuples_updated('webhook_events'::regclass)::int AS upd, pg_stat_get_xact_tuples_hot_updated('webhook_events'::regclass)::int AS hot`;
    const hot = await t.db.tx(async (q) => {
      // The counters of this transaction (read before and after: they may hold earlier transactions' counts not yet reported).
      const before = (await q.query<{ upd: number; hot: number }>(stats)).rows[0];
      const recorded = await recordAttempts(q, {
        webhookId: got!.id, owner: 'w', leaseMs: 60_000, windowMs: DAY, release: true,
        attempts: got!.due.map((e) => ({ eventId: e.id, ok: true, status: 200, latencyMs: 1, error: null, retryInMs: 0 })),
      });
      const after = (await q.query<{ upd: number; hot: number }>(stats)).rows[0];
      return { recorded: recorded.size, upd: after.upd - before.upd, hot: after.hot - before.hot };
    });
    expect(hot.recorded).toBe(got!.due.length);
    expect(hot.upd).toBe(got!.due.length);
    expect(hot.hot).toBe(got!.due.length);
    await expectInStep((await pendingAndDue()).pending.length);
  });
});
