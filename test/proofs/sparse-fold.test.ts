/**
 * The streamed recomputation of a concurrent Merkle tree from its written leaves (src/proofs/sparse-fold.ts) against
 * the reference model: the same root and the same inner nodes, each with the newest seq of the leaves under it, for
 * sparse leaves (left and right children, gaps at every level), an empty tree, and a full small tree.
 */
import { describe, expect, it } from 'vitest';
import { ConcurrentMerkleTreeModel } from '../../src/proofs/concurrent-tree-model.js';
import { emptyNode, nodeToBase58 } from '../../src/proofs/hash.js';
import { SparseTreeFolder, type FoldedNode } from '../../src/proofs/sparse-fold.js';

function fold(depth: number, leaves: Map<number, { hash: Uint8Array; seq: bigint }>) {
  const emitted: FoldedNode[] = [];
  const f = new SparseTreeFolder(depth, (n) => emitted.push(n));
  for (const i of [...leaves.keys()].sort((a, b) => a - b)) f.add(i, leaves.get(i)!.hash, leaves.get(i)!.seq);
  return { root: f.finish(), emitted };
}

describe('SparseTreeFolder', () => {
  it('gives the model\'s root and inner nodes for sparse leaves, each node with the newest seq under it', () => {
    const cases: [number, number[]][] = [[8, [0, 1, 2, 7, 64, 65, 200, 255]], [3, [5]], [10, [1023]], [4, Array.from({ length: 16 }, (_, i) => i)]];
    for (const [depth, indexes] of cases) {
      const model = new ConcurrentMerkleTreeModel(depth);
      const leaves = new Map<number, { hash: Uint8Array; seq: bigint }>();
      indexes.forEach((i, k) => {
        const hash = crypto.getRandomValues(new Uint8Array(32));
        model.setLeaf(i, hash);
        leaves.set(i, { hash, seq: BigInt(k + 1) });
      });
      const { root, emitted } = fold(depth, leaves);
      expect(nodeToBase58(root.hash)).toBe(nodeToBase58(model.root));
      expect(root.seq).toBe(BigInt(indexes.length));
      expect(new Set(emitted.map((n) => n.nodeIndex)).size).toBe(emitted.length);
      for (const n of emitted) {
        expect(nodeToBase58(n.hash), `node ${n.nodeIndex}`).toBe(nodeToBase58(model.node(n.nodeIndex)));
        const under = indexes.filter((i) => Math.floor((2 ** depth + i) / 2 ** n.level) === n.nodeIndex);
        expect(n.seq).toBe(BigInt(Math.max(...under.map((i) => indexes.indexOf(i) + 1))));
      }
      // Every node with a written leaf under it is emitted once.
      const expected = new Set(indexes.flatMap((i) => Array.from({ length: depth }, (_, l) => Math.floor((2 ** depth + i) / 2 ** (l + 1)))));
      expect(new Set(emitted.map((n) => n.nodeIndex))).toEqual(expected);
    }
  });

  it('an empty tree is the empty root of its depth; leaves out of order are refused', () => {
    expect(fold(14, new Map()).root).toEqual({ hash: emptyNode(14), seq: null });
    const f = new SparseTreeFolder(3);
    f.add(4, new Uint8Array(32), 1n);
    expect(() => f.add(4, new Uint8Array(32), 2n)).toThrow();
  });
});
