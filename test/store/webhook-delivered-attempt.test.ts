/**
 * Migration 052: a delivered event's successful attempt stays in the event's own row (the recording statement
 * updates that row anyway) and the attempt log keeps the failed attempts. The delivery log reads the same as when
 * every attempt had its row: events delivered before the migration as they were logged, events delivered after it
 * with their successful attempt (number, time, status, latency, worker) from the row, and a replayed event with
 * each of its successful attempts. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { claimWebhook, recordAttempt, recordAttempts } from '../../src/store/webhook-events.js';
import { attemptsOf, replayEvents } from '../../src/store/webhook-deliveries.js';
import { createApiKey } from '../../src/store/keys.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { createTestWebhook, queueTestEvents } from '../helpers/webhooks.js';

let t: TestDb;
let keyId: string;
const DAY = 86_400_000;

const queue = (webhookId: string, sigs: string[], slot: number) => queueTestEvents(t.db, webhookId, sigs, slot);

/** What the delivery log shows of the events' attempts, without the times. */
const shown = async (ids: number[]) =>
  (await attemptsOf(t.db, ids)).map((a) => [a.eventId, a.attempt, a.ok, a.status, a.latencyMs, a.error, a.worker]);

const logRows = async (ids: number[]) =>
  (await t.db.query<{ event_id: string; attempt: number; ok: boolean }>('SELECT event_id, attempt, ok FROM webhook_attempts WHERE event_id = ANY($1::int8[]) ORDER BY id', [ids])).rows
    .map((r) => [Number(r.event_id), r.attempt, r.ok]);

/** One claim of the webhook's due events, recorded by `worker`: `fail` says which fail (due again at once). */
async function deliverOnce(webhookId: string, worker: string, fail: (eventId: number) => boolean, latencyMs: number): Promise<void> {
  const c = await claimWebhook(t.db, worker, 60_000, 100);
  expect(c?.id).toBe(webhookId);
  const attempts = c!.due.map((e) => {
    const ok = !fail(e.id);
    return { eventId: e.id, ok, status: ok ? 200 : 503, latencyMs, error: ok ? null : 'HTTP 503', retryInMs: 0 };
  });
  await recordAttempts(t.db, { webhookId, owner: worker, leaseMs: 60_000, windowMs: DAY, attempts, release: true });
}

beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 51) });
  keyId = (await createApiKey(t.db, { name: 'delivered-attempt' })).record.id;
}, 120_000);

afterAll(async () => t?.drop());

describe('migration 052 (a delivered event keeps its successful attempt in its row)', () => {
  let old: string;
  let oldIds: number[];

  it('reads the attempts logged before it as they were', async () => {
    old = await createTestWebhook(t.db, keyId);
    oldIds = await queue(old, ['old-0', 'old-1'], 1);
    // As the code before the migration logged them: old-0 failed once, then both were delivered.
    await t.db.query(`UPDATE webhook_events SET state = 'delivered', attempts = CASE WHEN signature = 'old-0' THEN 2 ELSE 1 END, last_status = 200, delivered_at = now() WHERE webhook_id = $1`, [old]);
    await t.db.query(
      `INSERT INTO webhook_attempts (event_id, webhook_id, attempt, ok, status, latency_ms, error, worker)
       VALUES ($1, $3, 1, false, 503, 4, 'HTTP 503', 'w0'), ($1, $3, 2, true, 200, 5, NULL, 'w0'), ($2, $3, 1, true, 200, 6, NULL, 'w0')`,
      [oldIds[0], oldIds[1], old],
    );
    expect(await migrate(t.db, listMigrations().filter((m) => m.version === 52))).toEqual(['052_webhook_delivered_attempt.sql']);
    expect(await shown(oldIds)).toEqual([
      [oldIds[0], 1, false, 503, 4, 'HTTP 503', 'w0'], [oldIds[0], 2, true, 200, 5, null, 'w0'], [oldIds[1], 1, true, 200, 6, null, 'w0'],
    ]);
    await migrate(t.db);
  });

  it('logs failed attempts only; the successful one reads from the event', async () => {
    const hook = await createTestWebhook(t.db, keyId);
    const ids = await queue(hook, ['a-0', 'a-1', 'a-2'], 2);
    const failedOnce = new Set<number>();
    const fail = (id: number) => id === ids[1] && !failedOnce.has(id) && failedOnce.add(id) !== undefined;
    await deliverOnce(hook, 'w1', fail, 7);
    await deliverOnce(hook, 'w2', fail, 8);
    expect(await logRows(ids)).toEqual([[ids[1], 1, false]]);
    expect(await shown(ids)).toEqual([
      [ids[0], 1, true, 200, 7, null, 'w1'],
      [ids[1], 1, false, 503, 7, 'HTTP 503', 'w1'], [ids[1], 2, true, 200, 8, null, 'w2'],
      [ids[2], 1, true, 200, 7, null, 'w1'],
    ]);
    // The successful attempt's time is the delivery's, after the failed one's.
    const got = await attemptsOf(t.db, [ids[1]]);
    const { rows } = await t.db.query<{ delivered_at: Date }>('SELECT delivered_at FROM webhook_events WHERE id = $1', [ids[1]]);
    expect(got[1].at.getTime()).toBe(new Date(rows[0].delivered_at).getTime());
    expect(got[1].at.getTime()).toBeGreaterThanOrEqual(got[0].at.getTime());

    // One at a time (recordAttempt): the same.
    const single = await queue(hook, ['a-3'], 3);
    const c = await claimWebhook(t.db, 'w3', 60_000, 1);
    expect(c?.due.map((e) => e.id)).toEqual(single);
    const rec = await recordAttempt(t.db, {
      eventId: single[0], webhookId: hook, owner: 'w3', leaseMs: 60_000, ok: true, status: 204, latencyMs: 9, error: null, retryInMs: 0, windowMs: DAY,
    });
    expect(rec?.state).toBe('delivered');
    expect(await logRows(single)).toEqual([]);
    expect(await shown(single)).toEqual([[single[0], 1, true, 204, 9, null, 'w3']]);
  });

  it('keeps every successful attempt of a replayed event', async () => {
    const hook = await createTestWebhook(t.db, keyId);
    const ids = await queue(hook, ['r-0', 'r-1'], 4);
    await deliverOnce(hook, 'w1', () => false, 3);
    const first = await shown(ids);
    expect(first).toEqual([[ids[0], 1, true, 200, 3, null, 'w1'], [ids[1], 1, true, 200, 3, null, 'w1']]);
    // Queued again: the delivery log is unchanged until the next attempt (the successes moved to the attempt log).
    expect(await replayEvents(t.db, hook, 4, 4)).toBe(2);
    expect(await shown(ids)).toEqual(first);
    expect(await logRows(ids)).toEqual([[ids[0], 1, true], [ids[1], 1, true]]);
    // Delivered again, the first one after a failure.
    let failed = false;
    const fail = (id: number) => id === ids[0] && !failed && (failed = true);
    await deliverOnce(hook, 'w2', fail, 4);
    await deliverOnce(hook, 'w3', fail, 5);
    expect(await shown(ids)).toEqual([
      [ids[0], 1, true, 200, 3, null, 'w1'], [ids[0], 2, false, 503, 4, 'HTTP 503', 'w2'], [ids[0], 3, true, 200, 5, null, 'w3'],
      [ids[1], 1, true, 200, 3, null, 'w1'], [ids[1], 2, true, 200, 4, null, 'w2'],
    ]);
    // The old webhook's events, delivered before the migration, replayed: nothing to move, their log is as it was.
    expect(await replayEvents(t.db, old, 1, 1)).toBe(2);
    expect(await logRows(oldIds)).toEqual([[oldIds[0], 1, false], [oldIds[0], 2, true], [oldIds[1], 1, true]]);
  });
});
