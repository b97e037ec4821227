/**
 * State-tree proofs against Photon's recorded getMultipleCompressedAccountProofs answers (V1 tree smt1…,
 * height 26): every recorded proof verifies, tampering fails, proofs rebuilt from the recorded nodes (absent
 * nodes = zero hashes) are identical, and two proofs of one root agree on their shared nodes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { initPoseidon } from '../../../src/proofs/light/poseidon.js';
import {
  buildLightProof,
  computeLightRoot,
  readLightProofNodes,
  verifyLightBuiltProof,
  verifyLightProof,
  type LightMerkleProof,
} from '../../../src/proofs/light/merkle-proof.js';
import { isZeroHash, leafNodeIndex, MAX_LIGHT_TREE_HEIGHT, proofNodeIndexes, zeroHash } from '../../../src/proofs/light/trees.js';
import { b58, flipLowBit, readSnapshot, snap, toB58 } from './helpers.js';

interface PhotonProof extends LightMerkleProof {
  merkleTree: string;
  rootSeq: number;
}

let recorded: PhotonProof[];

beforeAll(async () => {
  await initPoseidon();
  recorded = [snap.lamportProofs, snap.nullifierProofs, snap.bobProofs].flatMap(
    (f) => readSnapshot<{ value: PhotonProof[] }>(f).value,
  );
});

/** The recorded nodes of a proof as stored rows: siblings, leaf and root, dropping those equal to zero hashes. */
function rowsOf(p: PhotonProof, height: number, keepZero = false): Map<number, Uint8Array> {
  const rows = new Map<number, Uint8Array>();
  proofNodeIndexes(p.leafIndex, height).forEach((n, level) => {
    const h = b58(p.proof[level]);
    if (keepZero || !isZeroHash(h, level)) rows.set(n, h);
  });
  rows.set(leafNodeIndex(p.leafIndex, height), b58(p.hash));
  rows.set(1, b58(p.root));
  return rows;
}

describe('recorded Photon proofs', () => {
  it('there are four, all of height 26', () => {
    expect(recorded).toHaveLength(4);
    for (const p of recorded) expect(p.proof).toHaveLength(26);
  });

  it('every recorded proof verifies (base58 and byte forms)', () => {
    for (const p of recorded) {
      expect(verifyLightBuiltProof(p)).toBe(true);
      const root = computeLightRoot(b58(p.hash), p.proof.map(b58), p.leafIndex);
      expect(toB58(root)).toBe(p.root);
      expect(verifyLightProof({ root: b58(p.root), leaf: b58(p.hash), proof: p.proof.map(b58), leafIndex: p.leafIndex })).toBe(true);
    }
  });

  it('a flipped sibling, another leaf index, another leaf or another root fails', () => {
    recorded.forEach((p, k) => {
      // every level of the first proof, then the bottom, middle and top levels
      for (const level of k === 0 ? p.proof.keys() : [0, 1, 13, 24, 25]) {
        const proof = p.proof.slice();
        proof[level] = toB58(flipLowBit(b58(proof[level])));
        expect(verifyLightBuiltProof({ ...p, proof }), `level ${level}`).toBe(false);
      }
      expect(verifyLightBuiltProof({ ...p, leafIndex: p.leafIndex ^ 1 })).toBe(false);
      expect(verifyLightBuiltProof({ ...p, leafIndex: p.leafIndex + 2 ** 20 })).toBe(false);
      expect(verifyLightBuiltProof({ ...p, hash: toB58(flipLowBit(b58(p.hash))) })).toBe(false);
      expect(verifyLightBuiltProof({ ...p, root: toB58(flipLowBit(b58(p.root))) })).toBe(false);
      expect(verifyLightBuiltProof({ ...p, proof: p.proof.slice(0, 25) })).toBe(false);
    });
  });

  it('malformed input is false, never an exception', () => {
    const p = recorded[0];
    const notField = toB58(new Uint8Array(32).fill(255));
    expect(verifyLightBuiltProof({ ...p, root: 'not-base58!' })).toBe(false);
    expect(verifyLightBuiltProof({ ...p, hash: toB58(new Uint8Array(31)) })).toBe(false);
    expect(verifyLightBuiltProof({ ...p, hash: notField })).toBe(false);
    expect(verifyLightBuiltProof({ ...p, proof: [notField, ...p.proof.slice(1)] })).toBe(false);
    expect(verifyLightBuiltProof({ ...p, leafIndex: -1 })).toBe(false);
    expect(verifyLightBuiltProof({ ...p, leafIndex: 2 ** 26 })).toBe(false);
    expect(verifyLightBuiltProof({ ...p, leafIndex: 1.5 })).toBe(false);
    expect(verifyLightBuiltProof({ ...p, proof: Array.from({ length: MAX_LIGHT_TREE_HEIGHT + 1 }, () => p.proof[0]) })).toBe(false);
    expect(verifyLightProof({ root: p.root, leaf: p.hash, proof: 'x' as unknown as string[], leafIndex: 0 })).toBe(false);
  });

  it('rebuilding from the stored nodes (absent nodes = zero hashes) gives the recorded proof exactly', () => {
    for (const p of recorded) {
      const rows = rowsOf(p, 26);
      expect(rows.size).toBeLessThan(28); // the zero-hash siblings were dropped and must come back
      const built = buildLightProof(p.leafIndex, 26, (n) => rows.get(n));
      expect(built).toEqual({ hash: p.hash, leafIndex: p.leafIndex, proof: p.proof, root: p.root });
      expect(verifyLightBuiltProof(built)).toBe(true);
    }
  });

  it('the two proofs of one root (bob: leaves 6 and 3) agree on every node they share and rebuild from one store', () => {
    const [a, b] = readSnapshot<{ value: PhotonProof[] }>(snap.bobProofs).value;
    expect(a.root).toBe(b.root);
    const ra = rowsOf(a, 26, true);
    const rb = rowsOf(b, 26, true);
    let shared = 0;
    for (const [n, h] of ra) {
      const other = rb.get(n);
      if (other !== undefined) {
        shared++;
        expect(toB58(other), `node ${n}`).toBe(toB58(h));
      }
    }
    expect(shared).toBe(24); // levels 3..25 siblings (23) and the root
    const store = new Map([...ra, ...rb]);
    for (const p of [a, b]) {
      expect(buildLightProof(p.leafIndex, 26, (n) => store.get(n))).toEqual({ hash: p.hash, leafIndex: p.leafIndex, proof: p.proof, root: p.root });
    }
    // and the validity proof of the same accounts reports that root
    const vp = readSnapshot(snap.bobValidityProofV2).value.accounts as { hash: string; root: string; leafIndex: number }[];
    expect(vp.map((x) => [x.hash, x.root, x.leafIndex])).toEqual([a, b].map((x) => [x.hash, x.root, x.leafIndex]));
  });

  it("the lamport validity proof names the recorded proof's root, leaf and index", () => {
    const vp = readSnapshot(snap.lamportValidityProof).value;
    const p = readSnapshot<{ value: PhotonProof[] }>(snap.lamportProofs).value[0];
    expect([vp.roots[0], vp.leaves[0], vp.leafIndices[0], vp.merkleTrees[0]]).toEqual([p.root, p.hash, p.leafIndex, p.merkleTree]);
  });

  it('an empty store gives the empty-tree proof: zero leaf, zero siblings, zero root', () => {
    const built = buildLightProof(5, 32, () => undefined);
    expect(built.hash).toBe(toB58(new Uint8Array(32)));
    expect(built.proof).toEqual(Array.from({ length: 32 }, (_, level) => toB58(zeroHash(level))));
    expect(built.root).toBe(toB58(zeroHash(32)));
    expect(verifyLightBuiltProof(built)).toBe(true);
    const nodes = readLightProofNodes(0, 40, () => undefined);
    expect(nodes.siblings).toHaveLength(40);
    expect(nodes.root).toEqual(zeroHash(40));
  });

  it('a stored node that is not 32 bytes is an error', () => {
    expect(() => buildLightProof(0, 26, (n) => (n === 3 ? new Uint8Array(31) : undefined))).toThrow(/32 bytes/);
  });
});
