/**
 * Table family "coverage": where the index began (`index_origin`) and which addresses' current state was read from
 * the cluster (`address_coverage`). Writes only move forward: the origin is recorded once, a state slot only rises.
 */
import type { Queryable } from './db.js';

/** Records the slot the ingester starts from on an empty index (the first call wins). */
export async function recordIndexOrigin(q: Queryable, firstSlot: number): Promise<void> {
  await q.query(`INSERT INTO index_origin (id, first_slot) VALUES ('chain', $1) ON CONFLICT (id) DO NOTHING`, [firstSlot]);
}

/** The slot the index began at; null when nothing was ingested from a cluster (replays, tests). */
export async function getIndexOrigin(q: Queryable): Promise<number | null> {
  const { rows } = await q.query<{ first_slot: string | number }>(`SELECT first_slot FROM index_origin WHERE id = 'chain'`);
  return rows.length ? Number(rows[0].first_slot) : null;
}

/** The slot each address's state was hydrated at (addresses never hydrated are absent). */
export async function getStateCoverage(q: Queryable, addresses: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!addresses.length) return out;
  const { rows } = await q.query<{ address: string; state_slot: string | number }>(
    'SELECT address, state_slot FROM address_coverage WHERE address = ANY($1::text[]) AND state_slot IS NOT NULL',
    [addresses],
  );
  for (const r of rows) out.set(r.address, Number(r.state_slot));
  return out;
}

/** Marks `address`'s state as read at `slot` (a later slot only) and clears its last error. */
export async function markStateCovered(q: Queryable, address: string, slot: number): Promise<void> {
  await q.query(
    `INSERT INTO address_coverage AS t (address, state_slot, state_at) VALUES ($1, $2, now())
     ON CONFLICT (address) DO UPDATE SET state_slot = GREATEST(t.state_slot, EXCLUDED.state_slot), state_at = now(),
       last_error = NULL, last_error_at = NULL`,
    [address, slot],
  );
}

/** Records a failed hydration of `address` (its state coverage, if any, stays). */
export async function markStateFailed(q: Queryable, address: string, error: string): Promise<void> {
  await q.query(
    `INSERT INTO address_coverage AS t (address, last_error, last_error_at) VALUES ($1, $2, now())
     ON CONFLICT (address) DO UPDATE SET last_error = EXCLUDED.last_error, last_error_at = now()`,
    [address, error.slice(0, 500)],
  );
}

/** Puts `addresses` on the watch list (idempotent). */
export async function trackAddresses(q: Queryable, addresses: string[]): Promise<void> {
  if (!addresses.length) return;
  await q.query(
    `INSERT INTO address_coverage AS t (address, tracked_at) SELECT unnest($1::text[]), now()
     ON CONFLICT (address) DO UPDATE SET tracked_at = COALESCE(t.tracked_at, now())`,
    [addresses],
  );
}

/** Watched addresses whose state was never read, oldest first; those that failed within `retryAfterMs` wait. */
export async function dueTracked(q: Queryable, limit: number, retryAfterMs: number): Promise<string[]> {
  const { rows } = await q.query<{ address: string }>(
    `SELECT address FROM address_coverage
      WHERE tracked_at IS NOT NULL AND state_slot IS NULL
        AND (last_error_at IS NULL OR last_error_at < now() - ($2::int * interval '1 millisecond'))
      ORDER BY tracked_at LIMIT $1`,
    [limit, retryAfterMs],
  );
  return rows.map((r) => r.address);
}

/** What the index knows of one address: state slot, watch-list time, last error. */
export async function getCoverageRow(q: Queryable, address: string): Promise<{ stateSlot: number | null; trackedAt: string | null; lastError: string | null } | null> {
  const { rows } = await q.query<{ state_slot: string | number | null; tracked_at: Date | string | null; last_error: string | null }>(
    'SELECT state_slot, tracked_at, last_error FROM address_coverage WHERE address = $1',
    [address],
  );
  if (!rows.length) return null;
  const r = rows[0];
  return {
    stateSlot: r.state_slot === null ? null : Number(r.state_slot),
    trackedAt: r.tracked_at === null ? null : new Date(r.tracked_at).toISOString(),
    lastError: r.last_error,
  };
}
