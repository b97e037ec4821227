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
