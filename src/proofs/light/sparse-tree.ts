/**
 * An in-memory sparse Poseidon Merkle tree: only written nodes are stored (by heap index, as Photon's
 * `state_trees` rows), everything else is the zero hash of its level. Writing a leaf rehashes its path, the way
 * Photon's `persist_leaf_nodes` derives inner nodes. It is the reference model of the tree the indexer keeps
 * in the database: the indexed (address) tree model builds on it, tests compare stored trees against it, and
 * `lookup` plugs it into `buildLightProof`.
 */
import { SolgateError } from '../../core/errors.js';
import { NODE_BYTES } from '../hash.js';
import { toFieldElement, poseidonPair } from './poseidon.js';
import { buildLightProof, type LightMerkleProof, type LightNodeLookup } from './merkle-proof.js';
import { assertHeight, leafNodeIndex, nodeLevel, zeroHash } from './trees.js';

export class SparsePoseidonTree {
  readonly height: number;
  private readonly nodes = new Map<number, Uint8Array>();

  constructor(height: number) {
    assertHeight(height);
    this.height = height;
  }

  /** Stored hash of a node, or the zero hash of its level (a copy either way). */
  node(nodeIndex: number): Uint8Array {
    const stored = this.nodes.get(nodeIndex);
    return stored !== undefined ? stored.slice() : zeroHash(nodeLevel(nodeIndex, this.height));
  }

  /** Leaf hash at `leafIndex` (32 zero bytes when never written). */
  leaf(leafIndex: number): Uint8Array {
    return this.node(leafNodeIndex(leafIndex, this.height));
  }

  /** Current root (the zero hash of `height` while empty). */
  root(): Uint8Array {
    return this.node(1);
  }

  /** Number of stored nodes (written leaves and the inner nodes above them). */
  get size(): number {
    return this.nodes.size;
  }

  /**
   * Writes `hash` at `leafIndex` and rehashes the path to the root (`height` Poseidon calls). The hash must be
   * a 32-byte field element.
   */
  setLeaf(leafIndex: number, hash: Uint8Array): void {
    if (!(hash instanceof Uint8Array) || hash.length !== NODE_BYTES) {
      throw new SolgateError('INTERNAL', `leaf hash must be ${NODE_BYTES} bytes`, { context: { leafIndex } });
    }
    toFieldElement(hash);
    let n = leafNodeIndex(leafIndex, this.height);
    let current: Uint8Array = hash.slice();
    this.nodes.set(n, current);
    for (let level = 0; n > 1; level++) {
      const sibling = this.nodes.get(n % 2 === 0 ? n + 1 : n - 1) ?? zeroHash(level);
      current = n % 2 === 0 ? poseidonPair(current, sibling) : poseidonPair(sibling, current);
      n = Math.floor(n / 2);
      this.nodes.set(n, current);
    }
  }

  /** Node reader for `buildLightProof` (undefined = never written). */
  readonly lookup: LightNodeLookup = (nodeIndex) => this.nodes.get(nodeIndex);

  /** Proof of `leafIndex` against the current root. */
  proof(leafIndex: number): LightMerkleProof {
    return buildLightProof(leafIndex, this.height, this.lookup);
  }

  /** Every stored node, `[nodeIndex, hash]` in ascending index order (what a store would hold). */
  entries(): [number, Uint8Array][] {
    return [...this.nodes.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => [k, v.slice()]);
  }
}
