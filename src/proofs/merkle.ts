/**
 * Merkle proof maths shared by every tree kind, parameterised by the tree's hash: the Bubblegum concurrent Merkle
 * trees (keccak, src/proofs/verify.ts) and the Light Poseidon trees (src/proofs/light/merkle-proof.ts).
 *
 * - {@link foldToRoot}: the root reached from a leaf through its bottom-up siblings — (node, sibling) when bit k
 *   of the leaf index is 0, (sibling, node) when it is 1 (spl-concurrent-merkle-tree `recompute`, Photon
 *   `MerkleProofWithContext::validate`);
 * - {@link verifyMerkleProof}: the same from untrusted input, never throwing;
 * - {@link storedOrEmpty}: a proof's node read from stored rows, a node never written being the empty-subtree hash
 *   of its level.
 */
import { SolgateError } from '../core/errors.js';
import { NODE_BYTES, nodeFromBase58, nodesEqual } from './hash.js';

/** The hash of a tree kind: its pair hash, its empty-subtree hashes and the nodes it accepts. */
export interface MerkleScheme {
  /** Parent of (left, right). */
  hashPair(left: Uint8Array, right: Uint8Array): Uint8Array;
  /** Hash of an empty subtree of `level` (level 0 = an absent leaf). */
  emptyNode(level: number): Uint8Array;
  /** Longest proof (tree depth) the scheme accepts. */
  maxDepth: number;
  /** Whether 32 bytes are a valid node (Poseidon trees: below the field modulus). Default: any. */
  isNode?(node: Uint8Array): boolean;
}

/** A 32-byte node as bytes or as base58 text (the wire form). */
export type MerkleNodeInput = Uint8Array | string;

/** Reads a stored node by heap index (root = 1); undefined when never written. */
export type MerkleNodeLookup = (nodeIndex: number) => Uint8Array | undefined;

/** Root reached from `leaf` at `leafIndex` through the bottom-up `proof` (depth = proof.length; unchecked). */
export function foldToRoot(scheme: MerkleScheme, leaf: Uint8Array, proof: readonly Uint8Array[], leafIndex: number): Uint8Array {
  let node = leaf;
  let rest = leafIndex;
  for (const sibling of proof) {
    node = rest % 2 === 0 ? scheme.hashPair(node, sibling) : scheme.hashPair(sibling, node);
    rest = Math.floor(rest / 2);
  }
  return node;
}

function toNode(scheme: MerkleScheme, x: MerkleNodeInput): Uint8Array | undefined {
  const n = typeof x === 'string' ? nodeFromBase58(x) : x instanceof Uint8Array && x.length === NODE_BYTES ? x : undefined;
  return n !== undefined && (scheme.isNode?.(n) ?? true) ? n : undefined;
}

/**
 * True when `proof` links `leaf` at `leafIndex` to `root`. Never throws on bad input: a node that is not 32 bytes,
 * not base58 or not accepted by the scheme, a proof longer than the scheme's depth, or a leaf index outside
 * 0 .. 2^proof.length - 1 make it false.
 */
export function verifyMerkleProof(
  scheme: MerkleScheme,
  input: { root: MerkleNodeInput; leaf: MerkleNodeInput; proof: readonly MerkleNodeInput[]; leafIndex: number },
): boolean {
  const { leafIndex } = input;
  if (!Array.isArray(input.proof) || input.proof.length > scheme.maxDepth) return false;
  if (!Number.isSafeInteger(leafIndex) || leafIndex < 0 || leafIndex >= 2 ** input.proof.length) return false;
  const root = toNode(scheme, input.root);
  const leaf = toNode(scheme, input.leaf);
  if (!root || !leaf) return false;
  const proof: Uint8Array[] = [];
  for (const p of input.proof) {
    const n = toNode(scheme, p);
    if (!n) return false;
    proof.push(n);
  }
  return nodesEqual(foldToRoot(scheme, leaf, proof, leafIndex), root);
}

/** A stored node, or the empty-subtree hash of its level when never written; a stored node of the wrong size is an internal error. */
export function storedOrEmpty(scheme: MerkleScheme, hash: Uint8Array | undefined, level: number, nodeIndex: number): Uint8Array {
  if (hash === undefined) return scheme.emptyNode(level);
  if (hash.length !== NODE_BYTES) {
    throw new SolgateError('INTERNAL', `stored node is not ${NODE_BYTES} bytes`, { context: { nodeIndex, length: hash.length } });
  }
  return hash;
}
