/** Unit tests of the Merkle maths: hashing, empty subtrees, node-index arithmetic, verification, building. */
import { describe, expect, it } from 'vitest';
import {
  emptyNode,
  hashPair,
  hashToParent,
  isEmptyNode,
  keccak256,
  MAX_TREE_DEPTH,
  nodeFromBase58,
  nodeToBase58,
} from '../../src/proofs/hash.js';
import {
  changeLogPathProblem,
  changeLogPathToRows,
  isLeftChild,
  leafIndexOfNode,
  leafNodeIndex,
  nodeLevel,
  parentNodeIndex,
  pathNodeIndexes,
  proofNodeIndexes,
  requiredNodeIndexes,
  siblingNodeIndex,
} from '../../src/proofs/paths.js';
import { buildProof, computeRoot, verifyBuiltProof, verifyProof } from '../../src/proofs/verify.js';
import { hex } from './helpers.js';

const bytes = (b: number) => new Uint8Array(32).fill(b);

describe('hashing', () => {
  it('keccak256 matches the published test vector and concatenates its parts', () => {
    expect(hex(keccak256(new TextEncoder().encode('')))).toBe(
      'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
    expect(hex(keccak256(bytes(1), bytes(2)))).toBe(hex(keccak256(new Uint8Array([...bytes(1), ...bytes(2)]))));
  });

  it('hashToParent puts the left child first', () => {
    const a = bytes(1);
    const b = bytes(2);
    expect(hashToParent(a, b, true)).toEqual(hashPair(a, b));
    expect(hashToParent(a, b, false)).toEqual(hashPair(b, a));
    expect(hashPair(a, b)).not.toEqual(hashPair(b, a));
  });

  it('empty subtrees: zero leaf, then hash of two empty children, up to depth 30', () => {
    expect(emptyNode(0)).toEqual(new Uint8Array(32));
    // keccak256(0^64), the well-known first zero-subtree hash of keccak Merkle trees
    expect(hex(emptyNode(1))).toBe('ad3228b676f7d3cd4284a5443f17f1962b36e491b30a40b2405849e597ba5fb5');
    for (let level = 1; level <= MAX_TREE_DEPTH; level++) {
      expect(emptyNode(level)).toEqual(hashPair(emptyNode(level - 1), emptyNode(level - 1)));
      expect(isEmptyNode(emptyNode(level), level)).toBe(true);
      expect(isEmptyNode(emptyNode(level), level - 1)).toBe(false);
    }
    expect(() => emptyNode(31)).toThrow();
    expect(() => emptyNode(-1)).toThrow();
  });

  it('emptyNode hands out copies', () => {
    const e = emptyNode(4);
    e[0] ^= 0xff;
    expect(isEmptyNode(emptyNode(4), 4)).toBe(true);
  });

  it('base58 round trip, 32 bytes only', () => {
    const n = bytes(7);
    expect(nodeFromBase58(nodeToBase58(n))).toEqual(n);
    expect(nodeToBase58(new Uint8Array(32))).toBe('11111111111111111111111111111111');
    expect(nodeFromBase58('abc')).toBeUndefined();
    expect(nodeFromBase58('0OIl')).toBeUndefined();
  });
});

describe('node indexes (reference numbering: root 1, leaf i of depth d = 2^d + i)', () => {
  it('leaf ↔ node index', () => {
    expect(leafNodeIndex(0, 3)).toBe(8);
    expect(leafNodeIndex(7, 3)).toBe(15);
    expect(leafNodeIndex(2 ** 30 - 1, 30)).toBe(2 ** 31 - 1);
    expect(leafIndexOfNode(13, 3)).toBe(5);
    expect(leafIndexOfNode(2 ** 31 - 1, 30)).toBe(2 ** 30 - 1);
    expect(() => leafNodeIndex(8, 3)).toThrow();
    expect(() => leafNodeIndex(-1, 3)).toThrow();
    expect(() => leafNodeIndex(0, 31)).toThrow();
    expect(() => leafIndexOfNode(7, 3)).toThrow();
  });

  it('levels, parents and siblings', () => {
    expect(nodeLevel(1, 3)).toBe(3);
    expect(nodeLevel(2, 3)).toBe(2);
    expect(nodeLevel(7, 3)).toBe(1);
    expect(nodeLevel(8, 3)).toBe(0);
    expect(nodeLevel(15, 3)).toBe(0);
    expect(nodeLevel(2 ** 31 - 1, 30)).toBe(0);
    expect(nodeLevel(2 ** 30, 30)).toBe(0);
    expect(nodeLevel(2 ** 30 - 1, 30)).toBe(1);
    expect(() => nodeLevel(16, 3)).toThrow();
    expect(() => nodeLevel(0, 3)).toThrow();
    expect(parentNodeIndex(13)).toBe(6);
    expect(parentNodeIndex(2 ** 31 - 1)).toBe(2 ** 30 - 1);
    expect(siblingNodeIndex(12)).toBe(13);
    expect(siblingNodeIndex(13)).toBe(12);
    expect(siblingNodeIndex(2 ** 31 - 1)).toBe(2 ** 31 - 2);
    expect(siblingNodeIndex(2 ** 31 - 2)).toBe(2 ** 31 - 1);
    expect(() => parentNodeIndex(1)).toThrow();
    expect(() => siblingNodeIndex(1)).toThrow();
    expect(isLeftChild(12)).toBe(true);
    expect(isLeftChild(13)).toBe(false);
  });

  it('path (leaf first, root last) and proof siblings (bottom-up)', () => {
    expect(pathNodeIndexes(5, 3)).toEqual([13, 6, 3, 1]);
    expect(proofNodeIndexes(5, 3)).toEqual([12, 7, 2]);
    expect(proofNodeIndexes(0, 3)).toEqual([9, 5, 3]);
    expect(proofNodeIndexes(7, 3)).toEqual([14, 6, 2]);
    const last = proofNodeIndexes(2 ** 30 - 1, 30);
    expect(last).toHaveLength(30);
    expect(last[0]).toBe(2 ** 31 - 2);
    expect(last[29]).toBe(2);
    last.forEach((n, level) => expect(nodeLevel(n, 30)).toBe(level));
  });

  it('requiredNodeIndexes is get_required_nodes_for_proof: siblings then the root', () => {
    expect(requiredNodeIndexes(13)).toEqual([12, 7, 2, 1]);
    expect(requiredNodeIndexes(8)).toEqual([9, 5, 3, 1]);
    expect(requiredNodeIndexes(1)).toEqual([1]);
    for (const [leaf, depth] of [[0, 3], [5, 14], [2 ** 20 - 1, 20], [12345, 30]] as const) {
      expect(requiredNodeIndexes(leafNodeIndex(leaf, depth))).toEqual([...proofNodeIndexes(leaf, depth), 1]);
    }
  });
});

describe('change-log path → node rows', () => {
  const path = (leafIndex: number, depth: number) =>
    pathNodeIndexes(leafIndex, depth).map((index, k) => ({ node: bytes(k + 1), index }));

  it('row k is {nodeIndex: path[k].index, level: k, hash: path[k].node}; the leaf row has the leaf index', () => {
    const rows = changeLogPathToRows(path(5, 3));
    expect(rows.map((r) => [r.nodeIndex, r.level, r.leafIndex, r.hash[0]])).toEqual([
      [13, 0, 5, 1],
      [6, 1, null, 2],
      [3, 2, null, 3],
      [1, 3, null, 4],
    ]);
  });

  it('rejects malformed paths', () => {
    expect(changeLogPathProblem(path(0, 30))).toBeNull();
    expect(changeLogPathProblem([])).toMatch(/length/);
    const wrongParent = path(5, 3);
    wrongParent[2] = { ...wrongParent[2], index: 2 };
    expect(changeLogPathProblem(wrongParent)).toMatch(/path\[2\]/);
    const noRoot = path(5, 3).slice(0, 3);
    expect(changeLogPathProblem(noRoot)).not.toBeNull();
    const shortNode = path(5, 3);
    shortNode[1] = { ...shortNode[1], node: new Uint8Array(31) };
    expect(changeLogPathProblem(shortNode)).toMatch(/32 bytes/);
    expect(() => changeLogPathToRows(wrongParent)).toThrow(/malformed/);
  });
});

describe('computeRoot / verifyProof / buildProof', () => {
  // depth-2 tree, leaves a b c d
  const [a, b, c, d] = [1, 2, 3, 4].map(bytes);
  const ab = hashPair(a, b);
  const cd = hashPair(c, d);
  const root = hashPair(ab, cd);

  it('recomputes the root with index-parity ordering', () => {
    expect(computeRoot(a, [b, cd], 0)).toEqual(root);
    expect(computeRoot(b, [a, cd], 1)).toEqual(root);
    expect(computeRoot(c, [d, ab], 2)).toEqual(root);
    expect(computeRoot(d, [c, ab], 3)).toEqual(root);
    expect(computeRoot(d, [c, ab], 2)).not.toEqual(root);
  });

  it('verifyProof accepts bytes or base58 and never throws on garbage', () => {
    expect(verifyProof({ root, leaf: c, proof: [d, ab], leafIndex: 2 })).toBe(true);
    const b58 = { root: nodeToBase58(root), leaf: nodeToBase58(c), proof: [d, ab].map(nodeToBase58), leafIndex: 2 };
    expect(verifyProof(b58)).toBe(true);
    expect(verifyProof({ ...b58, leafIndex: 3 })).toBe(false);
    expect(verifyProof({ ...b58, leafIndex: 6 })).toBe(false); // ≥ 2^depth
    expect(verifyProof({ ...b58, leafIndex: -1 })).toBe(false);
    expect(verifyProof({ ...b58, leafIndex: 1.5 })).toBe(false);
    expect(verifyProof({ ...b58, root: 'not-base58!' })).toBe(false);
    expect(verifyProof({ ...b58, leaf: new Uint8Array(31) })).toBe(false);
    expect(verifyProof({ ...b58, proof: [b58.proof[0]] })).toBe(false);
    expect(verifyProof({ ...b58, proof: new Array(31).fill(b58.proof[0]) })).toBe(false);
  });

  it('buildProof reads leaf, siblings and root by node index', () => {
    const nodes = new Map<number, Uint8Array>([[1, root], [2, ab], [3, cd], [4, a], [5, b], [6, c], [7, d]]);
    const p = buildProof(2, 2, (n) => nodes.get(n));
    expect(p).toEqual({
      root: nodeToBase58(root),
      proof: [d, ab].map(nodeToBase58),
      nodeIndex: 6,
      leaf: nodeToBase58(c),
    });
    expect(verifyBuiltProof(p)).toBe(true);
    expect(verifyBuiltProof({ ...p, nodeIndex: 7 })).toBe(false);
  });

  it('absent nodes are the empty subtree of their level (the reference make_empty_node)', () => {
    const empty = buildProof(3, 5, () => undefined);
    expect(empty.root).toBe(nodeToBase58(emptyNode(5)));
    expect(empty.leaf).toBe(nodeToBase58(emptyNode(0)));
    expect(empty.proof).toEqual([0, 1, 2, 3, 4].map((l) => nodeToBase58(emptyNode(l))));
    expect(empty.nodeIndex).toBe(35);
    expect(verifyBuiltProof(empty)).toBe(true);
    // one leaf written at index 0 of a depth-3 tree: the proof of leaf 1 needs only the leaf row and the root
    const leaf0 = bytes(9);
    const r = computeRoot(leaf0, [0, 1, 2].map(emptyNode), 0);
    const p = buildProof(1, 3, (n) => (n === 8 ? leaf0 : n === 1 ? r : undefined));
    expect(p.proof[0]).toBe(nodeToBase58(leaf0));
    expect(verifyBuiltProof(p)).toBe(true);
    expect(() => buildProof(8, 3, () => undefined)).toThrow();
    expect(() => buildProof(0, 3, () => new Uint8Array(5))).toThrow(/32 bytes/);
  });

  it('handles the deepest tree (30) at both ends', () => {
    for (const leafIndex of [0, 2 ** 29, 2 ** 30 - 1]) {
      const p = buildProof(leafIndex, 30, () => undefined);
      expect(p.nodeIndex).toBe(2 ** 30 + leafIndex);
      expect(verifyBuiltProof(p)).toBe(true);
    }
  });
});
