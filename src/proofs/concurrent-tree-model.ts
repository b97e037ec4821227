/**
 * In-memory reference model of an SPL / MPL concurrent Merkle tree, used to generate ground truth (roots,
 * proofs and the ChangeLog events the program would emit) for tests and the local demo chain.
 *
 * It keeps only the nodes ever written (a sparse heap keyed by node index, everything else is the empty
 * subtree of its level), so depth-30 trees cost O(operations × depth). It models the result of the program's
 * operations, not its concurrency machinery (change-log buffer, fast-forwarding of stale proofs): every
 * operation applies to the current tree, which is what a successful on-chain operation does too.
 * Differences, on purpose: `replaceLeaf` only accepts already-appended leaves (the program also accepts the
 * rightmost empty index, which a later append would then overwrite); `setLeaf` writes anywhere.
 */
import { SolgateError } from '../core/errors.js';
import { emptyNode, hashToParent, NODE_BYTES, nodesEqual } from './hash.js';
import { assertDepth, type ChangeLogPathNode, leafNodeIndex, nodeLevel, siblingNodeIndex } from './paths.js';

/** A ChangeLog event as emitted through the noop program (`ChangeLogEventV1` without the tree id). */
export interface ModelChangeLog {
  /** Nodes written, leaf first and root (index 1) last; `depth + 1` entries. */
  path: ChangeLogPathNode[];
  /** Sequence number of the operation (0 for the tree's initialisation). */
  seq: bigint;
  /** Leaf index the operation touched. */
  index: number;
}

function fail(message: string, context: Record<string, unknown>): never {
  throw new SolgateError('INTERNAL', message, { context });
}

/** Reference concurrent Merkle tree: append, replace, and the change-log paths the program emits. */
export class ConcurrentMerkleTreeModel {
  /** Tree depth (max_depth): 2^depth leaves. */
  readonly depth: number;
  private readonly nodes = new Map<number, Uint8Array>();
  private seqNo = 0n;
  private appended = 0;

  /** An empty tree of `depth` (0..30), as after `init_empty_merkle_tree` (seq 0). */
  constructor(depth: number) {
    assertDepth(depth);
    this.depth = depth;
  }

  /** Sequence number of the last operation (0 before any). */
  get seq(): bigint {
    return this.seqNo;
  }

  /** Number of appended leaves, i.e. the next append's index (the program's `rightmost_proof.index`). */
  get numLeaves(): number {
    return this.appended;
  }

  /** Current root. */
  get root(): Uint8Array {
    return this.node(1);
  }

  /** Current hash of a node (the empty-subtree hash of its level when never written). */
  node(nodeIndex: number): Uint8Array {
    return this.nodes.get(nodeIndex) ?? emptyNode(nodeLevel(nodeIndex, this.depth));
  }

  /** Current value of leaf `leafIndex`. */
  leaf(leafIndex: number): Uint8Array {
    return this.node(leafNodeIndex(leafIndex, this.depth));
  }

  /** Sibling hashes of leaf `leafIndex`, bottom-up (what a transaction passes as proof accounts, uncut). */
  proof(leafIndex: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let n = leafNodeIndex(leafIndex, this.depth); n > 1; n = Math.floor(n / 2)) {
      out.push(this.node(siblingNodeIndex(n)));
    }
    return out;
  }

  /** Every node written so far, by node index (for loading a node store in tests). */
  writtenNodes(): ReadonlyMap<number, Uint8Array> {
    return this.nodes;
  }

  /**
   * The event `init_empty_merkle_tree` emits: seq 0, leaf index 0 and the path of an empty tree (empty
   * subtree hashes, root = empty_node(depth)). Does not change the tree.
   */
  initialChangeLog(): ModelChangeLog {
    return { path: this.pathOf(0), seq: 0n, index: 0 };
  }

  /** Appends a non-empty leaf at index `numLeaves` (`append`); throws when the tree is full or `leaf` is empty. */
  append(leaf: Uint8Array): ModelChangeLog {
    this.checkNode(leaf);
    if (nodesEqual(leaf, emptyNode(0))) fail('cannot append an empty node', {});
    if (this.appended >= 2 ** this.depth) fail('tree is full', { depth: this.depth });
    const index = this.appended;
    this.appended++;
    return this.write(index, leaf);
  }

  /**
   * Replaces the leaf at an appended index with `newLeaf` (`replace_leaf`; an empty `newLeaf` is a burn or
   * redeem). When `previousLeaf` is given it must be the current value, as the program checks.
   */
  replaceLeaf(leafIndex: number, newLeaf: Uint8Array, previousLeaf?: Uint8Array): ModelChangeLog {
    this.checkNode(newLeaf);
    if (!Number.isSafeInteger(leafIndex) || leafIndex < 0 || leafIndex >= this.appended) {
      fail('leaf index is not an appended leaf', { leafIndex, numLeaves: this.appended });
    }
    if (previousLeaf !== undefined && !nodesEqual(previousLeaf, this.leaf(leafIndex))) {
      fail('previous leaf does not match', { leafIndex });
    }
    return this.write(leafIndex, newLeaf);
  }

  /**
   * Writes any leaf of the tree directly, bumping `seq` and `numLeaves` to cover it. Not a program
   * instruction: it stands for trees whose leaves got there another way (a prepared tree initialised with its
   * root, a batch mint), and lets tests reach the far end of deep trees without 2^depth appends.
   */
  setLeaf(leafIndex: number, leaf: Uint8Array): ModelChangeLog {
    this.checkNode(leaf);
    leafNodeIndex(leafIndex, this.depth);
    this.appended = Math.max(this.appended, leafIndex + 1);
    return this.write(leafIndex, leaf);
  }

  /**
   * Replays a recorded event: `append` when it targets index `numLeaves`, `replaceLeaf` otherwise, with the
   * event's leaf (`path[0].node`). Returns the event the model emits for it, to compare with the recorded one.
   */
  applyLeaf(leafIndex: number, leaf: Uint8Array): ModelChangeLog {
    return leafIndex === this.appended ? this.append(leaf) : this.replaceLeaf(leafIndex, leaf);
  }

  private checkNode(node: Uint8Array): void {
    if (!(node instanceof Uint8Array) || node.length !== NODE_BYTES) fail('a node is 32 bytes', {});
  }

  private write(leafIndex: number, leaf: Uint8Array): ModelChangeLog {
    let n = leafNodeIndex(leafIndex, this.depth);
    let hash: Uint8Array = leaf.slice();
    this.nodes.set(n, hash);
    while (n > 1) {
      const sibling = this.node(siblingNodeIndex(n));
      hash = hashToParent(hash, sibling, n % 2 === 0);
      n = Math.floor(n / 2);
      this.nodes.set(n, hash);
    }
    this.seqNo++;
    return { path: this.pathOf(leafIndex), seq: this.seqNo, index: leafIndex };
  }

  private pathOf(leafIndex: number): ChangeLogPathNode[] {
    const path: ChangeLogPathNode[] = [];
    for (let n = leafNodeIndex(leafIndex, this.depth); n >= 1; n = Math.floor(n / 2)) {
      path.push({ node: this.node(n).slice(), index: n });
    }
    return path;
  }
}
