/**
 * Table family "ZK Compression history" (zk_history): whether the Light trees' history before the index's origin was
 * read from the cluster (src/ingest/zk-history.ts). One row per index.
 */
import type { Db, Queryable } from '../db.js';

export type ZkHistoryStatus = 'running' | 'done' | 'truncated' | 'failed';

export interface ZkHistoryRow {
  origin: number;
  status: ZkHistoryStatus;
  trees: number;
  transactions: number;
  oldestSlot: number | null;
  lastError: string | null;
}

export async function getZkHistory(q: Queryable): Promise<ZkHistoryRow | null> {
  const { rows } = await q.query<{ origin: string | number; status: ZkHistoryStatus; trees: number; transactions: string | number; oldest_slot: string | number | null; last_error: string | null }>(
    `SELECT origin, status, trees, transactions, oldest_slot, last_error FROM zk_history WHERE id = 'chain'`,
  );
  const r = rows[0];
  if (!r) return null;
  return {
    origin: Number(r.origin), status: r.status, trees: Number(r.trees), transactions: Number(r.transactions),
    oldestSlot: r.oldest_slot === null ? null : Number(r.oldest_slot), lastError: r.last_error,
  };
}

/** Starts (or restarts after a crash or a failure) the history read for `origin`. */
export async function beginZkHistory(q: Queryable, origin: number, trees: number): Promise<void> {
  await q.query(
    `INSERT INTO zk_history (id, origin, status, trees) VALUES ('chain', $1, 'running', $2)
     ON CONFLICT (id) DO UPDATE SET origin = EXCLUDED.origin, status = 'running', trees = EXCLUDED.trees, last_error = NULL, finished_at = NULL`,
    [origin, trees],
  );
}

/** Counts transactions applied. */
export async function advanceZkHistory(q: Queryable, transactions: number): Promise<void> {
  await q.query(`UPDATE zk_history SET transactions = transactions + $1 WHERE id = 'chain'`, [transactions]);
}

export async function finishZkHistory(q: Queryable, status: Exclude<ZkHistoryStatus, 'running'>, o: { error?: string; oldestSlot?: number } = {}): Promise<void> {
  await q.query(`UPDATE zk_history SET status = $1, last_error = $2, oldest_slot = $3, finished_at = now() WHERE id = 'chain'`, [status, o.error ?? null, o.oldestSlot ?? null]);
}

/**
 * The tables holding the Light trees' state, all derived from the trees' transactions (the signature indexes —
 * zk_transactions, zk_account_transactions, zk_signature_index — and the tree metadata in zk_trees are kept).
 */
export const ZK_TREE_STATE_TABLES = [
  'zk_accounts', 'zk_token_accounts', 'zk_owner_balances', 'zk_token_owner_balances', 'zk_state_nodes', 'zk_indexed_elements',
  'zk_address_queue', 'zk_batch_events',
] as const;

/**
 * Empties the trees' state and marks their history as being read again for `origin` (one transaction): the start of
 * a rebuild from the cluster (src/ingest/zk-rebuild.ts). Answers say the ZK Compression index is partial until the
 * read finishes.
 */
export async function resetZkTreeState(db: Db, origin: number): Promise<void> {
  await db.tx(async (q) => {
    for (const t of ZK_TREE_STATE_TABLES) await q.query(`DELETE FROM ${t}`);
    await beginZkHistory(q, origin, 0);
  });
}
