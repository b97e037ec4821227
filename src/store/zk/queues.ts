/**
 * Reads of the V2 (batched) queues kept in zk_accounts and zk_address_queue (getQueueElements, getQueueInfo, and
 * the ranges a batch event covers when the glue computes the tree update). Pending queues walk small partial
 * indexes; ranges walk the full (tree, leaf_index) / (tree, nullifier_queue_index) indexes, whatever the flags.
 */
import type { Queryable } from '../db.js';
import type { ZkAccount } from './types.js';
import { b58buf } from './codec.js';
import { ACCOUNT_SELECT, toAccount } from './accounts.js';
import { checkLimit, QUEUE_LIMIT } from './cursors.js';

/** Accounts waiting in a tree's output queue, by leaf index from `startIndex` (inclusive). */
export async function getOutputQueue(q: Queryable, tree: string, opts: { startIndex?: number | null; limit: number }): Promise<ZkAccount[]> {
  checkLimit(opts.limit, QUEUE_LIMIT);
  const params: unknown[] = [b58buf(tree)];
  let where = 'a.tree = $1 AND a.in_output_queue';
  if (opts.startIndex !== undefined && opts.startIndex !== null) {
    params.push(opts.startIndex);
    where += ' AND a.leaf_index >= $2';
  }
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${ACCOUNT_SELECT} FROM zk_accounts a WHERE ${where} ORDER BY a.leaf_index LIMIT ${Math.trunc(opts.limit)}`,
    params,
  );
  return rows.map(toAccount);
}

/** Spent accounts waiting in a tree's input (nullifier) queue, by queue index from `startIndex` (inclusive). */
export async function getInputQueue(q: Queryable, tree: string, opts: { startIndex?: number | null; limit: number }): Promise<ZkAccount[]> {
  checkLimit(opts.limit, QUEUE_LIMIT);
  const params: unknown[] = [b58buf(tree)];
  let where = 'a.tree = $1 AND a.nullifier_queue_index IS NOT NULL AND NOT a.nullified_in_tree AND a.spent';
  if (opts.startIndex !== undefined && opts.startIndex !== null) {
    params.push(opts.startIndex);
    where += ' AND a.nullifier_queue_index >= $2';
  }
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${ACCOUNT_SELECT} FROM zk_accounts a WHERE ${where} ORDER BY a.nullifier_queue_index LIMIT ${Math.trunc(opts.limit)}`,
    params,
  );
  return rows.map(toAccount);
}

/** Accounts of a tree with leaf index in [lo, hi), in leaf order (whatever their queue state). */
export async function getAccountsByLeafRange(q: Queryable, tree: string, lo: number, hi: number): Promise<ZkAccount[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${ACCOUNT_SELECT} FROM zk_accounts a WHERE a.tree = $1 AND a.leaf_index >= $2 AND a.leaf_index < $3
      ORDER BY a.leaf_index`,
    [b58buf(tree), lo, hi],
  );
  return rows.map(toAccount);
}

/** Accounts of a tree with input-queue index in [lo, hi), in queue order (whatever their nullified state). */
export async function getAccountsByNullifierQueueRange(q: Queryable, tree: string, lo: number, hi: number): Promise<ZkAccount[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${ACCOUNT_SELECT} FROM zk_accounts a
      WHERE a.tree = $1 AND a.nullifier_queue_index IS NOT NULL AND a.nullifier_queue_index >= $2 AND a.nullifier_queue_index < $3
      ORDER BY a.nullifier_queue_index`,
    [b58buf(tree), lo, hi],
  );
  return rows.map(toAccount);
}

/** Pending entries per queue of a tree (getQueueInfo). */
export async function getQueueLengths(q: Queryable, tree: string): Promise<{ output: number; input: number; address: number }> {
  const { rows } = await q.query<{ output: number; input: number; address: number }>(
    `SELECT (SELECT count(*)::int FROM zk_accounts WHERE tree = $1 AND in_output_queue) AS output,
            (SELECT count(*)::int FROM zk_accounts WHERE tree = $1 AND nullifier_queue_index IS NOT NULL
                AND NOT nullified_in_tree AND spent) AS input,
            (SELECT count(*)::int FROM zk_address_queue WHERE tree = $1) AS address`,
    [b58buf(tree)],
  );
  return rows[0];
}
