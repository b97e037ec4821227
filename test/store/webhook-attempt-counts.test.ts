/**
 * Migration 051: the failure rate behind auto-deactivation reads per-second counts that the recording statements
 * keep, instead of counting every attempt in its window. It must give what counting the attempts gave: every
 * attempt recorded (in chunks and one at a time) and every failure, none outside the window, none of another
 * webhook, none when the lease was lost (nothing recorded); attempts logged before the migration are counted from
 * the migration's backfill; retention removes old seconds. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { claimWebhook, failureStats, recordAttempt, recordAttempts } from '../../src/store/webhook-events.js';
import { pruneAttemptCounts } from '../../src/store/webhook-attempt-counts.js';
import { attemptsOf } from '../../src/store/webhook-deliveries.js';
import { createApiKey } from '../../src/store/keys.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { createTestWebhook, queueTestEvents } from '../helpers/webhooks.js';

let t: TestDb;
let keyId: string;
const HOUR = 3_600_000;

const hook = () => createTestWebhook(t.db, keyId);

async function queue(webhookId: string, n: number, tag: string): Promise<void> {
  await queueTestEvents(t.db, webhookId, Array.from({ length: n }, (_, i) => `${tag}-${i}`));
}

/** Claims the webhook's due events and records them: `fail(i)` says which fail (retried at once). */
async function deliverAll(webhookId: string, fail: (i: number) => boolean): Promise<{ attempts: number; failures: number }> {
  const got = { attempts: 0, failures: 0 };
  for (let round = 0; round < 50; round++) {
    const c = await claimWebhook(t.db, 'w', 60_000, 7);
    if (!c) break;
    const attempts = c.due.map((e) => {
      const ok = !fail(got.attempts++) || e.attempts > 0;
      if (!ok) got.failures++;
      return { eventId: e.id, ok, status: ok ? 200 : 503, latencyMs: 2, error: ok ? null : 'HTTP 503', retryInMs: 0 };
    });
    if (c.id !== webhookId) throw new Error('another webhook had due events');
    await recordAttempts(t.db, { webhookId: c.id, owner: 'w', leaseMs: 60_000, windowMs: 86_400_000, attempts, release: true });
  }
  return got;
}

beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 50) });
  keyId = (await createApiKey(t.db, { name: 'attempt-counts' })).record.id;
}, 120_000);

afterAll(async () => t?.drop());

describe('migration 051 (per-second attempt counts behind the failure rate)', () => {
  let old: string;

  it('counts the attempts logged before the migration', async () => {
    old = await hook();
    await queue(old, 10, 'old');
    await t.db.query(
      `INSERT INTO webhook_attempts (event_id, webhook_id, attempt, at, ok, status, latency_ms)
       SELECT id, webhook_id, 1, clock_timestamp() - (row_number() OVER (ORDER BY id)) * interval '1 minute', row_number() OVER (ORDER BY id) % 3 <> 0, 200, 1
         FROM webhook_events WHERE webhook_id = $1`,
      [old],
    );
    await t.db.query(`UPDATE webhook_events SET state = 'delivered', attempts = 1 WHERE webhook_id = $1`, [old]);
    expect(await migrate(t.db, listMigrations().filter((m) => m.version === 51))).toEqual(['051_webhook_attempt_counts.sql']);
    // Attempts 1..10 minutes ago; every third failed (3, 6, 9).
    expect(await failureStats(t.db, old, HOUR)).toEqual({ attempts: 10, failures: 3 });
    expect(await failureStats(t.db, old, 5.5 * 60_000)).toEqual({ attempts: 5, failures: 1 });
    // The migrations after it, for the code that records attempts now.
    await migrate(t.db);
  });

  it('counts every attempt the recording statements write, chunked and single, and only its own webhook\'s', async () => {
    const a = await hook();
    await queue(a, 40, 'a');
    const sent = await deliverAll(a, (i) => i % 4 === 0);
    expect(sent.attempts).toBe(40 + sent.failures);
    expect(await failureStats(t.db, a, HOUR)).toEqual(sent);
    // As the delivery log has them (failed attempts in the attempt log, successful ones in their events' rows).
    const ids = (await t.db.query<{ id: string }>('SELECT id FROM webhook_events WHERE webhook_id = $1', [a])).rows.map((r) => Number(r.id));
    const logged = await attemptsOf(t.db, ids);
    expect({ attempts: logged.length, failures: logged.filter((x) => !x.ok).length }).toEqual(sent);

    // One at a time (recordAttempt), one success and one failure; and one whose lease is not held: not recorded, not counted.
    const b = await hook();
    await queue(b, 3, 'b');
    const c = await claimWebhook(t.db, 'w', 60_000, 3);
    expect(c?.id).toBe(b);
    const one = (i: number, ok: boolean, owner = 'w') => recordAttempt(t.db, {
      eventId: c!.due[i].id, webhookId: b, owner, leaseMs: 60_000, ok, status: ok ? 200 : null, latencyMs: 1, error: ok ? null : 'timeout', retryInMs: 1000, windowMs: 86_400_000,
    });
    expect((await one(0, true))?.state).toBe('delivered');
    expect((await one(1, false))?.state).toBe('pending');
    expect(await one(2, true, 'someone-else')).toBeNull();
    expect(await failureStats(t.db, b, HOUR)).toEqual({ attempts: 2, failures: 1 });
    expect(await failureStats(t.db, a, HOUR)).toEqual(sent);
  });

  it('leaves out seconds before the window and removes old ones at retention', async () => {
    const d = await hook();
    await t.db.query(
      `INSERT INTO webhook_attempt_counts (webhook_id, second, attempts, failures)
       VALUES ($1, date_trunc('second', clock_timestamp()) - interval '2 hours', 50, 50), ($1, date_trunc('second', clock_timestamp()) - interval '10 seconds', 4, 1)`,
      [d],
    );
    expect(await failureStats(t.db, d, HOUR)).toEqual({ attempts: 4, failures: 1 });
    expect(await failureStats(t.db, d, 3 * HOUR)).toEqual({ attempts: 54, failures: 51 });
    await pruneAttemptCounts(t.db, HOUR);
    expect(await failureStats(t.db, d, 3 * HOUR)).toEqual({ attempts: 4, failures: 1 });
  });
});
