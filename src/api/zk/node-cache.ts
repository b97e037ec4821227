/**
 * Tree nodes for the proof methods, remembered across requests for the root they were read at.
 *
 * A request first reads the current root (node 1, with its sequence number) of each of its trees — with the trees'
 * metadata (`getTreesWithRoots`) or in one small query.
 * Nodes remembered for a tree are used only while that tree's current root is still the root they were read with:
 * a root commits to every node of its tree, so the nodes read in a snapshot whose root is R are the nodes of any
 * later snapshot whose root is R, and a changed root drops them. The nodes not remembered are read in one query
 * together with node 1; when that root differs from the one just read (a block committed in between), the tree's
 * nodes are all read again in one snapshot and nothing is remembered from it. Nodes the store does not hold (zero
 * hashes of their level) are remembered as absent. Every proof is still verified against the root read in the
 * request before it is returned (state-proofs.ts, address-proofs.ts): the memory only saves reading the nodes, and
 * nodes read from the store are remembered only once every proof of the request built from them has verified
 * (`keep`), so a node that fails is read from the store again next time.
 *
 * Bounded: at most {@link NODE_CACHE_SIZE} nodes over all trees (≈ 70 bytes each); past it other trees' nodes are
 * dropped, the largest tree first, then the tree's own.
 */
import { nodesEqual } from '../../proofs/hash.js';
import type { Queryable } from '../../store/db.js';
import { getNodeHashes, type StoredNodeHash } from '../../store/zk/state-tree.js';

/** Most nodes remembered over all trees. */
export const NODE_CACHE_SIZE = 1 << 17;

const ABSENT = -1;

/** The remembered nodes of one tree at one root. */
interface Epoch {
  root: Uint8Array;
  /** Node index → slot in `bytes`, or ABSENT. */
  slots: Map<number, number>;
  bytes: Uint8Array;
  used: number;
}

const epochs = new Map<string, Epoch>();
let total = 0;

function drop(tree: string): void {
  const e = epochs.get(tree);
  if (e !== undefined) {
    total -= e.slots.size;
    epochs.delete(tree);
  }
}

/** Remembers the nodes `idxs` of `tree` read in one snapshot whose root is `root` (absent ones too). */
function remember(tree: string, root: Uint8Array, idxs: readonly number[], found: Map<number, StoredNodeHash>): void {
  let e = epochs.get(tree);
  if (e !== undefined && !nodesEqual(e.root, root)) {
    drop(tree);
    e = undefined;
  }
  const fresh = idxs.filter((n) => n !== 1 && !(e?.slots.has(n) ?? false));
  if (total + fresh.length > NODE_CACHE_SIZE) {
    // other trees first, the largest first, then this tree's own
    const others = [...epochs].filter(([t]) => t !== tree).sort((a, b) => b[1].slots.size - a[1].slots.size);
    for (const [other] of others) {
      if (total + fresh.length <= NODE_CACHE_SIZE) break;
      drop(other);
    }
    if (total + fresh.length > NODE_CACHE_SIZE) {
      drop(tree);
      e = undefined;
    }
    if (fresh.length > NODE_CACHE_SIZE) return;
  }
  if (e === undefined) {
    e = { root: root.slice(), slots: new Map(), bytes: new Uint8Array(32 * 256), used: 0 };
    epochs.set(tree, e);
  }
  for (const n of fresh) {
    if (e.slots.has(n)) continue; // listed twice
    const node = found.get(n);
    if (node === undefined) {
      e.slots.set(n, ABSENT);
    } else {
      if ((e.used + 1) * 32 > e.bytes.length) {
        const grown = new Uint8Array(e.bytes.length * 2);
        grown.set(e.bytes);
        e.bytes = grown;
      }
      e.bytes.set(node.hash, e.used * 32);
      e.slots.set(n, e.used++);
    }
    total++;
  }
}

/** Nodes remembered (for tests and metrics). */
export function nodeCacheSize(): number {
  return total;
}

/** Forgets every remembered node. */
export function clearNodeCache(): void {
  epochs.clear();
  total = 0;
}

/** What {@link readTreeNodes} returns. */
export interface TreeNodesRead {
  /** Per tree, the nodes the store holds (absent ones hold the zero hash of their level), node 1 included. */
  nodes: Map<string, Map<number, StoredNodeHash>>;
  /** Remembers the nodes read from the store: call once every proof built from them has verified. */
  keep(): void;
}

/** The current root (node 1, with its sequence number) of each tree: the first read of {@link readTreeNodes}. */
export async function readRoots(q: Queryable, trees: readonly string[]): Promise<Map<string, StoredNodeHash>> {
  const found = await getNodeHashes(q, new Map(trees.map((t) => [t, [1]])));
  const out = new Map<string, StoredNodeHash>();
  for (const [tree, nodes] of found) {
    const root = nodes.get(1);
    if (root !== undefined) out.set(tree, root);
  }
  return out;
}

/**
 * The nodes `keys` (tree → node indexes) of several trees, with node 1 (the root, with its sequence number) of each.
 * Each tree's nodes are those of one root: the one in its node 1. `roots`, when given, are these trees' current
 * roots as the caller read them (`getTreesWithRoots`); a tree missing from it is read as asked, not remembered.
 */
export async function readTreeNodes(
  q: Queryable,
  keys: ReadonlyMap<string, readonly number[]>,
  roots?: ReadonlyMap<string, StoredNodeHash>,
): Promise<TreeNodesRead> {
  const trees = [...keys.keys()];
  const out = new Map<string, Map<number, StoredNodeHash>>();
  const kept: (() => void)[] = [];
  const result = { nodes: out, keep: () => kept.forEach((f) => f()) };
  if (!trees.length) return result;
  const current = roots ?? (await readRoots(q, trees));
  const missing = new Map<string, number[]>();
  for (const tree of trees) {
    const root = current.get(tree);
    const want = [...new Set(keys.get(tree))].filter((n) => n !== 1);
    const nodes = new Map<number, StoredNodeHash>();
    out.set(tree, nodes);
    if (root === undefined) {
      // nothing stored for this tree (or no root yet): read as asked, remember nothing
      drop(tree);
      missing.set(tree, [1, ...want]);
      continue;
    }
    nodes.set(1, root);
    let e = epochs.get(tree);
    if (e !== undefined && !nodesEqual(e.root, root.hash)) {
      drop(tree);
      e = undefined;
    }
    const miss: number[] = [];
    for (const n of want) {
      const slot = e?.slots.get(n);
      if (slot === undefined) miss.push(n);
      else if (slot !== ABSENT) nodes.set(n, { hash: e!.bytes.subarray(slot * 32, slot * 32 + 32), seq: null });
    }
    if (miss.length) missing.set(tree, [1, ...miss]);
  }
  if (!missing.size) return result;
  const fresh = await getNodeHashes(q, missing);
  const changed: string[] = [];
  for (const [tree, idxs] of missing) {
    const found = fresh.get(tree)!;
    const nodes = out.get(tree)!;
    const before = nodes.get(1);
    const root = found.get(1);
    if (before === undefined) {
      // not cached: this snapshot as it is
      out.set(tree, found);
      continue;
    }
    if (root === undefined || !nodesEqual(root.hash, before.hash)) {
      changed.push(tree);
      continue;
    }
    for (const [n, node] of found) nodes.set(n, node);
    kept.push(() => remember(tree, root.hash, idxs, found));
  }
  if (changed.length) {
    // the root moved between the two reads: every node of those trees again, in one snapshot, not remembered
    for (const tree of changed) drop(tree);
    const again = await getNodeHashes(q, new Map(changed.map((t) => [t, [1, ...(keys.get(t) ?? [])]])));
    for (const tree of changed) out.set(tree, again.get(tree)!);
  }
  return result;
}
