/**
 * Root recomputation, proof verification and proof building for concurrent Merkle trees (rule 8: every proof
 * is verified before it is returned).
 *
 * `computeRoot` is spl-concurrent-merkle-tree's `recompute`: fold the leaf up through the bottom-up sibling
 * list, hashing (node, sibling) when bit k of the leaf index is 0 and (sibling, node) when it is 1.
 * `buildProof` mirrors the reference's `build_asset_proof`: the required nodes are read by node index and
 * every node never written is the empty-subtree hash of its level (`make_empty_node` → `empty_node(level)`).
 */
import { emptyNode, hashPair, MAX_TREE_DEPTH, nodeToBase58 } from './hash.js';
import { foldToRoot, storedOrEmpty, verifyMerkleProof, type MerkleScheme } from './merkle.js';
import { assertLeafIndex, leafNodeIndex, proofNodeIndexes } from './paths.js';

/** Concurrent Merkle trees: keccak-256 pairs, empty nodes of spl-concurrent-merkle-tree, depth ≤ 30. */
const KECCAK_TREE: MerkleScheme = { hashPair, emptyNode, maxDepth: MAX_TREE_DEPTH };

/** A 32-byte node given as bytes or as base58 text (the getAssetProof wire form). */
export type NodeInput = Uint8Array | string;

/** Looks a node up by heap index (root = 1); undefined when no row was ever written for it. */
export type NodeLookup = (nodeIndex: number) => Uint8Array | undefined;

/** The proof part of getAssetProof (`root`, `proof[]`, `node_index`, `leaf`), base58-encoded. */
export interface BuiltProof {
  root: string;
  /** Sibling hashes bottom-up: `proof[k]` is the sibling at level k (length = tree depth). */
  proof: string[];
  /** Heap index of the leaf: 2^depth + leafIndex. */
  nodeIndex: number;
  leaf: string;
}

/** Arguments of `verifyProof`. */
export interface VerifyProofInput {
  root: NodeInput;
  leaf: NodeInput;
  /** Sibling hashes bottom-up; its length is the tree depth. */
  proof: readonly NodeInput[];
  leafIndex: number;
}

/**
 * Root reached from `leaf` at `leafIndex` through the bottom-up sibling list `proof` (`recompute`). The tree
 * depth is `proof.length`; the caller keeps `leafIndex < 2^proof.length` (see `verifyProof`, which checks).
 */
export function computeRoot(leaf: Uint8Array, proof: readonly Uint8Array[], leafIndex: number): Uint8Array {
  return foldToRoot(KECCAK_TREE, leaf, proof, leafIndex);
}

/**
 * True when `proof` links `leaf` at `leafIndex` to `root`. Never throws: a node that is not 32 bytes (or not
 * base58), a proof longer than 30, or a leaf index outside `0 .. 2^proof.length - 1` make it false.
 */
export function verifyProof(input: VerifyProofInput): boolean {
  return verifyMerkleProof(KECCAK_TREE, input);
}

/**
 * Verifies a proof in its wire form: the leaf index is `nodeIndex - 2^proof.length` (the depth is the proof
 * length). Use before answering getAssetProof.
 */
export function verifyBuiltProof(built: BuiltProof): boolean {
  if (!Array.isArray(built.proof) || built.proof.length > MAX_TREE_DEPTH) return false;
  if (!Number.isSafeInteger(built.nodeIndex)) return false;
  const leafIndex = built.nodeIndex - 2 ** built.proof.length;
  return verifyProof({ root: built.root, leaf: built.leaf, proof: built.proof, leafIndex });
}

const checkedNode = (hash: Uint8Array | undefined, level: number, nodeIndex: number) => storedOrEmpty(KECCAK_TREE, hash, level, nodeIndex);

/**
 * Builds the proof of leaf `leafIndex` in a tree of `depth` from stored node rows: the leaf (node
 * 2^depth + leafIndex), its `depth` siblings bottom-up and the root (node 1), each read through `lookup` and
 * replaced by the empty-subtree hash of its level when absent (an absent leaf is 32 zero bytes). Does not check
 * the result: pass it to `verifyBuiltProof` before returning it (rule 8).
 */
export function buildProof(leafIndex: number, depth: number, lookup: NodeLookup): BuiltProof {
  assertLeafIndex(leafIndex, depth);
  const nodeIndex = leafNodeIndex(leafIndex, depth);
  const leaf = checkedNode(lookup(nodeIndex), 0, nodeIndex);
  const proof = proofNodeIndexes(leafIndex, depth).map((n, level) =>
    nodeToBase58(checkedNode(lookup(n), level, n)),
  );
  const root = checkedNode(lookup(1), depth, 1);
  return { root: nodeToBase58(root), proof, nodeIndex, leaf: nodeToBase58(leaf) };
}
