/**
 * Table family "tree metadata" (zk_trees, Photon's tree_metadata): which Merkle trees exist, their queue, type,
 * height and root-history capacity. Loaded from a config file (the format of Photon's test tree metadata:
 * `{ expectedTreeOwner?, trees: [{ tree, queue, treeType | treeTypeCode, height, rootHistoryCapacity }] }`) or
 * discovered from chain. An upsert replaces a tree's row (the last writer wins).
 */
import type { Queryable } from '../db.js';
import type { Statement } from '../bulk.js';
import { TREE_TYPE, type TreeTypeCode, type ZkTreeRow } from './types.js';
import { asBytes, b58, b58array, b58hex, b58n, numOrNull } from './codec.js';
import type { StoredNodeHash } from './state-tree.js';
import { mergeBy, unnestFrom, type Col } from './unnest.js';

const COLS: Col<ZkTreeRow>[] = [
  { name: 'tree', type: 'bytea', get: (r) => b58hex(r.tree) },
  { name: 'queue', type: 'bytea', get: (r) => b58hex(r.queue) },
  { name: 'tree_type', type: 'smallint', get: (r) => r.treeType },
  { name: 'height', type: 'int', get: (r) => r.height },
  { name: 'root_history_capacity', type: 'bigint', get: (r) => r.rootHistoryCapacity },
  { name: 'owner', type: 'bytea', get: (r) => b58hex(r.owner) },
  { name: 'source', type: 'text', get: (r) => r.source },
];

/** Inserts or replaces tree rows (the later of duplicates wins). Null without rows. */
export function treesStatement(rows: readonly ZkTreeRow[]): Statement | null {
  const uniq = mergeBy(rows, (r) => r.tree, (_a, b) => b);
  if (!uniq.length) return null;
  const u = unnestFrom('u', COLS, uniq);
  const names = COLS.map((c) => c.name);
  return {
    sql: `INSERT INTO zk_trees AS t (${names.join(', ')}) SELECT ${names.join(', ')} FROM ${u.sql}
          ON CONFLICT (tree) DO UPDATE SET ${names.filter((n) => n !== 'tree').map((n) => `${n} = EXCLUDED.${n}`).join(', ')}
          WHERE (${names.map((n) => `t.${n}`).join(', ')}) IS DISTINCT FROM (${names.map((n) => `EXCLUDED.${n}`).join(', ')})`,
    params: u.params,
  };
}

/** Runs {@link treesStatement}. */
export async function upsertTrees(q: Queryable, rows: readonly ZkTreeRow[]): Promise<void> {
  const s = treesStatement(rows);
  if (s) await q.query(s.sql, s.params);
}

const TYPE_BY_NAME: Record<string, TreeTypeCode> = TREE_TYPE;

/**
 * Tree rows from a tree-metadata config document (parsed JSON). `treeTypeCode` wins over `treeType` when both are
 * given; `owner` per tree falls back to the document's `expectedTreeOwner`. Throws on a malformed entry.
 */
export function parseTreeMetadataConfig(doc: unknown): ZkTreeRow[] {
  const d = doc as { expectedTreeOwner?: unknown; trees?: unknown };
  if (!d || typeof d !== 'object' || !Array.isArray(d.trees)) throw new Error('tree metadata: expected { trees: [...] }');
  const owner = typeof d.expectedTreeOwner === 'string' ? d.expectedTreeOwner : null;
  return d.trees.map((t: Record<string, unknown>, i: number) => {
    const code = typeof t.treeTypeCode === 'number' ? t.treeTypeCode : TYPE_BY_NAME[String(t.treeType)];
    if (![1, 2, 3, 4].includes(code as number)) throw new Error(`tree metadata: trees[${i}] has no known tree type`);
    for (const k of ['tree', 'queue'] as const) {
      if (typeof t[k] !== 'string') throw new Error(`tree metadata: trees[${i}].${k} must be a base58 string`);
    }
    for (const k of ['height', 'rootHistoryCapacity'] as const) {
      if (!Number.isInteger(t[k])) throw new Error(`tree metadata: trees[${i}].${k} must be an integer`);
    }
    return {
      tree: t.tree as string,
      queue: t.queue as string,
      treeType: code as TreeTypeCode,
      height: t.height as number,
      rootHistoryCapacity: t.rootHistoryCapacity as number,
      owner: typeof t.owner === 'string' ? t.owner : owner,
      source: 'config' as const,
    };
  });
}

function toTree(r: Record<string, unknown>): ZkTreeRow {
  return {
    tree: b58(r.tree),
    queue: b58(r.queue),
    treeType: Number(r.tree_type) as TreeTypeCode,
    height: Number(r.height),
    rootHistoryCapacity: Number(r.root_history_capacity),
    owner: b58n(r.owner),
    source: r.source as 'config' | 'chain',
  };
}

const SELECT = 'SELECT tree, queue, tree_type, height, root_history_capacity, owner, source FROM zk_trees';

/** Trees by tree address. */
export async function getTrees(q: Queryable, trees: readonly string[]): Promise<Map<string, ZkTreeRow>> {
  const out = new Map<string, ZkTreeRow>();
  if (!trees.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(`${SELECT} WHERE tree = ANY($1::bytea[])`, [b58array(trees)]);
  for (const r of rows) out.set(b58(r.tree), toTree(r));
  return out;
}

/**
 * Trees by tree address, and in the same query each one's current root (node 1 in zk_state_nodes: hash and seq;
 * absent for a tree with no stored nodes). A tree not in zk_trees is in neither map.
 */
export async function getTreesWithRoots(q: Queryable, trees: readonly string[]): Promise<{ trees: Map<string, ZkTreeRow>; roots: Map<string, StoredNodeHash> }> {
  const out = { trees: new Map<string, ZkTreeRow>(), roots: new Map<string, StoredNodeHash>() };
  if (!trees.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT t.tree, t.queue, t.tree_type, t.height, t.root_history_capacity, t.owner, t.source, n.hash AS root_hash, n.seq AS root_seq
       FROM zk_trees t LEFT JOIN zk_state_nodes n ON n.tree = t.tree AND n.node_idx = 1
      WHERE t.tree = ANY($1::bytea[])`,
    [b58array(trees)],
  );
  for (const r of rows) {
    const tree = b58(r.tree);
    out.trees.set(tree, toTree(r));
    if (r.root_hash !== null && r.root_hash !== undefined) out.roots.set(tree, { hash: asBytes(r.root_hash), seq: numOrNull(r.root_seq) });
  }
  return out;
}

/** Trees by queue address (a V2 address tree is its own queue). Keyed by queue. */
export async function getTreesByQueue(q: Queryable, queues: readonly string[]): Promise<Map<string, ZkTreeRow>> {
  const out = new Map<string, ZkTreeRow>();
  if (!queues.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(`${SELECT} WHERE queue = ANY($1::bytea[])`, [b58array(queues)]);
  for (const r of rows) out.set(b58(r.queue), toTree(r));
  return out;
}

/** Every known tree (a few hundred at most), in byte order of the tree address. */
export async function listTrees(q: Queryable): Promise<ZkTreeRow[]> {
  const { rows } = await q.query<Record<string, unknown>>(`${SELECT} ORDER BY tree`);
  return rows.map(toTree);
}
