/**
 * Property check of the sparse Poseidon tree and the proof maths at one height: random field-element leaves at
 * the boundary indexes (0, 1, half - 1, half, last - 1, last) and a random one are written; every proof built
 * from the store verifies against the root and fails with a flipped sibling (a random level per leaf, and the
 * bottom, middle and top levels of the last leaf) or the wrong leaf index; a stale root fails; absent leaves
 * prove as zero leaves; writing the same leaves in another order gives the same stored nodes. (Light's
 * Poseidon costs ~0.25 ms a call, so the checks are chosen to stay near 2,000 hashes per height.)
 */
import { expect } from 'vitest';
import { nodesEqual } from '../../../src/proofs/hash.js';
import { buildLightProof, computeLightRoot, verifyLightBuiltProof, verifyLightProof } from '../../../src/proofs/light/merkle-proof.js';
import { SparsePoseidonTree } from '../../../src/proofs/light/sparse-tree.js';
import { leafNodeIndex, zeroHash } from '../../../src/proofs/light/trees.js';
import { b58, flipLowBit, randIndex, randomField, rng, toB58 } from './helpers.js';

export function checkSparseTree(height: number): void {
  const rand = rng(height * 7919);
  const n = 2 ** height;
  const half = n / 2;
  const wanted = new Set<number>([0, 1, half - 1, half, n - 2, n - 1]);
  while (wanted.size < 7) wanted.add(randIndex(rand, n));
  const leaves = new Map<number, Uint8Array>();
  for (const i of wanted) leaves.set(i, randomField(rand));

  const tree = new SparsePoseidonTree(height);
  expect(tree.root()).toEqual(zeroHash(height));
  const before = tree.root();
  for (const [i, leaf] of leaves) tree.setLeaf(i, leaf);
  const root = tree.root();
  expect(nodesEqual(root, before)).toBe(false);

  for (const [i, leaf] of leaves) {
    const built = buildLightProof(i, height, tree.lookup);
    expect(built.hash).toBe(toB58(leaf));
    expect(built.root).toBe(toB58(root));
    expect(built.proof).toHaveLength(height);
    expect(verifyLightBuiltProof(built), `leaf ${i}`).toBe(true);
    // a flipped sibling at a random level fails
    const level = randIndex(rand, height);
    const proof = built.proof.slice();
    proof[level] = toB58(flipLowBit(b58(proof[level])));
    expect(verifyLightBuiltProof({ ...built, proof }), `leaf ${i} level ${level}`).toBe(false);
    // the wrong leaf index (the sibling position) fails
    expect(verifyLightBuiltProof({ ...built, leafIndex: i ^ 1 })).toBe(false);
    expect(tree.leaf(i)).toEqual(leaf);
    expect(tree.node(leafNodeIndex(i, height))).toEqual(leaf);
  }

  // bottom, middle and top levels of the last leaf's proof, and a stale root
  const first = buildLightProof(n - 1, height, tree.lookup);
  expect(toB58(computeLightRoot(b58(first.hash), first.proof.map(b58), n - 1))).toBe(toB58(root));
  expect(verifyLightBuiltProof({ ...first, root: toB58(before) })).toBe(false);
  for (const level of new Set([0, 1, Math.floor(height / 2), height - 2, height - 1])) {
    const proof = first.proof.slice();
    proof[level] = toB58(flipLowBit(b58(proof[level])));
    expect(verifyLightProof({ root: first.root, leaf: first.hash, proof, leafIndex: n - 1 })).toBe(false);
  }

  // an absent leaf proves as the zero leaf
  let absent = randIndex(rand, n);
  while (leaves.has(absent)) absent = (absent + 1) % n;
  const empty = buildLightProof(absent, height, tree.lookup);
  expect(empty.hash).toBe(toB58(new Uint8Array(32)));
  expect(verifyLightBuiltProof(empty)).toBe(true);

  // write order does not matter
  const again = new SparsePoseidonTree(height);
  for (const [i, leaf] of [...leaves].reverse()) again.setLeaf(i, leaf);
  expect(again.root()).toEqual(root);
  expect(again.entries().map(([k, v]) => [k, toB58(v)])).toEqual(tree.entries().map(([k, v]) => [k, toB58(v)]));
}
