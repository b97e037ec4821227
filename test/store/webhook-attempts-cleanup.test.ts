/**
 * Migration 048: delivery attempts no longer have a foreign key to their event (the check cost a fifth of recording
 * a chunk of deliveries). What its cascade did must still happen: deleting a webhook — through the API's
 * `deleteWebhook` or by deleting its API key — deletes its attempts with it, and only its own. Attempts recorded
 * before the migration keep being read as before. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { claimWebhook, recordAttempts } from '../../src/store/webhook-events.js';
import { attemptsOf } from '../../src/store/webhook-deliveries.js';
import { createApiKey } from '../../src/store/keys.js';
import { deleteWebhook } from '../../src/store/webhooks.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { createTestWebhook, queueTestEvents } from '../helpers/webhooks.js';

let t: TestDb;
const keys: string[] = [];

const hook = (keyId: string) => createTestWebhook(t.db, keyId);

/** Queues `n` events for the webhook, then delivers them as one worker would: the first fails, the rest succeed. */
async function deliver(webhookId: string, n: number, tag: string): Promise<number[]> {
  await queueTestEvents(t.db, webhookId, Array.from({ length: n }, (_, i) => `${tag}-${i}`));
  // Claims go to any webhook with due events: deliver whatever each claim returns until this one's are all done.
  const ids: number[] = [];
  for (let round = 0; round < 20 && ids.length < n; round++) {
    const c = await claimWebhook(t.db, 'w', 60_000, 100);
    if (!c) break;
    const attempts = c.due.map((e, i) => ({
      eventId: e.id, ok: i > 0 || e.attempts > 0, status: i > 0 || e.attempts > 0 ? 200 : 500, latencyMs: 3, error: null, retryInMs: 0,
    }));
    const recorded = await recordAttempts(t.db, { webhookId: c.id, owner: 'w', leaseMs: 60_000, windowMs: 86_400_000, attempts, release: true });
    if (c.id === webhookId) for (const [id, r] of recorded) if (r.state === 'delivered') ids.push(id);
  }
  return ids.sort((a, b) => a - b);
}

/** The webhook's rows in the attempt log (since migration 052 its failed attempts; successful ones stay in their event's row). */
const countFor = async (webhookId: string) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts WHERE webhook_id = $1', [webhookId])).rows[0].n;

let before: string;
let beforeEvents: number[];

beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 47) });
  keys.push((await createApiKey(t.db, { name: 'attempts-a' })).record.id, (await createApiKey(t.db, { name: 'attempts-b' })).record.id);
  before = await hook(keys[0]);
  // Delivered before the migration, logged as that schema's code logged them: the first event failed once.
  await t.db.query(`INSERT INTO webhook_payloads (signature, slot, raw, enhanced) SELECT 'before-' || i, 1, '{}', '{}' FROM generate_series(0, 2) i`);
  const { rows } = await t.db.query<{ id: number }>(
    `INSERT INTO webhook_events (webhook_id, signature, slot, position, state, attempts)
     SELECT $1, 'before-' || i, 1, i, 'delivered', CASE WHEN i = 0 THEN 2 ELSE 1 END FROM generate_series(0, 2) i RETURNING id`,
    [before],
  );
  beforeEvents = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  await t.db.query(
    `INSERT INTO webhook_attempts (event_id, webhook_id, attempt, ok, status, latency_ms, worker)
     VALUES ($1, $4, 1, false, 500, 3, 'w'), ($1, $4, 2, true, 200, 3, 'w'), ($2, $4, 1, true, 200, 3, 'w'), ($3, $4, 1, true, 200, 3, 'w')`,
    [...beforeEvents, before],
  );
}, 120_000);

afterAll(async () => t?.drop());

describe('migration 048 (webhook attempts without a foreign key to their event)', () => {
  it('keeps the attempts recorded before it and records new ones in order', async () => {
    expect(await migrate(t.db, listMigrations().filter((m) => m.version === 48))).toEqual(['048_webhook_attempts_no_event_fk.sql']);
    // The migrations after it, for the code that reads and records attempts now.
    await migrate(t.db);
    const old = await attemptsOf(t.db, beforeEvents);
    // Three events, the first failed once and was retried.
    expect(old.map((a) => [a.eventId, a.attempt, a.ok, a.status])).toEqual([
      [beforeEvents[0], 1, false, 500], [beforeEvents[0], 2, true, 200], [beforeEvents[1], 1, true, 200], [beforeEvents[2], 1, true, 200],
    ]);
    const after = await hook(keys[0]);
    const ids = await deliver(after, 4, 'after');
    expect(ids).toHaveLength(4);
    const got = await attemptsOf(t.db, ids);
    expect(got.map((a) => [a.eventId, a.attempt, a.ok])).toEqual([
      [ids[0], 1, false], [ids[0], 2, true], [ids[1], 1, true], [ids[2], 1, true], [ids[3], 1, true],
    ]);
  });

  it('deletes a deleted webhook\'s attempts with it, and only its own', async () => {
    const gone = await hook(keys[0]);
    const kept = await hook(keys[0]);
    const goneIds = await deliver(gone, 5, 'gone');
    const keptIds = await deliver(kept, 2, 'kept');
    expect(await countFor(gone)).toBe(1);
    expect(await attemptsOf(t.db, goneIds)).toHaveLength(6);
    expect(await deleteWebhook(t.db, keys[0], gone)).toBe(true);
    expect(await countFor(gone)).toBe(0);
    expect(await attemptsOf(t.db, goneIds)).toEqual([]);
    expect((await attemptsOf(t.db, keptIds)).length).toBe(3);
    expect(await countFor(before)).toBe(4);
  });

  it('deletes the attempts of every webhook of a deleted API key', async () => {
    const one = await hook(keys[1]);
    const two = await hook(keys[1]);
    await deliver(one, 2, 'key-one');
    await deliver(two, 2, 'key-two');
    const others = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts WHERE webhook_id NOT IN ($1, $2)', [one, two])).rows[0].n;
    expect(await countFor(one)).toBe(1);
    expect(await countFor(two)).toBe(1);
    await t.db.query('DELETE FROM api_keys WHERE id = $1', [keys[1]]);
    expect(await countFor(one)).toBe(0);
    expect(await countFor(two)).toBe(0);
    expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts')).rows[0].n).toBe(others);
  });
});
