/**
 * Zero hashes, empty-tree roots and node-index maths of Light trees (heights 26, 32, 40).
 *
 * Vectors: Photon `persisted_state_tree.rs` `ZERO_BYTES` (levels 1, 2, 3, 25, 26, 32, 39, 40); the on-chain root
 * history of batched state tree HLKs5NJ8… in Photon's `batch_append_nullified_test` (roots[0], before any
 * append, is the empty height-32 root); the empty V1 address tree root and proof of the mock_tests snapshot.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { initPoseidon, poseidonPair } from '../../../src/proofs/light/poseidon.js';
import {
  assertHeight,
  emptyTreeRoot,
  isLeftChild,
  isZeroHash,
  leafCount,
  leafIndexOfNode,
  leafNodeIndex,
  LIGHT_TREE_HEIGHT,
  MAX_LIGHT_TREE_HEIGHT,
  nodeLevel,
  parentNodeIndex,
  pathNodeIndexes,
  proofNodeIndexes,
  siblingNodeIndex,
  TREE_TYPE_CODE,
  treeTypeFromCode,
  zeroHash,
} from '../../../src/proofs/light/trees.js';
import { SolgateError } from '../../../src/core/errors.js';
import { b58, readSnapshot, rng, randIndex, snap, toB58 } from './helpers.js';

beforeAll(async () => {
  await initPoseidon();
});

// Photon src/ingester/persist/persisted_state_tree.rs ZERO_BYTES[level]
const PHOTON_ZERO_BYTES: Record<number, number[]> = {
  1: [32, 152, 245, 251, 158, 35, 158, 171, 60, 234, 195, 242, 123, 129, 228, 129, 220, 49, 36, 213, 95, 254, 213, 35, 168, 57, 238, 132, 70, 182, 72, 100],
  2: [16, 105, 103, 61, 205, 177, 34, 99, 223, 48, 26, 111, 245, 132, 167, 236, 38, 26, 68, 203, 157, 198, 141, 240, 103, 164, 119, 68, 96, 177, 241, 225],
  3: [24, 244, 51, 49, 83, 126, 226, 175, 46, 61, 117, 141, 80, 247, 33, 6, 70, 124, 110, 234, 80, 55, 29, 213, 40, 213, 126, 178, 184, 86, 210, 56],
  25: [47, 246, 101, 5, 64, 246, 41, 253, 87, 17, 160, 188, 116, 252, 13, 40, 220, 178, 48, 185, 57, 37, 131, 229, 248, 213, 150, 150, 221, 230, 174, 33],
  26: [18, 12, 88, 241, 67, 212, 145, 233, 89, 2, 247, 245, 39, 119, 120, 162, 224, 173, 81, 104, 246, 173, 215, 86, 105, 147, 38, 48, 206, 97, 21, 24],
  32: [47, 104, 161, 197, 142, 37, 126, 66, 161, 122, 108, 97, 223, 245, 85, 30, 213, 96, 185, 146, 42, 177, 25, 213, 172, 142, 24, 76, 151, 52, 234, 217],
  39: [17, 239, 244, 246, 12, 44, 220, 197, 72, 193, 224, 119, 12, 61, 100, 180, 156, 1, 227, 77, 164, 175, 41, 207, 234, 87, 90, 25, 190, 250, 102, 156],
  40: [19, 52, 250, 75, 85, 47, 0, 239, 64, 51, 97, 201, 53, 193, 171, 207, 137, 104, 81, 0, 60, 64, 218, 169, 59, 176, 253, 10, 11, 185, 168, 129],
};

describe('zero hashes', () => {
  it('level 0 is 32 zero bytes; level i = Poseidon(zero(i-1), zero(i-1)) up to 40', () => {
    expect(zeroHash(0)).toEqual(new Uint8Array(32));
    for (let level = 1; level <= MAX_LIGHT_TREE_HEIGHT; level++) {
      expect(zeroHash(level)).toEqual(poseidonPair(zeroHash(level - 1), zeroHash(level - 1)));
      expect(isZeroHash(zeroHash(level), level)).toBe(true);
      expect(isZeroHash(zeroHash(level), level - 1)).toBe(false);
    }
  });

  it("equal Photon's ZERO_BYTES", () => {
    for (const [level, bytes] of Object.entries(PHOTON_ZERO_BYTES)) {
      expect(Array.from(zeroHash(Number(level))), `level ${level}`).toEqual(bytes);
    }
  });

  it('returns copies and refuses levels outside 0..40', () => {
    const z = zeroHash(3);
    z[0] ^= 1;
    expect(Array.from(zeroHash(3))).toEqual(PHOTON_ZERO_BYTES[3]);
    expect(() => zeroHash(41)).toThrow(SolgateError);
    expect(() => zeroHash(-1)).toThrow(SolgateError);
    expect(() => zeroHash(1.5)).toThrow(SolgateError);
  });
});

describe('empty-tree roots', () => {
  it('V2 batched state tree (height 32): the on-chain root of HLKs5NJ8… at sequence 0', () => {
    expect(toB58(emptyTreeRoot(LIGHT_TREE_HEIGHT.StateV2))).toBe('4C4hXkTeb81GhLj8GBTwDxRxvBy2xZxVFh4YfthKA6XJ');
  });

  it('V1 trees (height 26): the upper siblings of the empty V1 address tree proof are the zero hashes', () => {
    const proof: string[] = readSnapshot(snap.mockNewAddressProofs).value[0].proof;
    expect(proof).toHaveLength(LIGHT_TREE_HEIGHT.AddressV1);
    for (let level = 1; level < 26; level++) expect(proof[level]).toBe(toB58(zeroHash(level)));
    expect(emptyTreeRoot(26)).toEqual(zeroHash(26));
  });

  it('recorded state-tree proofs with few leaves carry zero hashes above the occupied levels', () => {
    // lamport_transfers: leaf 3 of smt1 with leaves 0..3 written; levels 2.. hold no other leaf
    const item = readSnapshot(snap.lamportProofs).value[0];
    for (let level = 3; level < 26; level++) expect(item.proof[level]).toBe(toB58(zeroHash(level)));
  });

  it('heights of the deployed trees and type codes', () => {
    expect(LIGHT_TREE_HEIGHT).toEqual({ StateV1: 26, AddressV1: 26, StateV2: 32, AddressV2: 40 });
    expect(TREE_TYPE_CODE).toEqual({ StateV1: 1, AddressV1: 2, StateV2: 3, AddressV2: 4 });
    expect(treeTypeFromCode(3)).toBe('StateV2');
    expect(treeTypeFromCode(9)).toBeUndefined();
    // snapshots: merkleContext.treeType 1 for smt1
    expect(readSnapshot(snap.bobAccountsV2).value.items[0].account.merkleContext.treeType).toBe(TREE_TYPE_CODE.StateV1);
  });
});

describe('node indexes up to height 40', () => {
  it('heights 1..40 only', () => {
    for (const h of [0, 41, 2.5, NaN]) expect(() => assertHeight(h)).toThrow(SolgateError);
    expect(leafCount(40)).toBe(2 ** 40);
    expect(leafCount(32)).toBe(4294967296);
  });

  it('boundary leaves of heights 26, 32 and 40', () => {
    for (const h of [26, 32, 40]) {
      const last = 2 ** h - 1;
      expect(leafNodeIndex(0, h)).toBe(2 ** h);
      expect(leafNodeIndex(last, h)).toBe(2 ** (h + 1) - 1);
      expect(nodeLevel(leafNodeIndex(last, h), h)).toBe(0);
      expect(nodeLevel(leafNodeIndex(0, h), h)).toBe(0);
      expect(nodeLevel(2 ** h - 1, h)).toBe(1);
      expect(nodeLevel(1, h)).toBe(h);
      expect(nodeLevel(2, h)).toBe(h - 1);
      expect(leafIndexOfNode(leafNodeIndex(last, h), h)).toBe(last);
      expect(() => leafNodeIndex(last + 1, h)).toThrow(SolgateError);
      expect(() => nodeLevel(2 ** (h + 1), h)).toThrow(SolgateError);
      expect(() => leafIndexOfNode(2 ** h - 1, h)).toThrow(/not a leaf/);
      const path = pathNodeIndexes(last, h);
      expect(path).toHaveLength(h + 1);
      expect(path[h]).toBe(1);
      const proof = proofNodeIndexes(last, h);
      expect(proof).toHaveLength(h);
      expect(proof[0]).toBe(2 ** (h + 1) - 2);
      expect(proof[h - 1]).toBe(2);
    }
    // past 2^32: leaf 2^32 of a height-40 tree
    expect(leafNodeIndex(2 ** 32, 40)).toBe(2 ** 40 + 2 ** 32);
    expect(siblingNodeIndex(2 ** 40 + 2 ** 32)).toBe(2 ** 40 + 2 ** 32 + 1);
    expect(parentNodeIndex(2 ** 41 - 1)).toBe(2 ** 40 - 1);
  });

  it('agree with bigint arithmetic on random leaves of every height', () => {
    const rand = rng(26);
    for (let h = 1; h <= 40; h++) {
      for (let k = 0; k < 8; k++) {
        const leaf = randIndex(rand, 2 ** h);
        let n = (1n << BigInt(h)) + BigInt(leaf);
        expect(leafNodeIndex(leaf, h)).toBe(Number(n));
        const path = pathNodeIndexes(leaf, h);
        const proof = proofNodeIndexes(leaf, h);
        for (let level = 0; level < h; level++) {
          expect(path[level]).toBe(Number(n));
          expect(nodeLevel(path[level], h)).toBe(level);
          expect(proof[level]).toBe(Number(n ^ 1n));
          expect(isLeftChild(path[level])).toBe((n & 1n) === 0n);
          expect(parentNodeIndex(path[level])).toBe(Number(n >> 1n));
          n >>= 1n;
        }
        expect(path[h]).toBe(1);
      }
    }
  });

  it('the root has no parent or sibling', () => {
    expect(() => parentNodeIndex(1)).toThrow(SolgateError);
    expect(() => siblingNodeIndex(1)).toThrow(SolgateError);
    expect(() => siblingNodeIndex(2 ** 60)).toThrow(SolgateError);
  });

  it("a snapshot leaf's node index matches Photon's 2^(tree_height-1) + leaf_index with tree_height = 27", () => {
    const item = readSnapshot(snap.lamportProofs).value[0];
    expect(leafNodeIndex(item.leafIndex, 26)).toBe(2 ** (27 - 1) + item.leafIndex);
    expect(b58(item.hash)).toHaveLength(32);
  });
});
