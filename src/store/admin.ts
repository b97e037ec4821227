/**
 * Reads of the admin API and dashboard (src/api/admin) that cross API keys: every key's webhooks with their delivery
 * counts, one webhook whatever its key, and month-to-date usage of every key. The keyed stores stay scoped by key.
 */
import type { Queryable } from './db.js';
import { isWebhookId, type TxnStatus, type WebhookType } from './webhooks.js';

export interface WebhookSummary {
  id: string;
  keyId: string;
  keyName: string;
  url: string;
  webhookType: WebhookType;
  transactionTypes: string[];
  txnStatus: TxnStatus;
  active: boolean;
  addressCount: number;
  createdAt: Date;
  deactivatedReason: string | null;
  deactivatedAt: Date | null;
  counts: { pending: number; delivered: number; failed: number };
  lastAttemptAt: Date | null;
}

interface SummaryRow {
  id: string;
  key_id: string;
  key_name: string;
  url: string;
  webhook_type: WebhookType;
  transaction_types: string[];
  txn_status: TxnStatus;
  active: boolean;
  address_count: number;
  created_at: Date;
  deactivated_reason: string | null;
  deactivated_at: Date | null;
  pending: number;
  delivered: number;
  failed: number;
  last_attempt_at: Date | null;
}

const SUMMARY_SQL = `
  SELECT w.id::text AS id, w.key_id, k.name AS key_name, w.url, w.webhook_type, w.transaction_types, w.txn_status, w.active,
         w.address_count, w.created_at, w.deactivated_reason, w.deactivated_at,
         count(e.id) FILTER (WHERE e.state = 'pending')::int AS pending,
         count(e.id) FILTER (WHERE e.state = 'delivered')::int AS delivered,
         count(e.id) FILTER (WHERE e.state = 'failed')::int AS failed,
         max(e.last_attempt_at) AS last_attempt_at
    FROM webhooks w
    JOIN api_keys k ON k.id = w.key_id
    LEFT JOIN webhook_events e ON e.webhook_id = w.id`;

function toSummary(r: SummaryRow): WebhookSummary {
  return {
    id: r.id,
    keyId: r.key_id,
    keyName: r.key_name,
    url: r.url,
    webhookType: r.webhook_type,
    transactionTypes: r.transaction_types,
    txnStatus: r.txn_status,
    active: r.active,
    addressCount: Number(r.address_count),
    createdAt: new Date(r.created_at),
    deactivatedReason: r.deactivated_reason,
    deactivatedAt: r.deactivated_at ? new Date(r.deactivated_at) : null,
    counts: { pending: Number(r.pending), delivered: Number(r.delivered), failed: Number(r.failed) },
    lastAttemptAt: r.last_attempt_at ? new Date(r.last_attempt_at) : null,
  };
}

/** Every webhook (of one key when `keyId` is given), oldest first, with its delivery counts by state. */
export async function listAllWebhooks(q: Queryable, keyId?: string): Promise<WebhookSummary[]> {
  const { rows } = await q.query<SummaryRow>(
    `${SUMMARY_SQL} WHERE ($1::text IS NULL OR w.key_id = $1::text) GROUP BY w.id, k.name ORDER BY w.created_at, w.id`,
    [keyId ?? null],
  );
  return rows.map(toSummary);
}

/** One webhook whatever its key, or null. */
export async function getAnyWebhook(q: Queryable, id: string): Promise<WebhookSummary | null> {
  if (!isWebhookId(id)) return null;
  const { rows } = await q.query<SummaryRow>(`${SUMMARY_SQL} WHERE w.id = $1::uuid GROUP BY w.id, k.name`, [id]);
  return rows.length ? toSummary(rows[0]) : null;
}

/** Calls and credits of every key that has usage from `fromDay` (inclusive, YYYY-MM-DD) on. */
export async function usageTotalsSince(q: Queryable, fromDay: string): Promise<Map<string, { calls: number; credits: number }>> {
  const { rows } = await q.query<{ key_id: string; calls: string | number; credits: string | number }>(
    'SELECT key_id, sum(calls) AS calls, sum(credits) AS credits FROM usage_daily WHERE day >= $1::date GROUP BY key_id',
    [fromDay],
  );
  return new Map(rows.map((r) => [r.key_id, { calls: Number(r.calls), credits: Number(r.credits) }]));
}
