/**
 * Which webhook a claim takes: only an active one with events due now and no live lease, found among many webhooks
 * with nothing queued (the claim enumerates the webhooks with pending events from the due index, not every webhook).
 * PGlite, or real PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimWebhook, releaseLease } from '../../src/store/webhook-events.js';
import { createApiKey } from '../../src/store/keys.js';
import { createWebhook, setWebhookActive } from '../../src/store/webhooks.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let keyId: string;

async function hook(n: number): Promise<string> {
  const created = await createWebhook(t.db, keyId, {
    url: `http://127.0.0.1:9/hook-${n}`, webhookType: 'raw', transactionTypes: ['ANY'], accountAddresses: ['11111111111111111111111111111111'],
    txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
  }, 1000);
  if (!created.ok) throw new Error('webhook not created');
  return created.webhook.id;
}

async function queue(webhookId: string, tag: string, dueInMs = 0): Promise<void> {
  await t.db.query(`INSERT INTO webhook_payloads (signature, slot, raw, enhanced) VALUES ($1, 1, '{}', '{}')`, [tag]);
  await t.db.query(
    `INSERT INTO webhook_events (webhook_id, signature, slot, position, next_attempt_at) VALUES ($1, $2, 1, 1, clock_timestamp() + $3::int * interval '1 millisecond')`,
    [webhookId, tag, dueInMs],
  );
}

beforeAll(async () => {
  t = await createTestDb();
  keyId = (await createApiKey(t.db, { name: 'claims' })).record.id;
}, 60_000);
afterAll(async () => t?.drop());

describe('claimWebhook', () => {
  it('takes the one active webhook with due events and no live lease among many idle ones', async () => {
    const idle = [];
    for (let i = 0; i < 60; i++) idle.push(await hook(i));
    const later = await hook(100);
    await queue(later, 'sig-later', 3_600_000);
    const off = await hook(101);
    await queue(off, 'sig-off');
    await setWebhookActive(t.db, keyId, off, false);
    const leased = await hook(102);
    await queue(leased, 'sig-leased');
    await t.db.query(`INSERT INTO webhook_leases (webhook_id, owner, until) VALUES ($1, 'other', clock_timestamp() + interval '1 minute')`, [leased]);
    const due = await hook(103);
    await queue(due, 'sig-due');

    const got = await claimWebhook(t.db, 'me', 60_000, 10);
    expect(got?.id).toBe(due);
    expect(got?.due.map((e) => e.signature)).toEqual(['sig-due']);
    // Leased now: nothing else is claimable until the lease is given up.
    expect(await claimWebhook(t.db, 'me-too', 60_000, 10)).toBeNull();
    await releaseLease(t.db, due, 'me');
    expect((await claimWebhook(t.db, 'me-too', 60_000, 10))?.id).toBe(due);
    await releaseLease(t.db, due, 'me-too');
    // The other lease expired: that webhook is claimable again.
    await t.db.query(`UPDATE webhook_leases SET until = clock_timestamp() - interval '1 second' WHERE webhook_id = $1`, [leased]);
    const ids = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const c = await claimWebhook(t.db, `w${i}`, 60_000, 10);
      if (c) ids.add(c.id);
    }
    expect(ids).toEqual(new Set([due, leased]));
    expect(idle.some((id) => ids.has(id))).toBe(false);
  });
});
