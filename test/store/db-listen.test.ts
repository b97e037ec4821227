/**
 * Db.listen: a NOTIFY from a write wakes listeners (on PostgreSQL from another connection of the pool, as workers in
 * other processes are woken by the ingester), and unlistening stops the callbacks.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { WEBHOOK_EVENTS_CHANNEL, notifyQueued } from '../../src/store/webhook-events.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.drop());

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
