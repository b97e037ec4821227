/**
 * Table family "state tree nodes" (zk_state_nodes): one row per (tree, node index) holding the newest hash, as
 * Photon's state_trees (src/ingester/persist/leaf_node.rs). A node is replaced only by a row with an equal or higher
 * seq (or when the stored seq is null), so replaying earlier updates never rolls a node back. The hashes themselves
 * are computed by the proof maths (src/proofs/light) from {@link getStateNodes} before writing.
 *
 * Node index: root = 1, children of n at 2n and 2n+1; a tree of height h (levels below the root) keeps leaf i at
 * 2^h + i. Indexed (address) trees keep their leaves here too, with h = height + 1 as Photon does.
 */
import type { Queryable } from '../db.js';
import { arrayLiteral, type Statement } from '../bulk.js';
import type { ZkStateNode, ZkStateNodeRow } from './types.js';
import { asBytes, b58, b58buf, b58hex, numOrNull } from './codec.js';
import { mergeBy, newerSeq, unnestFrom, type Col } from './unnest.js';

const COLS: Col<ZkStateNodeRow>[] = [
  { name: 'tree', type: 'bytea', get: (r) => b58hex(r.tree) },
  { name: 'node_idx', type: 'bigint', get: (r) => r.nodeIdx },
  { name: 'leaf_idx', type: 'bigint', get: (r) => r.leafIdx },
  { name: 'level', type: 'int', get: (r) => r.level },
  { name: 'hash', type: 'bytea', get: (r) => b58hex(r.hash) },
  { name: 'seq', type: 'bigint', get: (r) => r.seq },
];

/** Upserts nodes (per node the newest seq of the batch, then guarded against the stored seq). Null without rows. */
export function stateNodesStatement(rows: readonly ZkStateNodeRow[]): Statement | null {
  const nodes = mergeBy(rows, (r) => `${r.tree}|${r.nodeIdx}`, newerSeq);
  if (!nodes.length) return null;
  const u = unnestFrom('u', COLS, nodes);
  const names = COLS.map((c) => c.name).join(', ');
  return {
    sql: `INSERT INTO zk_state_nodes AS t (${names}) SELECT ${names} FROM ${u.sql}
          ON CONFLICT (tree, node_idx) DO UPDATE SET leaf_idx = EXCLUDED.leaf_idx, level = EXCLUDED.level,
            hash = EXCLUDED.hash, seq = EXCLUDED.seq
          WHERE t.seq IS NULL OR EXCLUDED.seq >= t.seq`,
    params: u.params,
  };
}

function toNode(r: Record<string, unknown>): ZkStateNode {
  return {
    tree: b58(r.tree),
    nodeIdx: Number(r.node_idx),
    leafIdx: numOrNull(r.leaf_idx),
    level: Number(r.level),
    hash: b58(r.hash),
    seq: numOrNull(r.seq),
  };
}

/** Stored nodes of one tree by node index (nodes never written are absent: they hold the zero hash of their level). */
export async function getStateNodes(q: Queryable, tree: string, nodeIdxs: readonly number[]): Promise<Map<number, ZkStateNode>> {
  const out = new Map<number, ZkStateNode>();
  if (!nodeIdxs.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(
    'SELECT tree, node_idx, leaf_idx, level, hash, seq FROM zk_state_nodes WHERE tree = $1 AND node_idx = ANY($2::bigint[])',
    [b58buf(tree), [...new Set(nodeIdxs)]],
  );
  for (const r of rows) out.set(Number(r.node_idx), toNode(r));
  return out;
}

/** Key of {@link getStateNodesOfTrees}' map. */
export const nodeKey = (tree: string, nodeIdx: number) => `${tree}:${nodeIdx}`;

/** Stored nodes of several trees in one query, keyed by {@link nodeKey}. */
export async function getStateNodesOfTrees(q: Queryable, keys: readonly { tree: string; nodeIdx: number }[]): Promise<Map<string, ZkStateNode>> {
  const out = new Map<string, ZkStateNode>();
  if (!keys.length) return out;
  const uniq = mergeBy(keys, (k) => nodeKey(k.tree, k.nodeIdx), (a) => a);
  const u = unnestFrom('k', [
    { name: 'tree', type: 'bytea', get: (k: { tree: string; nodeIdx: number }) => b58hex(k.tree) },
    { name: 'node_idx', type: 'bigint', get: (k) => k.nodeIdx },
  ], uniq);
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT n.tree, n.node_idx, n.leaf_idx, n.level, n.hash, n.seq FROM ${u.sql}
       JOIN zk_state_nodes n ON n.tree = k.tree AND n.node_idx = k.node_idx`,
    u.params,
  );
  for (const r of rows) {
    const n = toNode(r);
    out.set(nodeKey(n.tree, n.nodeIdx), n);
  }
  return out;
}

/** A stored node's hash (32 bytes) and sequence number, as {@link getNodeHashes} returns them. */
export interface StoredNodeHash {
  hash: Uint8Array;
  seq: number | null;
}

/** SQL of {@link getNodeHashes}: exposed for EXPLAIN. */
export function nodeHashesQuery(keys: ReadonlyMap<string, readonly number[]>): { sql: string; params: unknown[] } {
  const trees = [...keys.keys()];
  const t: number[] = [];
  const idx: number[] = [];
  trees.forEach((tree, i) => {
    for (const n of new Set(keys.get(tree))) {
      t.push(i + 1);
      idx.push(n);
    }
  });
  return {
    sql: `SELECT k.t, k.node_idx, n.hash, n.seq
            FROM unnest($1::int[], $2::bigint[]) AS k(t, node_idx)
            JOIN zk_state_nodes n ON n.tree = ($3::bytea[])[k.t] AND n.node_idx = k.node_idx`,
    params: [arrayLiteral(t), arrayLiteral(idx), arrayLiteral(trees.map((tr) => b58hex(tr)))],
  };
}

/**
 * The stored nodes of several trees in one query, as bytes: `keys` maps each tree to the node indexes wanted; the
 * result maps each tree to its nodes found (nodes never written are absent: they hold the zero hash of their
 * level). The proof methods read their nodes this way (no base58 round trip per node).
 */
export async function getNodeHashes(q: Queryable, keys: ReadonlyMap<string, readonly number[]>): Promise<Map<string, Map<number, StoredNodeHash>>> {
  const out = new Map<string, Map<number, StoredNodeHash>>();
  const trees = [...keys.keys()];
  for (const tree of trees) out.set(tree, new Map());
  if (![...keys.values()].some((k) => k.length)) return out;
  const { sql, params } = nodeHashesQuery(keys);
  const { rows } = await q.query<{ t: number; node_idx: string | number; hash: Uint8Array; seq: string | number | null }>(sql, params);
  for (const r of rows) {
    out.get(trees[Number(r.t) - 1])!.set(Number(r.node_idx), { hash: asBytes(r.hash), seq: numOrNull(r.seq) });
  }
  return out;
}
