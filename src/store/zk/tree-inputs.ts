/**
 * Reads the ingester needs to move the Merkle trees of a batch (see src/ingest/zk-tree-nodes.ts): the leaves a V2
 * batch append covers (queued output accounts by leaf index), the nullifiers a batch nullify covers (input-queue
 * entries by queue index), the addresses a batch address append covers (address-queue entries by queue index), and
 * the sequence number of each tree's stored root. Each is one indexed range or key lookup.
 */
import type { Queryable } from '../db.js';
import { b58, b58buf, b58n } from './codec.js';

/** Stored accounts of `tree` whose leaf index is in [from, to): what a batch append inserts. */
export async function getLeavesInRange(q: Queryable, tree: string, from: number, to: number): Promise<{ leafIndex: number; hash: string }[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT leaf_index, hash FROM zk_accounts WHERE tree = $1 AND leaf_index >= $2 AND leaf_index < $3 AND owner IS NOT NULL`,
    [b58buf(tree), from, to],
  );
  return rows.map((r) => ({ leafIndex: Number(r.leaf_index), hash: b58(r.hash) }));
}

/** Stored input-queue entries of `tree` with queue index in [from, to): what a batch nullify inserts. */
export async function getNullifiersInRange(
  q: Queryable,
  tree: string,
  from: number,
  to: number,
): Promise<{ queueIndex: number; leafIndex: number | null; nullifier: string | null }[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT nullifier_queue_index, leaf_index, nullifier FROM zk_accounts
      WHERE tree = $1 AND nullifier_queue_index >= $2 AND nullifier_queue_index < $3`,
    [b58buf(tree), from, to],
  );
  return rows.map((r) => ({
    queueIndex: Number(r.nullifier_queue_index),
    leafIndex: r.leaf_index === null ? null : Number(r.leaf_index),
    nullifier: b58n(r.nullifier),
  }));
}

/** Queued addresses of `tree` with queue index in [from, to): what a batch address append inserts. */
export async function getQueuedAddressesInRange(q: Queryable, tree: string, from: number, to: number): Promise<{ queueIndex: number; address: string }[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT queue_index, address FROM zk_address_queue WHERE tree = $1 AND queue_index >= $2 AND queue_index < $3`,
    [b58buf(tree), from, to],
  );
  return rows.map((r) => ({ queueIndex: Number(r.queue_index), address: b58(r.address) }));
}

/** Whether an indexed (address) tree has any stored element (a tree nothing was written to holds none). */
export async function hasIndexedElements(q: Queryable, tree: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM zk_indexed_elements WHERE tree = $1 LIMIT 1', [b58buf(tree)]);
  return rows.length > 0;
}
