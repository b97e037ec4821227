/**
 * Table family "ZK Compression repairs" (zk_repairs, migration 043): requests for an automatic rebuild of the trees'
 * state, recorded by the drift detector (any process) and carried out by the ingester (src/ingest/zk-repair.ts).
 */
import type { Queryable } from '../db.js';

export type ZkRepairStatus = 'requested' | 'running' | 'done' | 'truncated' | 'superseded';

export interface ZkRepairRow {
  id: number;
  status: ZkRepairStatus;
  trees: string[];
  slot: number;
  basis: number | null;
  attempts: number;
  lastError: string | null;
  through: number | null;
  transactions: number | null;
}

type Raw = {
  id: string | number; status: ZkRepairStatus; trees: string[]; slot: string | number; basis: string | number | null; attempts: number;
  last_error: string | null; through: string | number | null; transactions: string | number | null;
};
const COLUMNS = 'id, status, trees, slot, basis, attempts, last_error, through, transactions';
const num = (v: string | number | null) => (v === null ? null : Number(v));
const row = (r: Raw): ZkRepairRow => ({
  id: Number(r.id), status: r.status, trees: r.trees, slot: Number(r.slot), basis: num(r.basis), attempts: r.attempts,
  lastError: r.last_error, through: num(r.through), transactions: num(r.transactions),
});
const OPEN = `status IN ('requested', 'running')`;

/** Records a request unless one is open already; true when this call recorded it. */
export async function requestZkRepair(q: Queryable, r: { trees: string[]; slot: number; basis: number | null }): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO zk_repairs (trees, slot, basis) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id`,
    [r.trees, r.slot, r.basis],
  );
  return rows.length > 0;
}

/** Whether an open request is due (a running one is left over from an ingester that stopped: it is due too). */
export async function zkRepairDue(q: Queryable): Promise<boolean> {
  const { rows } = await q.query(`SELECT 1 FROM zk_repairs WHERE ${OPEN} AND not_before <= now() LIMIT 1`);
  return rows.length > 0;
}

/** Marks the due request running (one more attempt) and returns it as it was before; null when none is due. */
export async function claimZkRepair(q: Queryable): Promise<ZkRepairRow | null> {
  const { rows } = await q.query<Raw>(
    `UPDATE zk_repairs SET status = 'running', attempts = attempts + 1, started_at = now()
      WHERE id = (SELECT id FROM zk_repairs WHERE ${OPEN} AND not_before <= now() LIMIT 1)
      RETURNING ${COLUMNS}`,
  );
  return rows[0] ? { ...row(rows[0]), attempts: rows[0].attempts - 1 } : null;
}

/** Ends a request: rebuilt (`done`, or `truncated` by the cluster's ledger) or `superseded`. */
export async function finishZkRepair(
  q: Queryable, id: number, status: 'done' | 'truncated' | 'superseded', o: { through?: number; transactions?: number; error?: string } = {},
): Promise<void> {
  await q.query(
    `UPDATE zk_repairs SET status = $2, through = $3, transactions = $4, last_error = $5, finished_at = now() WHERE id = $1`,
    [id, status, o.through ?? null, o.transactions ?? null, o.error ?? null],
  );
}

/** Puts a request back: after a failure (its error, tried again after `retryMs`), or stopped (`error` null: due at once). */
export async function deferZkRepair(q: Queryable, id: number, error: string | null, retryMs: number): Promise<void> {
  await q.query(
    `UPDATE zk_repairs SET status = 'requested', last_error = COALESCE($2, last_error), not_before = now() + $3 * interval '1 millisecond' WHERE id = $1`,
    [id, error, retryMs],
  );
}

/** The requests, newest first. */
export async function listZkRepairs(q: Queryable, limit = 20): Promise<ZkRepairRow[]> {
  const { rows } = await q.query<Raw>(`SELECT ${COLUMNS} FROM zk_repairs ORDER BY id DESC LIMIT $1`, [limit]);
  return rows.map(row);
}
