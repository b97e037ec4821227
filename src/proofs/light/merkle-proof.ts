/**
 * Proof building, root recomputation and verification for Light Poseidon Merkle trees (V1 state trees of height
 * 26, V2 batched state trees of 32, and the leaves of address trees of 26 and 40), in the contract of
 * `src/proofs/verify.ts`: build from stored nodes, then verify before answering (rule 8).
 *
 * `computeLightRoot` is Photon's `MerkleProofWithContext::validate`: fold the leaf up through the bottom-up
 * sibling list, Poseidon(node, sibling) when bit k of the leaf index is 0 and Poseidon(sibling, node) when it
 * is 1. `buildLightProof` mirrors Photon's proof read (`get_multiple_compressed_leaf_proofs`): nodes are read by
 * heap index and a node never written is the zero hash of its level.
 */
import { nodeToBase58 } from '../hash.js';
import { isFieldElement, isFieldNode, poseidonBatch, poseidonPair, rememberedPair, rememberPairAt } from './poseidon.js';
import { foldToRoot, storedOrEmpty, verifyMerkleProof, type MerkleScheme } from '../merkle.js';
import { assertLeafIndex, leafNodeIndex, MAX_LIGHT_TREE_HEIGHT, proofNodeIndexes, zeroHash } from './trees.js';

/** Light trees: Poseidon pairs over BN254 field elements, Light's zero hashes, height ≤ 40. */
const POSEIDON_TREE: MerkleScheme = { hashPair: poseidonPair, emptyNode: zeroHash, maxDepth: MAX_LIGHT_TREE_HEIGHT, isNode: isFieldElement };

/** A 32-byte node as bytes or as base58 text (Photon's wire form). */
export type LightNodeInput = Uint8Array | string;

/** Reads a stored node by heap index (root = 1); undefined when never written (= zero hash of its level). */
export type LightNodeLookup = (nodeIndex: number) => Uint8Array | undefined;

/**
 * A built proof, base58-encoded, with Photon's field names (`getMultipleCompressedAccountProofs` items carry
 * these plus `merkleTree` and `rootSeq`, which the caller knows).
 */
export interface LightMerkleProof {
  /** Leaf hash (the compressed account hash, or the indexed element hash). */
  hash: string;
  leafIndex: number;
  /** Sibling hashes bottom-up: `proof[k]` sits at level k; the length is the tree height. */
  proof: string[];
  root: string;
}

/** Arguments of `verifyLightProof`. */
export interface VerifyLightProofInput {
  root: LightNodeInput;
  leaf: LightNodeInput;
  /** Sibling hashes bottom-up; the length is the tree height. */
  proof: readonly LightNodeInput[];
  leafIndex: number;
}

/**
 * Root reached from `leaf` at `leafIndex` through the bottom-up siblings `proof` (height = proof.length). The
 * caller keeps `leafIndex < 2^proof.length` and every node a field element (`verifyLightProof` checks both).
 */
export function computeLightRoot(leaf: Uint8Array, proof: readonly Uint8Array[], leafIndex: number): Uint8Array {
  return foldToRoot(POSEIDON_TREE, leaf, proof, leafIndex);
}

/**
 * True when `proof` links `leaf` at `leafIndex` to `root`. Never throws on bad input (it must have been
 * initialised: `initPoseidon()`): a node that is not 32 bytes, not base58 or not below the field modulus, a
 * proof longer than 40, or a leaf index outside 0 .. 2^proof.length - 1 make it false.
 */
export function verifyLightProof(input: VerifyLightProofInput): boolean {
  return verifyMerkleProof(POSEIDON_TREE, input);
}

/** Verifies a proof in its wire form (`LightMerkleProof`). Use before answering. */
export function verifyLightBuiltProof(built: LightMerkleProof): boolean {
  return verifyLightProof({ root: built.root, leaf: built.hash, proof: built.proof, leafIndex: built.leafIndex });
}

const checkedNode = (hash: Uint8Array | undefined, level: number, nodeIndex: number) => storedOrEmpty(POSEIDON_TREE, hash, level, nodeIndex);

/** The nodes of a proof as bytes: leaf, siblings bottom-up, root. */
export interface LightProofNodes {
  leaf: Uint8Array;
  siblings: Uint8Array[];
  root: Uint8Array;
}

/**
 * Reads the leaf `leafIndex` of a tree of `height`, its `height` siblings bottom-up and the root (node 1)
 * through `lookup`; a node never written is the zero hash of its level (an absent leaf is 32 zero bytes).
 */
export function readLightProofNodes(leafIndex: number, height: number, lookup: LightNodeLookup): LightProofNodes {
  assertLeafIndex(leafIndex, height);
  const nodeIndex = leafNodeIndex(leafIndex, height);
  return {
    leaf: checkedNode(lookup(nodeIndex), 0, nodeIndex),
    siblings: proofNodeIndexes(leafIndex, height).map((n, level) => checkedNode(lookup(n), level, n)),
    root: checkedNode(lookup(1), height, 1),
  };
}

/**
 * Builds the proof of leaf `leafIndex` in a Poseidon tree of `height` from stored nodes (see
 * `readLightProofNodes`). Does not check it: pass the result to `verifyLightBuiltProof` before returning it.
 */
export function buildLightProof(leafIndex: number, height: number, lookup: LightNodeLookup): LightMerkleProof {
  const nodes = readLightProofNodes(leafIndex, height, lookup);
  return {
    hash: nodeToBase58(nodes.leaf),
    leafIndex,
    proof: nodes.siblings.map(nodeToBase58),
    root: nodeToBase58(nodes.root),
  };
}

/** A proof as bytes, for {@link verifyLightProofsBatch}. */
export interface LightProofBytes {
  leaf: Uint8Array;
  /** Siblings bottom-up; the length is the tree height. */
  siblings: readonly Uint8Array[];
  leafIndex: number;
  root: Uint8Array;
}

/** A 32-bit mix of the pair (l at lo, r at ro) from their low bytes, for the batch's table of distinct pairs. */
function pairKey(l: Uint8Array, lo: number, r: Uint8Array, ro: number): number {
  const a = l[lo + 31] | (l[lo + 30] << 8) | (l[lo + 29] << 16) | (l[lo + 28] << 24);
  const b = r[ro + 31] | (r[ro + 30] << 8) | (r[ro + 29] << 16) | (r[ro + 28] << 24);
  const h = Math.imul(a ^ Math.imul(b ^ (b >>> 16), 0x85ebca6b), 0xc2b2ae35);
  return h ^ (h >>> 15);
}

function sameBytes(a: Uint8Array, ao: number, b: Uint8Array, bo: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (a[ao + i] !== b[bo + i]) return false;
  return true;
}

/**
 * Verifies many proofs at once, each exactly as `verifyLightProof` would (true when its leaf folds up through its
 * siblings to its root; false on malformed input: a node that is not a 32-byte field element, a proof longer
 * than 40, a leaf index outside the tree). The folding runs level by level over all proofs: the (left, right)
 * pairs of a level are looked up in the pair memo, those not there are deduplicated (proofs that share a subtree
 * share its nodes: a small table keyed by the pairs' low bytes, compared on all 64) and hashed in one Poseidon
 * batch, and the results are remembered. Never throws.
 */
export function verifyLightProofsBatch(proofs: readonly LightProofBytes[]): boolean[] {
  const n = proofs.length;
  const ok = proofs.map(
    (p) =>
      Array.isArray(p.siblings) &&
      p.siblings.length <= MAX_LIGHT_TREE_HEIGHT &&
      Number.isSafeInteger(p.leafIndex) &&
      p.leafIndex >= 0 &&
      p.leafIndex < 2 ** p.siblings.length &&
      isFieldNode(p.leaf) &&
      isFieldNode(p.root) &&
      p.siblings.every(isFieldNode),
  );
  const current = proofs.map((p) => p.leaf);
  const rest = proofs.map((p) => p.leafIndex);
  const height = Math.max(0, ...proofs.map((p, i) => (ok[i] ? p.siblings.length : 0)));
  // per level, the pairs the memo lacks: their nodes, an open-addressing table over them (index + 1), and for each
  // proof the pair it waits for (−1: none)
  let tableSize = 16;
  while (tableSize < 2 * n) tableSize *= 2;
  const table = new Int32Array(tableSize);
  const waits = new Int32Array(n);
  const lefts: Uint8Array[] = [];
  const rights: Uint8Array[] = [];
  for (let level = 0; level < height; level++) {
    let pending = 0;
    for (let i = 0; i < n; i++) {
      waits[i] = -1;
      if (!ok[i] || level >= proofs[i].siblings.length) continue;
      const sibling = proofs[i].siblings[level];
      const nodeIsLeft = rest[i] % 2 === 0;
      rest[i] = Math.floor(rest[i] / 2);
      const left = nodeIsLeft ? current[i] : sibling;
      const right = nodeIsLeft ? sibling : current[i];
      const known = rememberedPair(left, right);
      if (known !== undefined) {
        current[i] = known;
        continue;
      }
      if (pending === 0) table.fill(0);
      let slot = pairKey(left, 0, right, 0) & (tableSize - 1);
      for (;;) {
        const k = table[slot] - 1;
        if (k < 0) {
          lefts[pending] = left;
          rights[pending] = right;
          table[slot] = ++pending;
          waits[i] = pending - 1;
          break;
        }
        if (sameBytes(lefts[k], 0, left, 0, 32) && sameBytes(rights[k], 0, right, 0, 32)) {
          waits[i] = k;
          break;
        }
        slot = (slot + 1) & (tableSize - 1);
      }
    }
    if (!pending) continue;
    const input = new Uint8Array(pending * 64);
    for (let k = 0; k < pending; k++) {
      input.set(lefts[k], 64 * k);
      input.set(rights[k], 64 * k + 32);
    }
    const parents = poseidonBatch(2, input, pending);
    for (let k = 0; k < pending; k++) rememberPairAt(input, 64 * k, input, 64 * k + 32, parents, 32 * k);
    for (let i = 0; i < n; i++) if (waits[i] >= 0) current[i] = parents.subarray(32 * waits[i], 32 * waits[i] + 32);
  }
  return proofs.map((p, i) => ok[i] && sameBytes(current[i], 0, p.root, 0, 32));
}
