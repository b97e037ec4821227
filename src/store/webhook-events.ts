/**
 * Table family "webhook deliveries" (migration 014): the outbox (`webhook_events`), the payloads of matched
 * transactions, the attempt log and the per-webhook delivery leases.
 *
 * - The ingester reads the active subscriptions of a batch's addresses (`subscriptionsFor`) and writes the outbox
 *   rows with the batch (`outboxStatements`, in the block's own transaction or statement), idempotently: an event
 *   is unique per (webhook, signature), so re-ingesting a block never queues anything twice.
 * - A delivery worker takes a webhook's lease (`claimWebhook`, `FOR NO KEY UPDATE SKIP LOCKED` on the webhook row
 *   so concurrent workers never wait for each other nor take the same webhook), reads its due events in order
 *   (`dueEvents`), records attempts together with the events' new states and a lease renewal (failed attempts in
 *   the attempt log, a successful one in its event's row)
 *   (`recordAttempts`, many in one statement; `recordAttempt` for one), and releases the lease (`releaseLease`). A worker that dies leaves a lease that expires.
 * - The failure rate behind auto-deactivation (`failureStats`, from the per-second counts the recording statements
 *   keep: webhook-attempt-counts.ts; `deactivateWebhook`), the restart of a webhook
 *   switched on again (`restartPending`) and retention (`pruneDeliveries`).
 * The delivery log and replays of the API read and queue these rows through `webhook-deliveries.ts`. All times
 * come from the database clock.
 */
import type { Queryable } from './db.js';
import type { Statement } from './bulk.js';
import type { Matches, Subscription, TxnStatus, WebhookType } from '../core/webhook-types.js';
import { countAttemptsCte } from './webhook-attempt-counts.js';

export { failureStats } from './webhook-attempt-counts.js';

/** NOTIFY channel of newly queued events (a hint that wakes idle workers in every process; they also poll). */
export const WEBHOOK_EVENTS_CHANNEL = 'solgate_webhook_events';

/** Whether any webhook is active (a batch's addresses need not be gathered otherwise). */
export async function anyActiveWebhook(q: Queryable): Promise<boolean> {
  return (await q.query('SELECT 1 FROM webhooks WHERE active LIMIT 1')).rows.length > 0;
}

/** Active webhooks watching any of `addresses`, by address. */
export async function subscriptionsFor(q: Queryable, addresses: readonly string[]): Promise<Map<string, Subscription[]>> {
  const out = new Map<string, Subscription[]>();
  if (!addresses.length) return out;
  const { rows } = await q.query<{ address: string; id: string; webhook_type: WebhookType; transaction_types: string[]; txn_status: TxnStatus }>(
    `SELECT a.address, w.id::text AS id, w.webhook_type, w.transaction_types, w.txn_status
       FROM webhook_addresses a JOIN webhooks w ON w.id = a.webhook_id
      WHERE w.active AND a.address = ANY($1::text[])`,
    [addresses],
  );
  for (const r of rows) {
    const list = out.get(r.address) ?? [];
    list.push({ id: r.id, webhookType: r.webhook_type, transactionTypes: r.transaction_types, txnStatus: r.txn_status });
    out.set(r.address, list);
  }
  return out;
}

/**
 * The outbox rows of `m` as guarded inserts (payloads first; events only for webhooks that still exist and are
 * active when the statement runs, so a webhook deleted or switched off meanwhile gets nothing). Empty without events.
 * The events' insert also NOTIFYs the delivery workers when it inserted any row: PostgreSQL delivers the notification
 * when the block's write transaction commits (once per transaction), so workers in every process wake at the commit
 * itself, without a round trip after it, and never for a write that rolled back.
 */
export function outboxStatements(m: Matches): Statement[] {
  if (!m.events.length) return [];
  return [
    {
      sql: `INSERT INTO webhook_payloads (signature, slot, raw, enhanced)
            SELECT * FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[])
            ON CONFLICT (signature) DO NOTHING`,
      params: [m.payloads.map((p) => p.signature), m.payloads.map((p) => p.slot), m.payloads.map((p) => p.raw), m.payloads.map((p) => p.enhanced)],
    },
    {
      sql: `INSERT INTO webhook_events (webhook_id, signature, slot, position)
            SELECT u.webhook_id, u.signature, u.slot, u.position
              FROM unnest($1::uuid[], $2::text[], $3::int8[], $4::int8[]) AS u (webhook_id, signature, slot, position)
              JOIN webhooks w ON w.id = u.webhook_id AND w.active
            ORDER BY u.position
            ON CONFLICT (webhook_id, signature) DO NOTHING
            RETURNING pg_notify('${WEBHOOK_EVENTS_CHANNEL}', '')`,
      params: [m.events.map((e) => e.webhookId), m.events.map((e) => e.signature), m.events.map((e) => e.slot), m.events.map((e) => e.position)],
    },
  ];
}

export interface ClaimedWebhook {
  id: string;
  /** The owning API key (credits of delivered events). */
  keyId: string;
  url: string;
  webhookType: WebhookType;
  authHeader: string | null;
  secret: string;
}

/**
 * Takes the lease of one active webhook with due events that no live lease holds (chosen at random for fairness),
 * for `leaseMs`, and reads its first `limit` due events (as `dueEvents`) in the same statement. Null when there is
 * none. `due` may be empty (another worker's recording made them not due meanwhile). The events are read locked, so
 * as their newest versions: the statement's snapshot is older than its lease, and another worker may have held the
 * lease, delivered and released it in between (test/store/webhook-claim-race.test.ts).
 */
export async function claimWebhook(q: Queryable, owner: string, leaseMs: number, limit = 0): Promise<(ClaimedWebhook & { due: DueEvent[] }) | null> {
  const { rows } = await q.query<{ id: string; key_id: string; url: string; webhook_type: WebhookType; auth_header: string | null; secret: string } & DueRow>(
    // The webhooks with pending events are enumerated from the due index, one index probe each (a loose index scan:
    // the next webhook id after the last), so a claim costs as many probes as webhooks have pending events, however
    // many webhooks exist: scanning every active webhook cost 23 ms per claim with 5,000 of them, which idle workers
    // pay at every poll.
    `WITH RECURSIVE pend AS (
       (SELECT e.webhook_id FROM webhook_events e WHERE e.state = 'pending' ORDER BY e.webhook_id LIMIT 1)
       UNION ALL
       SELECT (SELECT e.webhook_id FROM webhook_events e WHERE e.state = 'pending' AND e.webhook_id > p.webhook_id ORDER BY e.webhook_id LIMIT 1)
         FROM pend p WHERE p.webhook_id IS NOT NULL
     ), cand AS (
       SELECT w.id FROM pend p JOIN webhooks w ON w.id = p.webhook_id
        WHERE w.active
          AND EXISTS (SELECT 1 FROM webhook_events e WHERE e.webhook_id = w.id AND e.state = 'pending' AND e.next_attempt_at <= clock_timestamp())
          AND NOT EXISTS (SELECT 1 FROM webhook_leases l WHERE l.webhook_id = w.id AND l.until > clock_timestamp())
        ORDER BY random()
        LIMIT 1
        FOR NO KEY UPDATE OF w SKIP LOCKED
     ), got AS (
       INSERT INTO webhook_leases AS l (webhook_id, owner, until)
       SELECT id, $1, clock_timestamp() + $2::int * interval '1 millisecond' FROM cand
       ON CONFLICT (webhook_id) DO UPDATE SET owner = EXCLUDED.owner, until = EXCLUDED.until WHERE l.until <= clock_timestamp()
       RETURNING l.webhook_id
     )
     SELECT w.id::text AS id, w.key_id, w.url, w.webhook_type, w.auth_header, w.secret,
            d.id AS event_id, d.signature, d.slot, d.attempts, d.queued_at, d.raw, d.enhanced
       FROM got JOIN webhooks w ON w.id = got.webhook_id
       LEFT JOIN LATERAL (
         SELECT e.id, e.signature, e.slot, e.attempts, e.queued_at, e.next_attempt_at, e.position, ${PAYLOAD_COLUMNS('w.webhook_type')}
           FROM webhook_events e LEFT JOIN webhook_payloads p ON p.signature = e.signature
          WHERE e.webhook_id = got.webhook_id AND e.state = 'pending' AND e.next_attempt_at <= clock_timestamp()
          ORDER BY e.next_attempt_at, e.position
          LIMIT $3
          -- Locking reads each row's newest version and checks it again: an event another worker recorded after this
          -- statement's snapshot (it held, used and released the lease meanwhile) is no longer pending, not handed out.
          FOR NO KEY UPDATE OF e
       ) d ON true
      ORDER BY d.next_attempt_at, d.position`,
    [owner, Math.round(leaseMs), limit],
    { prepare: true },
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id, keyId: r.key_id, url: r.url, webhookType: r.webhook_type, authHeader: r.auth_header, secret: r.secret,
    due: r.event_id == null ? [] : rows.map((x) => toDue({ ...x, id: x.event_id! })),
  };
}

/** Gives a lease up (only when `owner` still holds it). */
export async function releaseLease(q: Queryable, webhookId: string, owner: string): Promise<void> {
  await q.query('DELETE FROM webhook_leases WHERE webhook_id = $1 AND owner = $2', [webhookId, owner]);
}

export interface DueEvent {
  id: number;
  signature: string;
  slot: number;
  attempts: number;
  queuedAt: Date;
  /**
   * The payload (null when retention removed it). Only the text the webhook's type sends is read: for other than
   * raw webhooks `raw` is '' when the payload is stored; for raw webhooks `enhanced` is null.
   */
  raw: string | null;
  enhanced: string | null;
}

/** The payload columns of a due event for a webhook of type `typeSql` (see `DueEvent`): half the bytes read. */
const PAYLOAD_COLUMNS = (typeSql: string) =>
  `CASE WHEN ${typeSql} IN ('raw', 'rawDevnet') THEN p.raw WHEN p.signature IS NULL THEN NULL ELSE '' END AS raw,
   CASE WHEN ${typeSql} IN ('raw', 'rawDevnet') THEN NULL ELSE p.enhanced END AS enhanced`;

type DueRow = { event_id?: number | null; signature: string; slot: number; attempts: number; queued_at: Date; raw: string | null; enhanced: string | null };

const toDue = (r: Omit<DueRow, 'event_id'> & { id: number }): DueEvent => ({
  id: Number(r.id), signature: r.signature, slot: Number(r.slot), attempts: r.attempts, queuedAt: new Date(r.queued_at), raw: r.raw, enhanced: r.enhanced,
});

/**
 * A webhook's due events: earliest due first, then chain order (so first attempts go out in slot order); `exclude`:
 * event ids left out (attempted, their outcomes still being recorded). With `webhookType`, only the payload text
 * that type sends is read (see `DueEvent`).
 */
export async function dueEvents(q: Queryable, webhookId: string, limit: number, exclude: readonly number[] = [], webhookType?: WebhookType): Promise<DueEvent[]> {
  const { rows } = await q.query<{ id: number; signature: string; slot: number; attempts: number; queued_at: Date; raw: string | null; enhanced: string | null }>(
    `SELECT e.id, e.signature, e.slot, e.attempts, e.queued_at, ${webhookType ? PAYLOAD_COLUMNS('$4::text') : 'p.raw, p.enhanced'}
       FROM webhook_events e LEFT JOIN webhook_payloads p ON p.signature = e.signature
      WHERE e.webhook_id = $1 AND e.state = 'pending' AND e.next_attempt_at <= clock_timestamp()
        AND e.id <> ALL($3::int8[])
      ORDER BY e.next_attempt_at, e.position
      LIMIT $2`,
    webhookType ? [webhookId, limit, exclude, webhookType] : [webhookId, limit, exclude],
    { prepare: true },
  );
  return rows.map(toDue);
}

export interface AttemptOutcome {
  eventId: number;
  webhookId: string;
  owner: string;
  leaseMs: number;
  ok: boolean;
  /** HTTP status; null when no response came. */
  status: number | null;
  latencyMs: number;
  error: string | null;
  /** Failed: delay before the next attempt. */
  retryInMs: number;
  /** Failed: how long after `queued_at` retries may still happen. */
  windowMs: number;
  /** Failed for good whatever the window (e.g. the payload is gone). */
  final?: boolean;
}

export type RecordedState = 'delivered' | 'pending' | 'failed';

/**
 * Records one attempt, moves the event to its new state (delivered; pending with its next attempt time; failed
 * when the next attempt would fall outside the retry window) and renews the lease — all in one statement, and
 * only while `owner` holds the webhook's lease. Null when the lease was lost (another worker took over; nothing
 * is written), else the event's new state. A failed attempt is logged in webhook_attempts; a successful one stays
 * in the event's row (`delivered_latency_ms`, `delivered_by`, migration 052), which the statement updates anyway.
 */
export async function recordAttempt(q: Queryable, o: AttemptOutcome): Promise<{ state: RecordedState; attempt: number; queuedAt: Date } | null> {
  const { rows } = await q.query<{ state: RecordedState; attempts: number; queued_at: Date }>(
    `WITH lease AS (
       UPDATE webhook_leases SET until = clock_timestamp() + $3::int * interval '1 millisecond'
        WHERE webhook_id = $2 AND owner = $4
       RETURNING webhook_id
     ), ev AS (
       UPDATE webhook_events SET
         attempts = attempts + 1,
         last_attempt_at = clock_timestamp(),
         last_status = $6,
         last_error = $8,
         state = CASE WHEN $5 THEN 'delivered'
                      WHEN $11 OR clock_timestamp() + $9::int * interval '1 millisecond' > queued_at + $10::bigint * interval '1 millisecond' THEN 'failed'
                      ELSE 'pending' END,
         delivered_at = CASE WHEN $5 THEN clock_timestamp() ELSE delivered_at END,
         delivered_latency_ms = CASE WHEN $5 THEN $7::int ELSE delivered_latency_ms END,
         delivered_by = CASE WHEN $5 THEN $4::text ELSE delivered_by END,
         next_attempt_at = CASE WHEN $5 THEN next_attempt_at ELSE clock_timestamp() + $9::int * interval '1 millisecond' END
        WHERE id = $1 AND state = 'pending' AND EXISTS (SELECT 1 FROM lease)
       RETURNING id, attempts, state, queued_at, $5::bool AS ok
     ), log AS (
       INSERT INTO webhook_attempts (event_id, webhook_id, attempt, ok, status, latency_ms, error, worker)
       SELECT id, $2, attempts, $5, $6, $7, $8, $4 FROM ev WHERE NOT $5
     ), ${countAttemptsCte('ev', '$2::uuid')}
     SELECT state, attempts, queued_at FROM ev`,
    [o.eventId, o.webhookId, Math.round(o.leaseMs), o.owner, o.ok, o.status, Math.round(o.latencyMs), o.error, Math.round(o.retryInMs), Math.round(o.windowMs), o.final ?? false],
  );
  const r = rows[0];
  return r ? { state: r.state, attempt: r.attempts, queuedAt: new Date(r.queued_at) } : null;
}

/** One attempt of a batch recorded by `recordAttempts`. */
export interface BatchAttempt {
  eventId: number;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
  retryInMs: number;
  final?: boolean;
}

/**
 * `recordAttempt` for many events of one webhook in one statement: the failed attempts are logged in the given order,
 * each event moves to its new state, and the lease is renewed — only while `owner` holds the lease (nothing is
 * written otherwise). With `release`, the lease is given up instead of renewed, in the same statement (the last
 * chunk of a lease). Returns the new state of each recorded event by id; an event missing from the map was not
 * recorded (the lease was lost, or the event is no longer pending).
 */
export async function recordAttempts(
  q: Queryable,
  o: { webhookId: string; owner: string; leaseMs: number; windowMs: number; attempts: readonly BatchAttempt[]; release?: boolean },
): Promise<Map<number, { state: RecordedState; attempt: number; queuedAt: Date }>> {
  const out = new Map<number, { state: RecordedState; attempt: number; queuedAt: Date }>();
  if (!o.attempts.length) {
    if (o.release) await releaseLease(q, o.webhookId, o.owner);
    return out;
  }
  const a = o.attempts;
  const lease = o.release
    ? `DELETE FROM webhook_leases WHERE webhook_id = $1 AND owner = $2 AND $3::int IS NOT NULL RETURNING webhook_id`
    : `UPDATE webhook_leases SET until = clock_timestamp() + $3::int * interval '1 millisecond'
        WHERE webhook_id = $1 AND owner = $2
       RETURNING webhook_id`;
  const { rows } = await q.query<{ id: number; state: RecordedState; attempts: number; queued_at: Date }>(
    `WITH lease AS (
       ${lease}
     ), u AS (
       SELECT * FROM unnest($5::int8[], $6::bool[], $7::int[], $8::int[], $9::text[], $10::int[], $11::bool[])
                WITH ORDINALITY AS u (id, ok, status, latency_ms, error, retry_ms, final, ord)
     ), ev AS (
       UPDATE webhook_events e SET
         attempts = e.attempts + 1,
         last_attempt_at = clock_timestamp(),
         last_status = u.status,
         last_error = u.error,
         state = CASE WHEN u.ok THEN 'delivered'
                      WHEN u.final OR clock_timestamp() + u.retry_ms * interval '1 millisecond' > e.queued_at + $4::bigint * interval '1 millisecond' THEN 'failed'
                      ELSE 'pending' END,
         delivered_at = CASE WHEN u.ok THEN clock_timestamp() ELSE e.delivered_at END,
         delivered_latency_ms = CASE WHEN u.ok THEN u.latency_ms ELSE e.delivered_latency_ms END,
         delivered_by = CASE WHEN u.ok THEN $2::text ELSE e.delivered_by END,
         next_attempt_at = CASE WHEN u.ok THEN e.next_attempt_at ELSE clock_timestamp() + u.retry_ms * interval '1 millisecond' END
        FROM u
        -- Only the join finds the rows, so each is found by primary key from the list (a further 'e.id = ANY(...)'
        -- made the kept generic plan scan the events by it and run the unnest again for every row).
        WHERE e.id = u.id AND e.webhook_id = $1 AND e.state = 'pending' AND EXISTS (SELECT 1 FROM lease)
       RETURNING e.id, e.attempts, e.state, e.queued_at, u.ok, u.status, u.latency_ms, u.error, u.ord
     ), log AS (
       INSERT INTO webhook_attempts (event_id, webhook_id, attempt, ok, status, latency_ms, error, worker)
       SELECT id, $1, attempts, ok, status, latency_ms, error, $2 FROM ev WHERE NOT ok ORDER BY ord
     ), ${countAttemptsCte('ev', '$1::uuid')}
     SELECT id, state, attempts, queued_at FROM ev`,
    [
      o.webhookId, o.owner, Math.round(o.leaseMs), Math.round(o.windowMs),
      a.map((x) => x.eventId), a.map((x) => x.ok), a.map((x) => x.status), a.map((x) => Math.round(x.latencyMs)),
      a.map((x) => x.error), a.map((x) => Math.round(x.retryInMs)), a.map((x) => x.final ?? false),
    ],
    { prepare: true },
  );
  for (const r of rows) out.set(Number(r.id), { state: r.state, attempt: r.attempts, queuedAt: new Date(r.queued_at) });
  return out;
}

/** Switches a webhook off with the reason (once: false when it was already off). */
export async function deactivateWebhook(q: Queryable, webhookId: string, reason: string): Promise<boolean> {
  const { rows } = await q.query(
    `UPDATE webhooks SET active = false, deactivated_reason = $2, deactivated_at = clock_timestamp(), updated_at = clock_timestamp()
      WHERE id = $1 AND active RETURNING id`,
    [webhookId, reason],
  );
  return rows.length > 0;
}

/**
 * After a webhook is switched on again: its pending events start a new retry window and are due at once (they
 * waited while it was off).
 */
export async function restartPending(q: Queryable, webhookId: string): Promise<void> {
  await q.query(
    `UPDATE webhook_events SET queued_at = clock_timestamp(), next_attempt_at = LEAST(next_attempt_at, clock_timestamp())
      WHERE webhook_id = $1 AND state = 'pending'`,
    [webhookId],
  );
}

/**
 * Retention: finished events older than `retentionMs`, attempts older than that (attempts have no foreign key to
 * their event: a removed event's later attempts go when they are that old in turn, and are never read meanwhile,
 * since attempts are read through their event), and payloads no event refers to any more. Pending events are never
 * removed. Returns the number of events removed.
 */
export async function pruneDeliveries(q: Queryable, retentionMs: number): Promise<number> {
  const ms = Math.round(retentionMs);
  const { rows } = await q.query<{ n: number }>(
    `WITH d AS (
       DELETE FROM webhook_events WHERE state <> 'pending' AND created_at < clock_timestamp() - $1::bigint * interval '1 millisecond'
       RETURNING 1
     ) SELECT count(*)::int AS n FROM d`,
    [ms],
  );
  await q.query(`DELETE FROM webhook_attempts WHERE at < clock_timestamp() - $1::bigint * interval '1 millisecond'`, [ms]);
  await q.query(
    `DELETE FROM webhook_payloads p WHERE p.created_at < clock_timestamp() - $1::bigint * interval '1 millisecond'
        AND NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.signature = p.signature)`,
    [ms],
  );
  return rows[0].n;
}
