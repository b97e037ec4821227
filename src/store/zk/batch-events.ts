/**
 * Table family "V2 batch events" (zk_batch_events): one row per batched-tree root update (append, nullify, address
 * append), keyed by (tree, seq) and written once. The queue state of accounts and addresses is derived from these
 * rows (see accounts.ts `queueFlagStatements` and indexed-tree.ts), so an event and the entries it covers may
 * arrive in any order or be replayed.
 */
import type { Queryable } from '../db.js';
import type { Statement } from '../bulk.js';
import type { ZkBatchEventRow } from './types.js';
import { b58, b58buf, b58hex, b58n } from './codec.js';
import { mergeBy, unnestFrom, type Col } from './unnest.js';

/** zk_batch_events.kind codes. */
export const EVENT_KIND = { append: 1, nullify: 2, address_append: 3 } as const;
const KIND_NAME = { 1: 'append', 2: 'nullify', 3: 'address_append' } as const;

const COLS: Col<ZkBatchEventRow>[] = [
  { name: 'tree', type: 'bytea', get: (r) => b58hex(r.tree) },
  { name: 'seq', type: 'bigint', get: (r) => r.seq },
  { name: 'kind', type: 'smallint', get: (r) => EVENT_KIND[r.kind] },
  { name: 'old_next_index', type: 'bigint', get: (r) => r.oldNextIndex },
  { name: 'new_next_index', type: 'bigint', get: (r) => r.newNextIndex },
  { name: 'slot', type: 'bigint', get: (r) => r.slot },
  { name: 'signature', type: 'bytea', get: (r) => b58hex(r.signature) },
];

/** Records batch events (first write of a (tree, seq) wins; replays change nothing). Null without rows. */
export function batchEventsStatement(rows: readonly ZkBatchEventRow[]): Statement | null {
  const uniq = mergeBy(rows, (r) => `${r.tree}|${r.seq}`, (a) => a);
  if (!uniq.length) return null;
  const u = unnestFrom('u', COLS, uniq);
  const names = COLS.map((c) => c.name).join(', ');
  return {
    sql: `INSERT INTO zk_batch_events (${names}) SELECT ${names} FROM ${u.sql} ON CONFLICT (tree, seq) DO NOTHING`,
    params: u.params,
  };
}

/** A tree's batch events in seq order (all kinds, or one). */
export async function getBatchEvents(q: Queryable, tree: string, kind?: ZkBatchEventRow['kind']): Promise<ZkBatchEventRow[]> {
  const params: unknown[] = [b58buf(tree)];
  let where = 'tree = $1';
  if (kind) {
    params.push(EVENT_KIND[kind]);
    where += ' AND kind = $2';
  }
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT tree, seq, kind, old_next_index, new_next_index, slot, signature FROM zk_batch_events WHERE ${where} ORDER BY seq`,
    params,
  );
  return rows.map((r) => ({
    tree: b58(r.tree),
    seq: Number(r.seq),
    kind: KIND_NAME[Number(r.kind) as 1 | 2 | 3],
    oldNextIndex: Number(r.old_next_index),
    newNextIndex: Number(r.new_next_index),
    slot: Number(r.slot),
    signature: b58n(r.signature),
  }));
}
