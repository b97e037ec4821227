/**
 * Storage report of a measured run: bytes on disk per table and per index (partitions summed into their parent),
 * divided by the non-vote transactions written, and projected to mainnet's rate. Used by bench/replay after the
 * CLI has replayed real mainnet blocks.
 *
 * Tables are grouped by how they grow: `history` tables gain rows with every transaction (they grow with time
 * and are what retention bounds), `state` tables hold one row per account/mint/asset (they grow with the number
 * of distinct accounts — a replay of copies of one block touches the same accounts again, so their per-transaction
 * figure here is not a projection of mainnet and is shown only for completeness).
 */
import type { Db } from '../../src/store/db.js';

/** Tables that gain rows with every transaction (the families retention applies to). */
export const HISTORY_TABLES = new Set([
  'blocks', 'transactions', 'address_slots', 'address_typed', 'address_transactions', 'wallet_transfers', 'mint_supply_changes', 'swap_prices',
  'priority_fees', 'cnft_signatures', 'zk_transactions', 'zk_account_transactions', 'zk_signature_index',
  'zk_batch_events', 'webhook_events', 'webhook_attempts', 'webhook_payloads',
]);

export interface RelationSize {
  name: string;
  kind: 'history' | 'state';
  /** Heap + TOAST (+ free-space and visibility maps) bytes. */
  tableBytes: number;
  indexes: { name: string; bytes: number }[];
  totalBytes: number;
}

export interface StorageReport {
  nonVoteTransactions: number;
  relations: RelationSize[];
  historyBytes: number;
  stateBytes: number;
  /** History bytes per non-vote transaction and its projection at `txPerSec`. */
  historyBytesPerTx: number;
  projection: { txPerSec: number; gbPerDay: number; gbPer30Days: number; gbPer90Days: number };
}

/** Sizes of every non-empty table of the public schema (partitioned tables summed over their partitions). */
export async function measureStorage(db: Db, nonVoteTransactions: number, txPerSec: number): Promise<StorageReport> {
  const { rows: tables } = await db.query<{ name: string; table_bytes: string }>(
    `SELECT c.relname AS name,
            (CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_table_size(t.relid)), 0) FROM pg_partition_tree(c.oid) t)
                  ELSE pg_table_size(c.oid) END)::text AS table_bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition`,
  );
  const { rows: indexes } = await db.query<{ tbl: string; name: string; bytes: string }>(
    `SELECT t.relname AS tbl, i.relname AS name,
            (CASE WHEN i.relkind = 'I' THEN (SELECT coalesce(sum(pg_relation_size(p.relid)), 0) FROM pg_partition_tree(i.oid) p)
                  ELSE pg_relation_size(i.oid) END)::text AS bytes
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND NOT t.relispartition AND NOT i.relispartition`,
  );
  const relations: RelationSize[] = [];
  for (const t of tables) {
    const idx = indexes.filter((i) => i.tbl === t.name).map((i) => ({ name: i.name, bytes: Number(i.bytes) })).sort((a, b) => b.bytes - a.bytes);
    const tableBytes = Number(t.table_bytes);
    const totalBytes = tableBytes + idx.reduce((s, i) => s + i.bytes, 0);
    if (totalBytes === 0) continue;
    relations.push({ name: t.name, kind: HISTORY_TABLES.has(t.name) ? 'history' : 'state', tableBytes, indexes: idx, totalBytes });
  }
  relations.sort((a, b) => b.totalBytes - a.totalBytes);
  const sum = (k: 'history' | 'state') => relations.filter((r) => r.kind === k).reduce((s, r) => s + r.totalBytes, 0);
  const historyBytes = sum('history');
  const historyBytesPerTx = historyBytes / Math.max(1, nonVoteTransactions);
  const gbPerDay = (historyBytesPerTx * txPerSec * 86_400) / 1e9;
  return {
    nonVoteTransactions,
    relations,
    historyBytes,
    stateBytes: sum('state'),
    historyBytesPerTx: Math.round(historyBytesPerTx),
    projection: { txPerSec, gbPerDay: round1(gbPerDay), gbPer30Days: round1(gbPerDay * 30), gbPer90Days: round1(gbPerDay * 90) },
  };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * Rows for a report table: one per table, then one per index under it; relations and indexes under `minPerTx` bytes
 * per transaction are summed into one closing row.
 */
export function storageRows(r: StorageReport, minPerTx = 5): (string | number)[][] {
  const n = Math.max(1, r.nonVoteTransactions);
  const per = (b: number) => (b / n).toFixed(0);
  const out: (string | number)[][] = [];
  let restBytes = 0;
  let rest = 0;
  for (const rel of r.relations) {
    if (rel.totalBytes / n < minPerTx) {
      restBytes += rel.totalBytes;
      rest++;
      continue;
    }
    out.push([rel.name, rel.kind, (rel.totalBytes / 1e6).toFixed(1), per(rel.totalBytes), `table ${per(rel.tableBytes)}`]);
    for (const i of rel.indexes) {
      if (i.bytes / n >= minPerTx) out.push([`  ${i.name}`, '', (i.bytes / 1e6).toFixed(1), per(i.bytes), 'index']);
    }
  }
  if (rest) out.push([`${rest} other tables with their indexes`, '', (restBytes / 1e6).toFixed(1), per(restBytes), `each < ${minPerTx} bytes/tx`]);
  return out;
}
