/**
 * A concurrent Merkle tree's nodes recomputed from its leaves, streamed: leaves are given in increasing leaf index
 * (only those ever written: every other leaf is the empty leaf) and each inner node is emitted once both its
 * children are known — as soon as a later leaf falls outside its subtree, or at the end — so memory is one pending
 * node per level (O(depth)) whatever the number of leaves.
 *
 * Hashing is src/proofs/hash.ts (spl-concurrent-merkle-tree): parent = keccak256(left ‖ right), a child subtree
 * without any written leaf is the empty-subtree hash of its level. Each emitted node also carries the highest seq
 * among the leaves under it: the seq of the last change whose path went through it, which is the seq its
 * `cnft_nodes` row has when written from the tree's change logs (each change writes its leaf's whole path).
 */
import { SolgateError } from '../core/errors.js';
import { emptyNode, hashPair } from './hash.js';
import { assertDepth, leafNodeIndex } from './paths.js';

/** A node computed from the leaves: heap index (root = 1), level (leaf = 0), hash, and the newest leaf seq under it. */
export interface FoldedNode {
  nodeIndex: number;
  level: number;
  hash: Uint8Array;
  seq: bigint;
}

/** Folds leaves into their tree; see the module comment. */
export class SparseTreeFolder {
  private readonly pending: (FoldedNode | null)[];
  private root: FoldedNode | null = null;
  private last = -1;

  /** `emit` receives every inner node (level ≥ 1, the root last) computed from at least one leaf. */
  constructor(readonly depth: number, private readonly emit: (node: FoldedNode) => void = () => {}) {
    assertDepth(depth);
    this.pending = new Array<FoldedNode | null>(depth).fill(null);
  }

  /** The leaf `leafIndex` (greater than every leaf added before). */
  add(leafIndex: number, hash: Uint8Array, seq: bigint): void {
    if (leafIndex <= this.last) throw new SolgateError('INTERNAL', 'leaves must come in increasing leaf index', { context: { leafIndex, last: this.last } });
    this.last = leafIndex;
    this.push({ nodeIndex: leafNodeIndex(leafIndex, this.depth), level: 0, hash, seq });
  }

  /** The root once every leaf was added (the empty tree's root when none was), null seq when no leaf was added. */
  finish(): { hash: Uint8Array; seq: bigint | null } {
    for (let level = 0; level < this.depth; level++) {
      const p = this.pending[level];
      if (p) {
        this.pending[level] = null;
        this.combine(p, null);
      }
    }
    return this.root ? { hash: this.root.hash, seq: this.root.seq } : { hash: emptyNode(this.depth), seq: null };
  }

  private push(node: FoldedNode): void {
    if (node.level === this.depth) {
      this.root = node;
      return;
    }
    const p = this.pending[node.level];
    this.pending[node.level] = null;
    if (p && Math.floor(p.nodeIndex / 2) === Math.floor(node.nodeIndex / 2)) {
      this.combine(p, node);
      return;
    }
    if (p) this.combine(p, null);
    this.pending[node.level] = node;
  }

  /** The parent of `a` and its sibling `b` (null: an empty subtree), emitted and pushed up. */
  private combine(a: FoldedNode, b: FoldedNode | null): void {
    const empty = emptyNode(a.level);
    const aLeft = a.nodeIndex % 2 === 0;
    const hash = aLeft ? hashPair(a.hash, b?.hash ?? empty) : hashPair(b?.hash ?? empty, a.hash);
    const seq = b && b.seq > a.seq ? b.seq : a.seq;
    const parent: FoldedNode = { nodeIndex: Math.floor(a.nodeIndex / 2), level: a.level + 1, hash, seq };
    this.emit(parent);
    this.push(parent);
  }
}
