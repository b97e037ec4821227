/**
 * Table family "webhooks" (migration 013): the webhooks of the management API `/v0/webhooks` and their watched
 * addresses. Every function is scoped by the owning API key (`keyId`; keys have no account of their own): a
 * webhook of another key is indistinguishable from a missing one. Values arrive validated (src/api/rest/webhooks.ts).
 *
 * Addresses live one per row in `webhook_addresses` (indexed by address for the delivery matcher) and are written
 * only when a create or edit gives them, so a toggle or a URL change of a 100,000-address webhook rewrites nothing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Db, Queryable } from './db.js';
import type { TxnStatus, WebhookType } from '../core/webhook-types.js';
import { restartPending } from './webhook-events.js';

export type { TxnStatus, WebhookType };

/** The settings a client chooses (create, edit). */
export interface WebhookSettings {
  url: string;
  webhookType: WebhookType;
  transactionTypes: string[];
  /** Deduplicated, in the client's order. */
  accountAddresses: string[];
  txnStatus: TxnStatus;
  encoding: string;
  authHeader: string | null;
  active: boolean;
}

export interface WebhookRecord extends WebhookSettings {
  id: string;
  keyId: string;
  /** Signing secret of deliveries (HMAC key). */
  secret: string;
  createdAt: Date;
  updatedAt: Date;
  /** Why delivery switched the webhook off (failure rate), and when; null unless auto-deactivated. */
  deactivatedReason: string | null;
  deactivatedAt: Date | null;
}

interface WebhookRow {
  id: string;
  key_id: string;
  url: string;
  webhook_type: WebhookType;
  transaction_types: string[];
  txn_status: TxnStatus;
  encoding: string;
  auth_header: string | null;
  active: boolean;
  secret: string;
  created_at: Date;
  updated_at: Date;
  deactivated_reason: string | null;
  deactivated_at: Date | null;
}

const COLUMNS =
  'id::text AS id, key_id, url, webhook_type, transaction_types, txn_status, encoding, auth_header, active, secret, created_at, updated_at, deactivated_reason, deactivated_at';

function toRecord(r: WebhookRow, addresses: string[]): WebhookRecord {
  return {
    id: r.id,
    keyId: r.key_id,
    url: r.url,
    webhookType: r.webhook_type,
    transactionTypes: r.transaction_types,
    accountAddresses: addresses,
    txnStatus: r.txn_status,
    encoding: r.encoding,
    authHeader: r.auth_header,
    active: r.active,
    secret: r.secret,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    deactivatedReason: r.deactivated_reason,
    deactivatedAt: r.deactivated_at ? new Date(r.deactivated_at) : null,
  };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can be a webhook id (anything else is simply not found, without asking the database). */
export function isWebhookId(id: string): boolean {
  return UUID_RE.test(id);
}

/** A new signing secret: `whsec_` + 32 random bytes in base64 (the Svix/Standard Webhooks form). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

async function addressesOf(q: Queryable, ids: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const { rows } = await q.query<{ webhook_id: string; address: string }>(
    'SELECT webhook_id::text AS webhook_id, address FROM webhook_addresses WHERE webhook_id = ANY($1::uuid[]) ORDER BY webhook_id, ord',
    [ids],
  );
  for (const r of rows) out.get(r.webhook_id)!.push(r.address);
  return out;
}

async function writeAddresses(q: Queryable, id: string, addresses: string[]): Promise<void> {
  await q.query('DELETE FROM webhook_addresses WHERE webhook_id = $1', [id]);
  if (!addresses.length) return;
  await q.query(
    `INSERT INTO webhook_addresses (webhook_id, address, ord)
     SELECT $1::uuid, a.address, a.ord::int FROM unnest($2::text[]) WITH ORDINALITY AS a (address, ord)
     ON CONFLICT (webhook_id, address) DO NOTHING`,
    [id, addresses],
  );
}

/** How many webhooks `keyId` owns. */
export async function countWebhooks(q: Queryable, keyId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE key_id = $1', [keyId]);
  return rows[0].n;
}

/**
 * Creates a webhook for `keyId` unless the key already owns `limit` webhooks. Concurrent creates of one key are
 * serialised on the key's row, so the limit holds under races.
 */
export async function createWebhook(
  db: Db,
  keyId: string,
  settings: WebhookSettings,
  limit: number,
): Promise<{ ok: true; webhook: WebhookRecord } | { ok: false; count: number }> {
  return db.tx(async (q) => {
    await q.query('SELECT id FROM api_keys WHERE id = $1 FOR UPDATE', [keyId]);
    const count = await countWebhooks(q, keyId);
    if (count >= limit) return { ok: false as const, count };
    const id = randomUUID();
    const { rows } = await q.query<WebhookRow>(
      `INSERT INTO webhooks (id, key_id, url, webhook_type, transaction_types, txn_status, encoding, auth_header, active, secret, address_count)
       VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $10, $11)
       RETURNING ${COLUMNS}`,
      [id, keyId, settings.url, settings.webhookType, settings.transactionTypes, settings.txnStatus, settings.encoding, settings.authHeader, settings.active, newWebhookSecret(), settings.accountAddresses.length],
    );
    await writeAddresses(q, id, settings.accountAddresses);
    return { ok: true as const, webhook: toRecord(rows[0], settings.accountAddresses) };
  });
}

/** The key's webhooks, oldest first. */
export async function listWebhooks(q: Queryable, keyId: string): Promise<WebhookRecord[]> {
  const { rows } = await q.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE key_id = $1 ORDER BY created_at, id`, [keyId]);
  const addrs = await addressesOf(q, rows.map((r) => r.id));
  return rows.map((r) => toRecord(r, addrs.get(r.id)!));
}

/** One webhook of the key, or null (unknown id, or another key's). */
export async function getWebhook(q: Queryable, keyId: string, id: string): Promise<WebhookRecord | null> {
  if (!isWebhookId(id)) return null;
  const { rows } = await q.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND key_id = $2`, [id, keyId]);
  if (!rows.length) return null;
  return toRecord(rows[0], (await addressesOf(q, [rows[0].id])).get(rows[0].id)!);
}

/**
 * Replaces the settings of one of the key's webhooks (the caller merges a partial edit into the stored settings
 * and validates the result). Addresses are rewritten only when `addressesChanged`. Null when not found.
 */
export async function updateWebhook(db: Db, keyId: string, id: string, settings: WebhookSettings, addressesChanged: boolean): Promise<WebhookRecord | null> {
  if (!isWebhookId(id)) return null;
  return db.tx(async (q) => {
    const { rows } = await q.query<WebhookRow>(
      `UPDATE webhooks SET url = $3, webhook_type = $4, transaction_types = $5::text[], txn_status = $6, encoding = $7, auth_header = $8,
              active = $9, address_count = $10, updated_at = now(),
              deactivated_reason = CASE WHEN $9 THEN NULL ELSE deactivated_reason END,
              deactivated_at = CASE WHEN $9 THEN NULL ELSE deactivated_at END
       WHERE id = $1 AND key_id = $2
       RETURNING ${COLUMNS}, (SELECT active FROM webhooks WHERE id = $1) AS was_active`,
      [id, keyId, settings.url, settings.webhookType, settings.transactionTypes, settings.txnStatus, settings.encoding, settings.authHeader, settings.active, settings.accountAddresses.length],
    );
    if (!rows.length) return null;
    if (settings.active && !(rows[0] as WebhookRow & { was_active: boolean }).was_active) await restartPending(q, id);
    if (addressesChanged) {
      await writeAddresses(q, id, settings.accountAddresses);
      return toRecord(rows[0], settings.accountAddresses);
    }
    return toRecord(rows[0], (await addressesOf(q, [id])).get(id)!);
  });
}

/**
 * Switches one of the key's webhooks on or off; null when not found. Switching on clears an auto-deactivation's
 * reason and gives the events that waited a new retry window (src/store/webhook-events.ts `restartPending`).
 */
export async function setWebhookActive(db: Db, keyId: string, id: string, active: boolean): Promise<WebhookRecord | null> {
  if (!isWebhookId(id)) return null;
  return db.tx(async (q) => {
    const { rows } = await q.query<WebhookRow & { was_active: boolean }>(
      `UPDATE webhooks SET active = $3, updated_at = now(),
              deactivated_reason = CASE WHEN $3 THEN NULL ELSE deactivated_reason END,
              deactivated_at = CASE WHEN $3 THEN NULL ELSE deactivated_at END
        WHERE id = $1 AND key_id = $2
        RETURNING ${COLUMNS}, (SELECT active FROM webhooks WHERE id = $1) AS was_active`,
      [id, keyId, active],
    );
    if (!rows.length) return null;
    if (active && !rows[0].was_active) await restartPending(q, id);
    return toRecord(rows[0], (await addressesOf(q, [id])).get(id)!);
  });
}

/** Deletes one of the key's webhooks (its addresses go with it); false when not found. */
export async function deleteWebhook(q: Queryable, keyId: string, id: string): Promise<boolean> {
  if (!isWebhookId(id)) return false;
  const { rows } = await q.query('DELETE FROM webhooks WHERE id = $1 AND key_id = $2 RETURNING id', [id, keyId]);
  return rows.length > 0;
}
