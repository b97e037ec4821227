/**
 * Table family "indexed (address) trees": the elements of each indexed Merkle tree (zk_indexed_elements, newest
 * seq per leaf, as Photon's indexed_trees) and the V2 address queue (zk_address_queue, as Photon's address_queues).
 *
 * Element values are 32-byte big-endian field elements stored as BYTEA, so byte order is numeric order and the low
 * element of a new address x — the largest stored value below x, whose `next_value` bounds the exclusion range —
 * is one backward step on the unique (tree, value) index.
 *
 * The queue keeps the addresses no address-append event has consumed yet: an address whose queue index an
 * event already covers (queue_index < new_next_index − 1, the address tree's zeroth element offsetting indexes by
 * one) is never inserted, and an event deletes what it covers, so events and queue inserts may come in any order.
 */
import type { Queryable } from '../db.js';
import type { Statement } from '../bulk.js';
import type { ZkAddressQueueRow, ZkBatchEventRow, ZkIndexedElement, ZkIndexedElementRow } from './types.js';
import { b58, b58buf, b58hex, numOrNull } from './codec.js';
import { mergeBy, newerSeq, unnestFrom, type Col } from './unnest.js';
import { EVENT_KIND } from './batch-events.js';
import { checkLimit, QUEUE_LIMIT } from './cursors.js';

const ELEMENT_COLS: Col<ZkIndexedElementRow>[] = [
  { name: 'tree', type: 'bytea', get: (r) => b58hex(r.tree) },
  { name: 'leaf_index', type: 'bigint', get: (r) => r.leafIndex },
  { name: 'value', type: 'bytea', get: (r) => b58hex(r.value) },
  { name: 'next_index', type: 'bigint', get: (r) => r.nextIndex },
  { name: 'next_value', type: 'bytea', get: (r) => b58hex(r.nextValue) },
  { name: 'seq', type: 'bigint', get: (r) => r.seq },
];

/** Upserts elements (newest seq per (tree, leaf), guarded against the stored seq). Null without rows. */
export function indexedElementsStatement(rows: readonly ZkIndexedElementRow[]): Statement | null {
  const elements = mergeBy(rows, (r) => `${r.tree}|${r.leafIndex}`, newerSeq);
  if (!elements.length) return null;
  const u = unnestFrom('u', ELEMENT_COLS, elements);
  const names = ELEMENT_COLS.map((c) => c.name).join(', ');
  return {
    sql: `INSERT INTO zk_indexed_elements AS t (${names}) SELECT ${names} FROM ${u.sql}
          ON CONFLICT (tree, leaf_index) DO UPDATE SET value = EXCLUDED.value, next_index = EXCLUDED.next_index,
            next_value = EXCLUDED.next_value, seq = EXCLUDED.seq
          WHERE t.seq IS NULL OR EXCLUDED.seq >= t.seq`,
    params: u.params,
  };
}

const QUEUE_COLS: Col<ZkAddressQueueRow>[] = [
  { name: 'tree', type: 'bytea', get: (r) => b58hex(r.tree) },
  { name: 'address', type: 'bytea', get: (r) => b58hex(r.address) },
  { name: 'queue_index', type: 'bigint', get: (r) => r.queueIndex },
];

/** Queues V2 addresses not yet consumed by a stored address-append event. Null without rows. */
export function addressQueueStatement(rows: readonly ZkAddressQueueRow[]): Statement | null {
  const uniq = mergeBy(rows, (r) => `${r.tree}|${r.address}`, (a) => a);
  if (!uniq.length) return null;
  const u = unnestFrom('u', QUEUE_COLS, uniq);
  return {
    sql: `INSERT INTO zk_address_queue (tree, address, queue_index)
          SELECT u.tree, u.address, u.queue_index FROM ${u.sql}
           WHERE NOT EXISTS (SELECT 1 FROM zk_batch_events e WHERE e.tree = u.tree AND e.kind = ${EVENT_KIND.address_append}
                               AND u.queue_index < e.new_next_index - 1)
          ON CONFLICT (tree, address) DO NOTHING`,
    params: u.params,
  };
}

/** Removes the queue entries a batch's address-append events consumed (Photon: queue_index < new_next_index − 1). */
export function addressQueueConsumedStatement(events: readonly ZkBatchEventRow[]): Statement | null {
  const app = events.filter((e) => e.kind === 'address_append');
  if (!app.length) return null;
  const r = unnestFrom('r', [
    { name: 'tree', type: 'bytea', get: (e: ZkBatchEventRow) => b58hex(e.tree) },
    { name: 'hi', type: 'bigint', get: (e) => e.newNextIndex },
  ], app);
  return {
    sql: `DELETE FROM zk_address_queue q USING ${r.sql} WHERE q.tree = r.tree AND q.queue_index < r.hi - 1`,
    params: r.params,
  };
}

// ---------------------------------------------------------------------------------------------- reads

function toElement(r: Record<string, unknown>): ZkIndexedElement {
  return {
    tree: b58(r.tree),
    leafIndex: Number(r.leaf_index),
    value: b58(r.value),
    nextIndex: Number(r.next_index),
    nextValue: b58(r.next_value),
    seq: numOrNull(r.seq),
  };
}

type TreeValue = { tree: string; value: string; ord: number };
const TV_COLS: Col<TreeValue>[] = [
  { name: 'tree', type: 'bytea', get: (r) => b58hex(r.tree) },
  { name: 'value', type: 'bytea', get: (r) => b58hex(r.value) },
  { name: 'ord', type: 'int', get: (r) => r.ord },
];

/**
 * SQL of the low-element lookup (one index step per query item): exposed for EXPLAIN. `orEqual` takes an element
 * equal to the value too.
 */
export function lowElementsQuery(items: readonly { tree: string; value: string }[], orEqual = false): { sql: string; params: unknown[] } {
  const u = unnestFrom('k', TV_COLS, items.map((it, ord) => ({ ...it, ord })));
  return {
    sql: `SELECT k.ord, e.tree, e.leaf_index, e.value, e.next_index, e.next_value, e.seq FROM ${u.sql}
          LEFT JOIN LATERAL (
            SELECT x.tree, x.leaf_index, x.value, x.next_index, x.next_value, x.seq FROM zk_indexed_elements x
             WHERE x.tree = k.tree AND x.value ${orEqual ? '<=' : '<'} k.value ORDER BY x.value DESC LIMIT 1
          ) e ON true`,
    params: u.params,
  };
}

/**
 * For each (tree, value): the element with the largest value strictly below it (the low element of a new address),
 * or null when the tree holds no smaller value. Aligned with the input. With `orEqual`, an element holding the
 * value itself comes first (the address exists): one statement answers both questions.
 */
export async function getLowElements(q: Queryable, items: readonly { tree: string; value: string }[], orEqual = false): Promise<(ZkIndexedElement | null)[]> {
  if (!items.length) return [];
  const { sql, params } = lowElementsQuery(items, orEqual);
  const { rows } = await q.query<Record<string, unknown>>(sql, params);
  const out: (ZkIndexedElement | null)[] = items.map(() => null);
  for (const r of rows) if (r.tree !== null) out[Number(r.ord)] = toElement(r);
  return out;
}

/** For each (tree, value): the element holding exactly that value (the address already exists), or null. Aligned. */
export async function getElementsByValue(q: Queryable, items: readonly { tree: string; value: string }[]): Promise<(ZkIndexedElement | null)[]> {
  if (!items.length) return [];
  const u = unnestFrom('k', TV_COLS, items.map((it, ord) => ({ ...it, ord })));
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT k.ord, x.tree, x.leaf_index, x.value, x.next_index, x.next_value, x.seq FROM ${u.sql}
       JOIN zk_indexed_elements x ON x.tree = k.tree AND x.value = k.value`,
    u.params,
  );
  const out: (ZkIndexedElement | null)[] = items.map(() => null);
  for (const r of rows) out[Number(r.ord)] = toElement(r);
  return out;
}

/** Elements of one tree by leaf index. */
export async function getIndexedElements(q: Queryable, tree: string, leafIndexes: readonly number[]): Promise<Map<number, ZkIndexedElement>> {
  const out = new Map<number, ZkIndexedElement>();
  if (!leafIndexes.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT tree, leaf_index, value, next_index, next_value, seq FROM zk_indexed_elements
      WHERE tree = $1 AND leaf_index = ANY($2::bigint[])`,
    [b58buf(tree), [...new Set(leafIndexes)]],
  );
  for (const r of rows) out.set(Number(r.leaf_index), toElement(r));
  return out;
}

/** The next free leaf index of an indexed tree (highest stored leaf + 1; 0 when empty). */
export async function getIndexedTreeNextIndex(q: Queryable, tree: string): Promise<number> {
  const { rows } = await q.query<{ m: string | null }>(
    'SELECT max(leaf_index)::text AS m FROM zk_indexed_elements WHERE tree = $1',
    [b58buf(tree)],
  );
  return rows[0].m === null ? 0 : Number(rows[0].m) + 1;
}

/** Queued addresses of one tree in queue order, from `startIndex` (inclusive). */
export async function getAddressQueue(q: Queryable, tree: string, opts: { startIndex?: number | null; limit: number }): Promise<ZkAddressQueueRow[]> {
  checkLimit(opts.limit, QUEUE_LIMIT);
  const params: unknown[] = [b58buf(tree)];
  let where = 'tree = $1';
  if (opts.startIndex !== undefined && opts.startIndex !== null) {
    params.push(opts.startIndex);
    where += ' AND queue_index >= $2';
  }
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT tree, address, queue_index FROM zk_address_queue WHERE ${where} ORDER BY queue_index LIMIT ${Math.trunc(opts.limit)}`,
    params,
  );
  return rows.map((r) => ({ tree: b58(r.tree), address: b58(r.address), queueIndex: Number(r.queue_index) }));
}

/** Which of these (tree, address) pairs wait in the address queue (aligned with the input). */
export async function getQueuedAddresses(q: Queryable, items: readonly { tree: string; address: string }[]): Promise<(ZkAddressQueueRow | null)[]> {
  if (!items.length) return [];
  const u = unnestFrom('k', TV_COLS, items.map((it, ord) => ({ tree: it.tree, value: it.address, ord })));
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT k.ord, a.tree, a.address, a.queue_index FROM ${u.sql}
       JOIN zk_address_queue a ON a.tree = k.tree AND a.address = k.value`,
    u.params,
  );
  const out: (ZkAddressQueueRow | null)[] = items.map(() => null);
  for (const r of rows) out[Number(r.ord)] = { tree: b58(r.tree), address: b58(r.address), queueIndex: Number(r.queue_index) };
  return out;
}
