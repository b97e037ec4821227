/**
 * Property tests of the Merkle maths on full trees of depths 3..12 (13 and 14 in properties-deep, sparse
 * 15..30 in properties-sparse; the checks themselves are in tree-checks.ts).
 */
import { describe, expect, it } from 'vitest';
import { ConcurrentMerkleTreeModel } from '../../src/proofs/concurrent-tree-model.js';
import { emptyNode } from '../../src/proofs/hash.js';
import { buildProof, verifyBuiltProof } from '../../src/proofs/verify.js';
import { NodeStore, randomLeaf, rng } from './helpers.js';
import { checkLeaf, runFullTree } from './tree-checks.js';

describe('full trees, depths 3..12: fill to capacity with random replacements and burns', () => {
  for (let depth = 3; depth <= 12; depth++) it(`depth ${depth}`, () => runFullTree(depth));
});

describe('stale rows are never served', () => {
  it('an older event applied after a newer one does not roll a node back', () => {
    const rand = rng(7);
    const model = new ConcurrentMerkleTreeModel(5);
    const store = new NodeStore();
    const evs = [model.initialChangeLog()];
    for (let i = 0; i < 20; i++) evs.push(model.append(randomLeaf(rand)));
    evs.push(model.replaceLeaf(3, randomLeaf(rand)));
    evs.push(model.replaceLeaf(3, emptyNode(0)));
    for (const ev of evs.slice().reverse()) store.apply(ev);
    for (let i = 0; i < 32; i++) checkLeaf(model, store, i);
    // a store that missed an event serves a proof that fails verification (rule 8 catches it)
    const missing = new NodeStore();
    evs.filter((_, k) => k !== 10).forEach((ev) => missing.apply(ev));
    const p = buildProof(9, 5, missing.lookup);
    expect(verifyBuiltProof(p)).toBe(false);
  });
});
