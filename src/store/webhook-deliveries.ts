/**
 * Table family "webhook deliveries" (migration 014), as the API reads it: a webhook's delivery log (`listDeliveries`,
 * `getDelivery`, `deliveryCounts`) with the attempts behind each event (`attemptsOf`), and replays that queue a
 * webhook's past events again (`replayEvents`). The outbox and the delivery worker's side are in
 * `webhook-events.ts`. All times come from the database clock.
 */
import type { Queryable } from './db.js';

/**
 * Queues a webhook's events of slots [fromSlot, toSlot] again (delivered and failed ones too): each is due now,
 * with a new retry window, and keeps its event id. Returns how many were queued.
 */
export async function replayEvents(q: Queryable, webhookId: string, fromSlot: number, toSlot: number | null): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    // One due time for every replayed event (clock_timestamp() per row would order them by the UPDATE's scan, not by
    // chain position, and the worker takes due events by due time first).
    // A successful attempt kept in the event's row (migration 052) goes to the attempt log first, where the row's
    // next successful attempt would otherwise overwrite it. Both statements read the rows as they were before.
    `WITH t AS (SELECT clock_timestamp() AS at),
     moved AS (
       INSERT INTO webhook_attempts (event_id, webhook_id, attempt, at, ok, status, latency_ms, error, worker)
       SELECT id, webhook_id, attempts, delivered_at, true, last_status, delivered_latency_ms, NULL, delivered_by
         FROM webhook_events
        WHERE webhook_id = $1 AND slot >= $2 AND ($3::int8 IS NULL OR slot <= $3) AND delivered_latency_ms IS NOT NULL
     ),
     r AS (
       UPDATE webhook_events SET state = 'pending', next_attempt_at = (SELECT at FROM t), queued_at = (SELECT at FROM t),
              delivered_latency_ms = NULL, delivered_by = NULL
        WHERE webhook_id = $1 AND slot >= $2 AND ($3::int8 IS NULL OR slot <= $3)
       RETURNING 1
     ) SELECT count(*)::int AS n FROM r`,
    [webhookId, fromSlot, toSlot],
  );
  return rows[0].n;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: number;
  signature: string;
  slot: number;
  position: number;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date;
  queuedAt: Date;
  createdAt: Date;
  lastAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
}

const DELIVERY_COLUMNS =
  'id, signature, slot, position, state, attempts, next_attempt_at, queued_at, created_at, last_attempt_at, last_status, last_error, delivered_at';

function toDelivery(r: Record<string, unknown>): DeliveryRow {
  const date = (v: unknown) => (v == null ? null : new Date(v as string));
  return {
    id: Number(r.id),
    signature: r.signature as string,
    slot: Number(r.slot),
    position: Number(r.position),
    state: r.state as DeliveryState,
    attempts: r.attempts as number,
    nextAttemptAt: date(r.next_attempt_at)!,
    queuedAt: date(r.queued_at)!,
    createdAt: date(r.created_at)!,
    lastAttemptAt: date(r.last_attempt_at),
    lastStatus: (r.last_status as number | null) ?? null,
    lastError: (r.last_error as string | null) ?? null,
    deliveredAt: date(r.delivered_at),
  };
}

/** A webhook's events, newest first (chain order), after the cursor `before` (exclusive). */
export async function listDeliveries(
  q: Queryable,
  webhookId: string,
  o: { limit: number; state?: DeliveryState; before?: { position: number; id: number } },
): Promise<DeliveryRow[]> {
  const params: unknown[] = [webhookId, o.limit];
  let where = 'webhook_id = $1';
  if (o.state) {
    params.push(o.state);
    where += ` AND state = $${params.length}`;
  }
  if (o.before) {
    params.push(o.before.position, o.before.id);
    where += ` AND (position, id) < ($${params.length - 1}::int8, $${params.length}::int8)`;
  }
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_events WHERE ${where} ORDER BY position DESC, id DESC LIMIT $2`,
    params,
  );
  return rows.map(toDelivery);
}

/** One event of a webhook (null when it is not that webhook's). */
export async function getDelivery(q: Queryable, webhookId: string, eventId: number): Promise<DeliveryRow | null> {
  const { rows } = await q.query<Record<string, unknown>>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_events WHERE webhook_id = $1 AND id = $2`, [webhookId, eventId]);
  return rows.length ? toDelivery(rows[0]) : null;
}

export interface AttemptRow {
  eventId: number;
  attempt: number;
  at: Date;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
  worker: string | null;
}

/**
 * Every attempt at the given events, in order: the attempt log's rows, and the successful attempt a delivered
 * event keeps in its own row (migration 052; always its last attempt, numbered `attempts`).
 */
export async function attemptsOf(q: Queryable, eventIds: readonly number[]): Promise<AttemptRow[]> {
  if (!eventIds.length) return [];
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT event_id, attempt, at, ok, status, latency_ms, error, worker FROM (
       SELECT event_id, attempt, at, ok, status, latency_ms, error, worker, id AS n FROM webhook_attempts WHERE event_id = ANY($1::int8[])
       UNION ALL
       SELECT id, attempts, delivered_at, true, last_status, delivered_latency_ms, NULL, delivered_by, NULL
         FROM webhook_events WHERE id = ANY($1::int8[]) AND delivered_latency_ms IS NOT NULL
     ) a ORDER BY event_id, n NULLS LAST`,
    [eventIds],
  );
  return rows.map((r) => ({
    eventId: Number(r.event_id),
    attempt: r.attempt as number,
    at: new Date(r.at as string),
    ok: r.ok as boolean,
    status: (r.status as number | null) ?? null,
    latencyMs: r.latency_ms as number,
    error: (r.error as string | null) ?? null,
    worker: (r.worker as string | null) ?? null,
  }));
}

/** Counts of a webhook's events by state. */
export async function deliveryCounts(q: Queryable, webhookId: string): Promise<Record<DeliveryState, number>> {
  const { rows } = await q.query<{ state: DeliveryState; n: number }>(
    'SELECT state, count(*)::int AS n FROM webhook_events WHERE webhook_id = $1 GROUP BY state',
    [webhookId],
  );
  const out: Record<DeliveryState, number> = { pending: 0, delivered: 0, failed: 0 };
  for (const r of rows) out[r.state] = r.n;
  return out;
}
