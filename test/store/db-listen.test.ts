/**
 * Db.listen: a NOTIFY from a write wakes listeners (on PostgreSQL from another connection of the pool, as workers in
 * other processes are woken by the ingester), and unlistening stops the callbacks. The outbox insert of a block's
 * write notifies at its commit: once when it queued events, never when it rolled back or queued nothing new.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { WEBHOOK_EVENTS_CHANNEL, outboxStatements } from '../../src/store/webhook-events.js';
import { combineStatements } from '../../src/store/bulk.js';
import { createApiKey } from '../../src/store/keys.js';
import { createWebhook } from '../../src/store/webhooks.js';
import type { Matches } from '../../src/core/webhook-types.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.drop());

/** A bare NOTIFY on the workers' channel (the outbox insert sends the same from a block's write). */
const notifyQueued = (q: { query(sql: string): Promise<unknown> }) => q.query(`SELECT pg_notify('${WEBHOOK_EVENTS_CHANNEL}', '')`);

const waitFor = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

it('delivers notifications of the channel until unlistened', async () => {
  let calls = 0;
  const unlisten = await t.db.listen(WEBHOOK_EVENTS_CHANNEL, () => calls++);
  const base = calls; // PostgreSQL listeners wake once on (re)connect
  await notifyQueued(t.db);
  await waitFor(() => calls > base);
  const afterOne = calls;
  // Another channel does not wake it.
  await t.db.query("SELECT pg_notify('some_other_channel', '')");
  await notifyQueued(t.db);
  await waitFor(() => calls > afterOne);
  await new Promise((r) => setTimeout(r, 100));
  expect(calls).toBe(afterOne + 1);
  await unlisten();
  const stopped = calls;
  await notifyQueued(t.db);
  await new Promise((r) => setTimeout(r, 200));
  expect(calls).toBe(stopped);
});

it('refuses channel names that are not plain identifiers', async () => {
  await expect(t.db.listen('x; DROP TABLE webhooks', () => {})).rejects.toThrow(/invalid channel/);
});

it('the outbox insert notifies at the commit of the write, once, only when it queued events', async () => {
  const { record } = await createApiKey(t.db, { name: 'listen', plan: 'developer' });
  const made = await createWebhook(t.db, record.id, {
    url: 'https://example.com/hook', webhookType: 'raw', transactionTypes: [], accountAddresses: ['11111111111111111111111111111111'],
    txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
  }, 5);
  if (!made.ok) throw new Error('webhook not created');
  const matches = (sig: string): Matches => ({
    events: [{ webhookId: made.webhook.id, signature: sig, slot: 7, position: 7_000_000 }],
    payloads: [{ signature: sig, slot: 7, raw: '{}', enhanced: null }],
  });
  let calls = 0;
  const unlisten = await t.db.listen(WEBHOOK_EVENTS_CHANNEL, () => calls++);
  const base = calls;
  // A write that rolls back queues nothing and notifies nobody.
  await expect(t.db.tx(async (q) => {
    for (const st of outboxStatements(matches('a'))) await q.query(st.sql, st.params);
    throw new Error('rolled back');
  })).rejects.toThrow('rolled back');
  // A committed write (statement by statement, as in a transaction of several writes) notifies.
  await t.db.tx(async (q) => {
    for (const st of outboxStatements(matches('b'))) await q.query(st.sql, st.params);
  });
  await waitFor(() => calls > base);
  expect(calls).toBe(base + 1);
  // Combined into one statement (the block write's common form) it notifies too; queuing nothing new does not.
  const combined = combineStatements(outboxStatements(matches('c')));
  await t.db.query(combined.sql, combined.params);
  await waitFor(() => calls > base + 1);
  await t.db.query(combined.sql, combined.params);
  await notifyQueued(t.db); // a marker: notifications arrive in commit order
  await waitFor(() => calls > base + 2);
  expect(calls).toBe(base + 3);
  expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events')).rows[0].n).toBe(2);
  await unlisten();
});
