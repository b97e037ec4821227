/**
 * Node-index arithmetic of concurrent Merkle trees, in the numbering the DAS reference
 * (metaplex-foundation/digital-asset-rpc-infrastructure) stores in `cl_items` and returns as getAssetProof's
 * `node_index`:
 *
 * - a tree of depth d has nodes 1 .. 2^(d+1)-1 in heap order: the root is 1, the children of n are 2n and 2n+1;
 * - leaf i is node 2^d + i; the level of a node counts up from the leaves (leaf = 0, root = d);
 * - a ChangeLog event's `path` lists the nodes written by one tree operation, leaf first and root last
 *   (`path[k].index = (2^d + leafIndex) >> k`, the root's index is 1), as built by spl-account-compression's
 *   `From<ChangeLog> for ChangeLogEvent`. The reference writes `path[k]` as the row
 *   `(node_idx = path[k].index, level = k, hash = path[k].node)` and records `leaf_idx` on the level-0 row
 *   (`insert_change_log` in program_transformers/src/bubblegum/db.rs), keeping the row with the highest `seq`.
 * - a proof for leaf i lists the siblings of the nodes on its path, bottom-up (`get_required_nodes_for_proof`
 *   returns these plus the root, node 1).
 *
 * Indexes fit in JS numbers (depth ≤ 30 ⇒ node indexes < 2^31); the maths uses division rather than 32-bit
 * bit operators so nothing depends on signed-int overflow.
 */
import { SolgateError } from '../core/errors.js';
import { MAX_TREE_DEPTH, NODE_BYTES } from './hash.js';

/** One entry of a ChangeLog event's path (`PathNode { node: [u8; 32], index: u32 }`). */
export interface ChangeLogPathNode {
  /** Hash of the node after the operation. */
  node: Uint8Array;
  /** Heap index of the node (root = 1). */
  index: number;
}

/** A node row as the indexer stores it (one per `(tree, nodeIndex)`, newest `seq` wins). */
export interface NodeRow {
  nodeIndex: number;
  /** 0 for the leaf, depth for the root. */
  level: number;
  hash: Uint8Array;
  /** Leaf index on the level-0 row, null on inner nodes and the root. */
  leafIndex: number | null;
}

function fail(message: string, context: Record<string, unknown>): never {
  throw new SolgateError('INTERNAL', message, { context });
}

function isUint(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/** Throws unless `depth` is an integer in 0..30. */
export function assertDepth(depth: number): void {
  if (!Number.isInteger(depth) || depth < 0 || depth > MAX_TREE_DEPTH) {
    fail(`tree depth must be an integer in 0..${MAX_TREE_DEPTH}`, { depth });
  }
}

/** Number of leaves of a tree of `depth` (2^depth). */
export function leafCount(depth: number): number {
  assertDepth(depth);
  return 2 ** depth;
}

/** Throws unless `leafIndex` is a leaf of a tree of `depth`. */
export function assertLeafIndex(leafIndex: number, depth: number): void {
  if (!isUint(leafIndex) || leafIndex >= leafCount(depth)) fail('leaf index out of range', { leafIndex, depth });
}

/** Heap index of leaf `leafIndex` (getAssetProof's `node_index`): 2^depth + leafIndex. */
export function leafNodeIndex(leafIndex: number, depth: number): number {
  assertLeafIndex(leafIndex, depth);
  return 2 ** depth + leafIndex;
}

/** Leaf index of the leaf node `nodeIndex` (reference `node_idx_to_leaf_idx`): nodeIndex - 2^depth. */
export function leafIndexOfNode(nodeIndex: number, depth: number): number {
  if (nodeLevel(nodeIndex, depth) !== 0) fail('node is not a leaf', { nodeIndex, depth });
  return nodeIndex - 2 ** depth;
}

/** Level of a node above the leaves: depth - floor(log2(nodeIndex)); throws when outside the tree. */
export function nodeLevel(nodeIndex: number, depth: number): number {
  assertDepth(depth);
  if (!isUint(nodeIndex) || nodeIndex < 1 || nodeIndex >= 2 ** (depth + 1)) {
    fail('node index outside the tree', { nodeIndex, depth });
  }
  return depth - (31 - Math.clz32(nodeIndex));
}

/** Parent of a non-root node: floor(nodeIndex / 2). */
export function parentNodeIndex(nodeIndex: number): number {
  if (!isUint(nodeIndex) || nodeIndex < 2) fail('the root has no parent', { nodeIndex });
  return Math.floor(nodeIndex / 2);
}

/** Sibling of a non-root node: the other child of its parent (n + 1 for even n, n - 1 for odd n). */
export function siblingNodeIndex(nodeIndex: number): number {
  if (!isUint(nodeIndex) || nodeIndex < 2) fail('the root has no sibling', { nodeIndex });
  return nodeIndex % 2 === 0 ? nodeIndex + 1 : nodeIndex - 1;
}

/** True when the node is a left child (even index); hashing puts it first. */
export function isLeftChild(nodeIndex: number): boolean {
  return nodeIndex % 2 === 0;
}

/** Nodes on the path of a leaf, leaf first and root (1) last: `depth + 1` indexes, the ChangeLog path order. */
export function pathNodeIndexes(leafIndex: number, depth: number): number[] {
  const out: number[] = [];
  for (let n = leafNodeIndex(leafIndex, depth); n >= 1; n = Math.floor(n / 2)) out.push(n);
  return out;
}

/** Siblings needed to prove a leaf, bottom-up (`proof[k]` sits at level k): `depth` indexes. */
export function proofNodeIndexes(leafIndex: number, depth: number): number[] {
  const out: number[] = [];
  for (let n = leafNodeIndex(leafIndex, depth); n > 1; n = Math.floor(n / 2)) out.push(siblingNodeIndex(n));
  return out;
}

/**
 * The reference's `get_required_nodes_for_proof(node_index)`: the siblings bottom-up followed by the root (1);
 * the node at position k of the list is at level k. Takes the leaf's node index (getAssetProof `node_index`).
 */
export function requiredNodeIndexes(leafNodeIdx: number): number[] {
  if (!isUint(leafNodeIdx) || leafNodeIdx < 1) fail('node index must be ≥ 1', { nodeIndex: leafNodeIdx });
  const out: number[] = [];
  for (let n = leafNodeIdx; n > 1; n = Math.floor(n / 2)) out.push(siblingNodeIndex(n));
  out.push(1);
  return out;
}

/** Depth of the tree a ChangeLog path belongs to (path length - 1). */
export function changeLogDepth(path: readonly ChangeLogPathNode[]): number {
  return path.length - 1;
}

/**
 * Why a ChangeLog path is malformed, or null when it is well formed: 1..31 entries (depth 0..30), 32-byte
 * nodes, a leaf index inside the tree, each index the parent of the previous one and the root last (index 1).
 */
export function changeLogPathProblem(path: readonly ChangeLogPathNode[]): string | null {
  const depth = changeLogDepth(path);
  if (depth < 0 || depth > MAX_TREE_DEPTH) return `path length ${path.length} is not in 1..${MAX_TREE_DEPTH + 1}`;
  const first = path[0].index;
  if (!isUint(first) || first < 2 ** depth || first >= 2 ** (depth + 1)) {
    return `leaf node index ${first} is not a leaf of a depth-${depth} tree`;
  }
  for (let k = 0; k < path.length; k++) {
    const { node, index } = path[k];
    if (!(node instanceof Uint8Array) || node.length !== NODE_BYTES) return `path[${k}].node is not 32 bytes`;
    const expected = Math.floor(first / 2 ** k);
    if (index !== expected) return `path[${k}].index is ${index}, expected ${expected}`;
  }
  return null;
}

/**
 * Node rows written for one ChangeLog event, in path order (leaf first, root last): row k is
 * `{nodeIndex: path[k].index, level: k, hash: path[k].node}`, and the leaf row carries
 * `leafIndex = path[0].index - 2^depth`. Exactly what the reference's `insert_change_log` upserts; the caller
 * applies them guarded by the event's `seq` (a row is replaced only by an equal or higher `seq`). Throws on a
 * malformed path (see `changeLogPathProblem`).
 */
export function changeLogPathToRows(path: readonly ChangeLogPathNode[]): NodeRow[] {
  const problem = changeLogPathProblem(path);
  if (problem !== null) fail(`malformed change-log path: ${problem}`, { length: path.length });
  const depth = changeLogDepth(path);
  return path.map((p, level) => ({
    nodeIndex: p.index,
    level,
    hash: p.node,
    leafIndex: level === 0 ? p.index - 2 ** depth : null,
  }));
}
