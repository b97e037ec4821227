/**
 * Shared property checks for the Merkle maths (seeded): random appends, replacements and burns on the reference
 * tree model; the node rows written from the emitted change-log paths must give, for every leaf checked, a
 * proof that verifies against the model's root and equals the model's own proof; corrupted proofs must fail;
 * the rows must not depend on the order the events are applied in (seq guard).
 */
import { expect } from 'vitest';
import { ConcurrentMerkleTreeModel, type ModelChangeLog } from '../../src/proofs/concurrent-tree-model.js';
import { emptyNode, hashPair, nodesEqual as sameBytes, nodeToBase58 } from '../../src/proofs/hash.js';
import { buildProof, verifyBuiltProof, verifyProof } from '../../src/proofs/verify.js';
import { flipBit, NodeStore, randInt, randomLeaf, rng, shuffled } from './helpers.js';

/** Root by brute force, level by level: independent of the model. */
function naiveRoot(leaves: readonly Uint8Array[], depth: number): Uint8Array {
  let level = Array.from({ length: 2 ** depth }, (_, i) => leaves[i] ?? emptyNode(0));
  while (level.length > 1) {
    const up: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(hashPair(level[i], level[i + 1]));
    level = up;
  }
  return level[0];
}

/** Checks the stored-rows proof of `leafIndex` against the model; returns it. */
export function checkLeaf(model: ConcurrentMerkleTreeModel, store: NodeStore, leafIndex: number) {
  const built = buildProof(leafIndex, model.depth, store.lookup);
  expect(built.nodeIndex).toBe(2 ** model.depth + leafIndex);
  expect(built.root).toBe(nodeToBase58(model.root));
  expect(built.leaf).toBe(nodeToBase58(model.leaf(leafIndex)));
  expect(built.proof).toEqual(model.proof(leafIndex).map(nodeToBase58));
  expect(verifyBuiltProof(built)).toBe(true);
  return built;
}

/** A corrupted leaf, sibling, root or leaf index must not verify. */
export function checkCorruptions(model: ConcurrentMerkleTreeModel, leafIndex: number, rand: () => number): void {
  const leaf = model.leaf(leafIndex);
  const proof = model.proof(leafIndex);
  const root = model.root;
  expect(verifyProof({ root, leaf, proof, leafIndex })).toBe(true);
  const bit = randInt(rand, 256);
  expect(verifyProof({ root, leaf: flipBit(leaf, bit), proof, leafIndex })).toBe(false);
  expect(verifyProof({ root: flipBit(root, bit), leaf, proof, leafIndex })).toBe(false);
  const k = randInt(rand, proof.length);
  const bad = proof.slice();
  bad[k] = flipBit(bad[k], bit);
  expect(verifyProof({ root, leaf, proof: bad, leafIndex })).toBe(false);
  const shorter = proof.slice(0, -1);
  expect(verifyProof({ root, leaf, proof: shorter, leafIndex: leafIndex % 2 ** shorter.length })).toBe(false);
  // another index verifies only if the hashes it swaps are equal; flip the lowest level where they differ
  let node = leaf;
  for (let level = 0; level < proof.length; level++) {
    const bitSet = Math.floor(leafIndex / 2 ** level) % 2 === 1;
    if (!sameBytes(node, proof[level])) {
      const other = bitSet ? leafIndex - 2 ** level : leafIndex + 2 ** level;
      expect(verifyProof({ root, leaf, proof, leafIndex: other })).toBe(false);
      break;
    }
    node = bitSet ? hashPair(proof[level], node) : hashPair(node, proof[level]);
  }
}

/**
 * Fills a tree of `depth` to capacity (appends with random replacements and burns in between, then more
 * replacements), checking boundary leaves at checkpoints, then the whole stored tree node for node, every
 * leaf's proof (a sample above depth 11), corruptions, and order-independence of the rows (depth ≤ 8).
 */
export function runFullTree(depth: number): void {
  const rand = rng(0x5eed + depth);
  const model = new ConcurrentMerkleTreeModel(depth);
  const store = new NodeStore();
  const events: ModelChangeLog[] = [model.initialChangeLog()];
  store.apply(events[0]);
  const capacity = 2 ** depth;
  const half = capacity / 2;
  const boundaries = [0, 1, half - 1, half, capacity - 2, capacity - 1];
  const checkpoint = Math.max(1, Math.floor(capacity / 6));
  for (let step = 0; model.numLeaves < capacity; step++) {
    const ev =
      model.numLeaves > 0 && rand() < 0.25
        ? model.replaceLeaf(randInt(rand, model.numLeaves), rand() < 0.15 ? emptyNode(0) : randomLeaf(rand))
        : model.append(randomLeaf(rand));
    if (ev.seq !== BigInt(events.length)) expect.fail(`seq ${ev.seq} after ${events.length} events`);
    if (!sameBytes(ev.path[depth].node, model.root)) expect.fail('the path does not end at the root');
    events.push(ev);
    store.apply(ev);
    if (step % checkpoint === 0) {
      for (const i of [...boundaries, ev.index, randInt(rand, capacity)]) checkLeaf(model, store, i);
    }
  }
  expect(() => model.append(randomLeaf(rand))).toThrow(/full/);
  for (let r = 0; r < capacity / 8; r++) {
    const ev = model.replaceLeaf(randInt(rand, capacity), randomLeaf(rand));
    events.push(ev);
    store.apply(ev);
  }
  // the stored rows (absent = empty subtree) are the whole tree, node for node: every proof is right
  for (let n = 1; n < 2 * capacity; n++) {
    const stored = store.lookup(n) ?? emptyNode(depth - Math.floor(Math.log2(n)));
    if (!sameBytes(stored, model.node(n))) expect.fail(`node ${n} differs`);
  }
  // and every leaf's proof built from them verifies (all leaves up to depth 11, a sample above)
  const leavesToCheck = depth <= 11 ? capacity : 1024;
  for (let k = 0; k < leavesToCheck; k++) checkLeaf(model, store, depth <= 11 ? k : randInt(rand, capacity));
  if (depth <= 10) {
    const leaves = Array.from({ length: capacity }, (_, i) => model.leaf(i));
    expect(naiveRoot(leaves, depth)).toEqual(model.root);
  }
  for (const i of [...boundaries, randInt(rand, capacity)]) checkCorruptions(model, i, rand);
  // replaying the events in another order leaves the same rows (rows are guarded by seq)
  if (depth <= 8) {
    const replay = new NodeStore();
    for (const ev of shuffled(events, rand)) replay.apply(ev);
    expect(replay.rows).toEqual(store.rows);
  }
}

/**
 * A deep tree with a dozen appended leaves plus leaves written at the middle and both ends, replaced and
 * burnt at random, events applied in shuffled order: written and unwritten leaves all prove.
 */
export function runSparseTree(depth: number): void {
  const rand = rng(0xdeed + depth);
  const model = new ConcurrentMerkleTreeModel(depth);
  const store = new NodeStore();
  const events: ModelChangeLog[] = [model.initialChangeLog()];
  const capacity = 2 ** depth;
  const half = capacity / 2;
  const far = [half - 1, half, half + 1, capacity - 2, capacity - 1, randInt(rand, capacity)];
  for (let i = 0; i < 12; i++) events.push(model.append(randomLeaf(rand)));
  for (const i of far) events.push(model.setLeaf(i, randomLeaf(rand)));
  for (let r = 0; r < 10; r++) {
    const i = rand() < 0.5 ? randInt(rand, 12) : far[randInt(rand, far.length)];
    events.push(model.replaceLeaf(i, rand() < 0.2 ? emptyNode(0) : randomLeaf(rand)));
  }
  expect(() => model.append(randomLeaf(rand))).toThrow(/full/); // capacity - 1 is written: no room left
  for (const ev of shuffled(events, rand)) store.apply(ev);
  const written = [...new Set(events.map((e) => e.index))];
  const unwritten = [2, 13, half - 2, half + 2, capacity - 3, randInt(rand, capacity)];
  for (const i of [...written, ...unwritten]) checkLeaf(model, store, i);
  for (const i of [0, half, capacity - 1]) checkCorruptions(model, i, rand);
}
