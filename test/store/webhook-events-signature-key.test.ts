/**
 * Migration 049: the events' (webhook, signature) key starts with the signature and the separate signature index is
 * gone. What the two did must still hold: a transaction queued again for a webhook (a block written twice, a replay)
 * makes no second event, while other webhooks still get theirs; payload retention keeps a payload any event still
 * refers to and removes one no event does. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { outboxStatements, pruneDeliveries } from '../../src/store/webhook-events.js';
import { createApiKey } from '../../src/store/keys.js';
import type { Matches } from '../../src/core/webhook-types.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { createTestWebhook } from '../helpers/webhooks.js';

let t: TestDb;
const hooks: string[] = [];

async function queue(webhookIds: string[], signatures: string[], slot: number): Promise<void> {
  const m: Matches = { payloads: signatures.map((signature) => ({ signature, slot, raw: `{"raw":"${signature}"}`, enhanced: `{"enhanced":"${signature}"}` })), events: [] };
  signatures.forEach((signature, i) => webhookIds.forEach((webhookId) => m.events.push({ webhookId, signature, slot, position: slot * 1_000_000 + i })));
  await t.db.tx(async (q) => {
    for (const s of outboxStatements(m)) await q.query(s.sql, s.params);
  });
}

const events = async () =>
  (await t.db.query<{ webhook_id: string; signature: string }>('SELECT webhook_id::text, signature FROM webhook_events ORDER BY signature, webhook_id')).rows
    .map((r) => `${hooks.indexOf(r.webhook_id)}:${r.signature}`).sort();

beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 48) });
  const { record } = await createApiKey(t.db, { name: 'signature-key' });
  for (let i = 0; i < 2; i++) hooks.push(await createTestWebhook(t.db, record.id));
  await queue([hooks[0]], ['sig-a', 'sig-b'], 10);
}, 120_000);

afterAll(async () => t?.drop());

describe('migration 049 (one index of the webhook events by signature)', () => {
  it('keeps one event per webhook and transaction, queued before the migration or after', async () => {
    expect(await migrate(t.db, listMigrations().filter((m) => m.version === 49))).toEqual(['049_webhook_events_one_signature_index.sql']);
    // sig-a again for the first webhook (already queued before the migration), and for the second (new).
    await queue(hooks, ['sig-a', 'sig-c'], 11);
    await queue(hooks, ['sig-c'], 12);
    expect(await events()).toEqual(['0:sig-a', '0:sig-b', '0:sig-c', '1:sig-a', '1:sig-c']);
  });

  it('keeps the payloads events refer to and removes the others at retention', async () => {
    // Every event finished long ago but sig-c's, still pending; sig-b's events removed, so its payload is no one's.
    await t.db.query(`UPDATE webhook_events SET state = 'delivered', created_at = now() - interval '30 days' WHERE signature <> 'sig-c'`);
    await t.db.query(`UPDATE webhook_payloads SET created_at = now() - interval '30 days'`);
    await t.db.query(`DELETE FROM webhook_events WHERE signature = 'sig-b'`);
    await t.db.query(`UPDATE webhook_events SET created_at = now() WHERE signature = 'sig-a' AND webhook_id = $1`, [hooks[1]]);
    expect(await pruneDeliveries(t.db, 7 * 86_400_000)).toBe(1); // sig-a of the first webhook
    const { rows } = await t.db.query<{ signature: string }>('SELECT signature FROM webhook_payloads ORDER BY signature');
    expect(rows.map((r) => r.signature)).toEqual(['sig-a', 'sig-c']);
  });
});
