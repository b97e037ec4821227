/**
 * Light Protocol tree kinds, their heights, the empty-subtree (zero) hashes of Poseidon trees and the node-index
 * arithmetic of trees up to height 40.
 *
 * - Tree kinds and numeric codes are Light's `TreeType` (`light-compressed-account`), as Photon returns them in
 *   `merkleContext.treeType`: StateV1 = 1, AddressV1 = 2, StateV2 = 3, AddressV2 = 4.
 * - Heights: V1 state and address trees 26 (concurrent / indexed Merkle trees), V2 batched state trees 32
 *   (`DEFAULT_BATCH_STATE_TREE_HEIGHT`), V2 batched address trees 40 (`DEFAULT_BATCH_ADDRESS_TREE_HEIGHT`).
 * - Zero hashes (`light-hasher` `zero_bytes::poseidon::ZERO_BYTES`, Photon's `ZERO_BYTES`): level 0 is 32 zero
 *   bytes, level i is Poseidon(zero(i-1), zero(i-1)); level h is the root of an empty tree of height h.
 * - Node numbering is the heap order Photon stores in `state_trees.node_idx` (the same as the Bubblegum maths in
 *   `src/proofs/paths.ts`): root 1, children of n are 2n and 2n+1, leaf i of a tree of height h is node 2^h + i
 *   (Photon's `leaf_index_to_node_index(i, h + 1)`). Its "tree_height" counts levels including the root, i.e.
 *   height + 1; here height always means the number of edges from a leaf to the root (= proof length).
 *
 * Indexes are JS numbers: a height-40 tree has node indexes below 2^41, far inside the safe-integer range
 * (2^53). Only +, -, *, / by powers of two and `Math.floor` are used, never 32-bit bitwise operators, so
 * nothing wraps at 2^32.
 */
import { SolgateError } from '../../core/errors.js';
import { NODE_BYTES, nodesEqual } from '../hash.js';
import { poseidonPair } from './poseidon.js';

/** The four Light tree kinds. */
export type LightTreeType = 'StateV1' | 'AddressV1' | 'StateV2' | 'AddressV2';

/** Light `TreeType` numeric codes (Photon `merkleContext.treeType`). */
export const TREE_TYPE_CODE: Readonly<Record<LightTreeType, number>> = {
  StateV1: 1,
  AddressV1: 2,
  StateV2: 3,
  AddressV2: 4,
};

/** Tree kind of a Light `TreeType` code; undefined for an unknown code. */
export function treeTypeFromCode(code: number): LightTreeType | undefined {
  for (const [k, v] of Object.entries(TREE_TYPE_CODE)) if (v === code) return k as LightTreeType;
  return undefined;
}

/** Height (proof length) of each tree kind as deployed by Light. */
export const LIGHT_TREE_HEIGHT: Readonly<Record<LightTreeType, number>> = {
  StateV1: 26,
  AddressV1: 26,
  StateV2: 32,
  AddressV2: 40,
};

/** Highest tree the maths supports (V2 address trees). */
export const MAX_LIGHT_TREE_HEIGHT = 40;

function fail(message: string, context: Record<string, unknown>): never {
  throw new SolgateError('INTERNAL', message, { context });
}

function isUint(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/** Throws unless `height` is an integer in 1..40. */
export function assertHeight(height: number): void {
  if (!Number.isInteger(height) || height < 1 || height > MAX_LIGHT_TREE_HEIGHT) {
    fail(`tree height must be an integer in 1..${MAX_LIGHT_TREE_HEIGHT}`, { height });
  }
}

let zeroTable: Uint8Array[] | undefined;

function zeros(): Uint8Array[] {
  if (zeroTable === undefined) {
    const table: Uint8Array[] = [new Uint8Array(NODE_BYTES)];
    for (let level = 1; level <= MAX_LIGHT_TREE_HEIGHT; level++) {
      table.push(poseidonPair(table[level - 1], table[level - 1]));
    }
    zeroTable = table;
  }
  return zeroTable;
}

function checkLevel(level: number): void {
  if (!Number.isInteger(level) || level < 0 || level > MAX_LIGHT_TREE_HEIGHT) {
    fail(`zero-hash level must be an integer in 0..${MAX_LIGHT_TREE_HEIGHT}`, { level });
  }
}

/**
 * Poseidon hash of an empty subtree whose root sits `level` levels above the leaves (0 = the empty leaf, 32
 * zero bytes). Computed once (41 hashes) on first use, after `initPoseidon()`. Returns a fresh copy.
 */
export function zeroHash(level: number): Uint8Array {
  checkLevel(level);
  return zeros()[level].slice();
}

/** True when `hash` equals the zero hash of `level` (no copy made). */
export function isZeroHash(hash: Uint8Array, level: number): boolean {
  checkLevel(level);
  return nodesEqual(hash, zeros()[level]);
}

/** Root of an empty Poseidon tree of `height`: `zeroHash(height)`. */
export function emptyTreeRoot(height: number): Uint8Array {
  assertHeight(height);
  return zeroHash(height);
}

/** Number of leaves of a tree of `height` (2^height; 2^40 fits a JS number exactly). */
export function leafCount(height: number): number {
  assertHeight(height);
  return 2 ** height;
}

/** Throws unless `leafIndex` is a leaf of a tree of `height`. */
export function assertLeafIndex(leafIndex: number, height: number): void {
  if (!isUint(leafIndex) || leafIndex >= leafCount(height)) fail('leaf index out of range', { leafIndex, height });
}

/** Heap index of leaf `leafIndex`: 2^height + leafIndex. */
export function leafNodeIndex(leafIndex: number, height: number): number {
  assertLeafIndex(leafIndex, height);
  return 2 ** height + leafIndex;
}

/** floor(log2(n)) for a safe integer n ≥ 1, exact at every power of two. */
function log2Floor(n: number): number {
  let k = Math.floor(Math.log2(n));
  while (2 ** k > n) k--;
  while (2 ** (k + 1) <= n) k++;
  return k;
}

/** Level of a node above the leaves (leaf 0, root = height); throws when outside the tree. */
export function nodeLevel(nodeIndex: number, height: number): number {
  assertHeight(height);
  if (!isUint(nodeIndex) || nodeIndex < 1 || nodeIndex >= 2 ** (height + 1)) {
    fail('node index outside the tree', { nodeIndex, height });
  }
  return height - log2Floor(nodeIndex);
}

/** Leaf index of the leaf node `nodeIndex`: nodeIndex - 2^height. */
export function leafIndexOfNode(nodeIndex: number, height: number): number {
  if (nodeLevel(nodeIndex, height) !== 0) fail('node is not a leaf', { nodeIndex, height });
  return nodeIndex - 2 ** height;
}

// Parent / sibling / side do not depend on the height: the Bubblegum tree module's versions serve every height.
export { isLeftChild, parentNodeIndex, siblingNodeIndex } from '../paths.js';
import { siblingNodeIndex } from '../paths.js';

/** Nodes on the path of a leaf, leaf first and root (1) last: height + 1 indexes. */
export function pathNodeIndexes(leafIndex: number, height: number): number[] {
  const out: number[] = [];
  for (let n = leafNodeIndex(leafIndex, height); n >= 1; n = Math.floor(n / 2)) out.push(n);
  return out;
}

/** Siblings proving a leaf, bottom-up (`proof[k]` is at level k): height indexes. */
export function proofNodeIndexes(leafIndex: number, height: number): number[] {
  const out: number[] = [];
  for (let n = leafNodeIndex(leafIndex, height); n > 1; n = Math.floor(n / 2)) out.push(siblingNodeIndex(n));
  return out;
}
