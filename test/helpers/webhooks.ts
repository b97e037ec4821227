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
