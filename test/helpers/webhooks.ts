import type { Db } from '../../src/store/db.js';
import { createWebhook } from '../../src/store/webhooks.js';

/** An active raw webhook of the key (watching the System Program), for store tests of the delivery tables. */
export async function createTestWebhook(db: Db, keyId: string): Promise<string> {
  const created = await createWebhook(db, keyId, {
    url: 'http://127.0.0.1:9/hook', webhookType: 'raw', transactionTypes: ['ANY'], accountAddresses: ['11111111111111111111111111111111'],
    txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
  }, 10);
  if (!created.ok) throw new Error('webhook not created');
  return created.webhook.id;
}

/**
 * Queues one event of the webhook per signature (payloads `{}`, kept when already stored) in slot `slot`, in the
 * given order (position `slot * 1000 + i`); returns the events' ids, ascending.
 */
export async function queueTestEvents(db: Db, webhookId: string, sigs: readonly string[], slot = 1): Promise<number[]> {
  await db.query(`INSERT INTO webhook_payloads (signature, slot, raw, enhanced) SELECT s, $2::int8, '{}', '{}' FROM unnest($1::text[]) s ON CONFLICT DO NOTHING`, [sigs, slot]);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO webhook_events (webhook_id, signature, slot, position)
     SELECT $1, s, $3::int8, $3::int8 * 1000 + o FROM unnest($2::text[]) WITH ORDINALITY AS u (s, o) RETURNING id`,
    [webhookId, sigs, slot],
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}
