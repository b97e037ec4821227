/**
 * Indexed (address) Merkle trees and Photon's non-inclusion proofs.
 *
 * Vectors: the mock_tests snapshot (fresh V1 tree amt1…: every field of both answers), the
 * nullfiier_and_address_queue snapshot (V1 tree after one address was inserted: every field, rootSeq from the
 * chain), Light's `ADDRESS_TREE_INIT_ROOT_40` (batched-merkle-tree constants.rs, also asserted by Photon's
 * test_address_tree_init.rs) for a fresh V2 tree. Then properties of random inserts into V1 and V2 trees.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { initPoseidon, poseidon } from '../../../src/proofs/light/poseidon.js';
import {
  addressToBigint,
  bigintToAddress,
  buildNewAddressProof,
  EMPTY_ADDRESS_TREE_ROOT_SEQ,
  emptyAddressTreeProof,
  findLowElement,
  HIGHEST_ADDRESS_PLUS_ONE,
  IndexedMerkleTree,
  indexedElementHash,
  initialAddressTreeRoot,
  initialIndexedElements,
  isAddressInLowElementRange,
  verifyNewAddressProof,
  type AddressTreeType,
  type IndexedElement,
  type NewAddressProof,
} from '../../../src/proofs/light/indexed-tree.js';
import { SparsePoseidonTree } from '../../../src/proofs/light/sparse-tree.js';
import { zeroHash } from '../../../src/proofs/light/trees.js';
import { SolgateError } from '../../../src/core/errors.js';
import { flipLowBit, b58, randomField, readSnapshot, rng, snap, toB58 } from './helpers.js';

const AMT1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
const V2_TREE = 'EzKE84aVTkCUhDHLELqyJaq1Y7UVVmqxXqZjVHwHY3rK';
const ZERO_ADDRESS = '11111111111111111111111111111111';

// light-protocol program-libs/batched-merkle-tree/src/constants.rs ADDRESS_TREE_INIT_ROOT_40
const ADDRESS_TREE_INIT_ROOT_40 = [
  28, 65, 107, 255, 208, 234, 51, 3, 131, 95, 62, 130, 202, 177, 176, 26, 216, 81, 64, 184, 200, 25, 95, 124, 248, 129,
  44, 109, 229, 146, 106, 76,
];

beforeAll(async () => {
  await initPoseidon();
});

describe('constants and leaf hashes', () => {
  it('HIGHEST_ADDRESS_PLUS_ONE = 2^248 - 1, shown as the higherRangeAddress of a fresh tree', () => {
    expect(HIGHEST_ADDRESS_PLUS_ONE).toBe(452312848583266388373324160190187140051835877600158453279131187530910662655n);
    expect(bigintToAddress(HIGHEST_ADDRESS_PLUS_ONE)).toBe(readSnapshot(snap.mockNewAddressProofs).value[0].higherRangeAddress);
    expect(bigintToAddress(0n)).toBe(ZERO_ADDRESS);
    expect(addressToBigint(ZERO_ADDRESS)).toBe(0n);
    expect(() => addressToBigint('abc')).toThrow(SolgateError);
  });

  it('V1 hashes (value, nextIndex, nextValue); V2 hashes (value, nextValue) and ignores nextIndex', () => {
    const e: IndexedElement = { index: 4, value: 11n, nextIndex: 7, nextValue: 99n };
    expect(indexedElementHash(e, 'AddressV1')).toEqual(poseidon([11n, 7n, 99n]));
    expect(indexedElementHash(e, 'AddressV2')).toEqual(poseidon([11n, 99n]));
    expect(indexedElementHash({ ...e, nextIndex: 8 }, 'AddressV2')).toEqual(indexedElementHash(e, 'AddressV2'));
    expect(indexedElementHash({ ...e, nextIndex: 8 }, 'AddressV1')).not.toEqual(indexedElementHash(e, 'AddressV1'));
  });

  it('fresh trees: V1 holds element 0 and the top element, V2 only element 0', () => {
    expect(initialIndexedElements('AddressV1')).toEqual([
      { index: 0, value: 0n, nextIndex: 1, nextValue: HIGHEST_ADDRESS_PLUS_ONE },
      { index: 1, value: HIGHEST_ADDRESS_PLUS_ONE, nextIndex: 0, nextValue: 0n },
    ]);
    expect(initialIndexedElements('AddressV2')).toEqual([
      { index: 0, value: 0n, nextIndex: 0, nextValue: HIGHEST_ADDRESS_PLUS_ONE },
    ]);
    expect(EMPTY_ADDRESS_TREE_ROOT_SEQ).toEqual({ AddressV1: 3, AddressV2: 0 });
  });
});

describe('fresh V1 address tree (mock_tests snapshot, tree amt1…)', () => {
  it('every field of getMultipleNewAddressProofs for both addresses', () => {
    const recorded = readSnapshot<{ value: NewAddressProof[] }>(snap.mockNewAddressProofs).value;
    expect(recorded).toHaveLength(2);
    for (const expected of recorded) {
      const p = emptyAddressTreeProof('AddressV1', expected.address, AMT1);
      expect(p).toEqual(expected);
      expect(JSON.stringify(p)).toBe(JSON.stringify(expected)); // same field order as Photon's serialisation
      expect(p.proof).toHaveLength(26);
      expect(verifyNewAddressProof(p, 'AddressV1', 26)).toBe(true);
      // both addresses are ≥ 2^248: Photon answers with element 0 anyway, whose range does not contain them
      expect(addressToBigint(p.address) > HIGHEST_ADDRESS_PLUS_ONE).toBe(true);
      expect(isAddressInLowElementRange(p)).toBe(false);
    }
  });

  it('the fresh tree model has that root, with the top element hash as the first sibling', () => {
    const recorded = readSnapshot<{ value: NewAddressProof[] }>(snap.mockNewAddressProofs).value[0];
    const t = new IndexedMerkleTree('AddressV1');
    expect(toB58(t.root())).toBe(recorded.root);
    expect(toB58(initialAddressTreeRoot('AddressV1'))).toBe(recorded.root);
    expect(recorded.proof[0]).toBe(toB58(indexedElementHash(initialIndexedElements('AddressV1')[1], 'AddressV1')));
  });

  it('an in-range address gets the same proof from the model, and it shows absence', () => {
    const t = new IndexedMerkleTree('AddressV1');
    const address = bigintToAddress(12345678901234567890n);
    const p = t.newAddressProof(address, { merkleTree: AMT1, rootSeq: 3 });
    expect(p).toEqual(emptyAddressTreeProof('AddressV1', address, AMT1));
    expect(isAddressInLowElementRange(p)).toBe(true);
  });

  it('address 0 exists in every tree', () => {
    expect(() => emptyAddressTreeProof('AddressV1', ZERO_ADDRESS, AMT1)).toThrow(/already exists/);
    expect(() => emptyAddressTreeProof('AddressV2', ZERO_ADDRESS, V2_TREE)).toThrow(/already exists/);
  });
});

describe('V1 address tree after one insertion (nullfiier_and_address_queue snapshot)', () => {
  it('every field of the recorded answer, from the fresh tree plus the one inserted address', () => {
    const expected = readSnapshot<{ value: NewAddressProof[] }>(snap.nullifierAddressProof).value[0];
    const t = new IndexedMerkleTree('AddressV1');
    const inserted = t.insert(expected.higherRangeAddress);
    expect(inserted).toEqual({ index: 2, value: addressToBigint(expected.higherRangeAddress), nextIndex: 1, nextValue: HIGHEST_ADDRESS_PLUS_ONE });
    const p = t.newAddressProof(expected.address, { merkleTree: expected.merkleTree, rootSeq: expected.rootSeq });
    expect(p).toEqual(expected);
    expect(JSON.stringify(p)).toBe(JSON.stringify(expected));
    expect(verifyNewAddressProof(p, 'AddressV1', 26)).toBe(true);
    expect(isAddressInLowElementRange(p)).toBe(true);
    // the inserted address now exists
    expect(() => t.newAddressProof(expected.higherRangeAddress, { merkleTree: AMT1, rootSeq: 5 })).toThrow(/already exists/);
  });

  it('tampering with any field but merkleTree/rootSeq/address breaks verification', () => {
    const p = readSnapshot<{ value: NewAddressProof[] }>(snap.nullifierAddressProof).value[0];
    expect(verifyNewAddressProof(p, 'AddressV1')).toBe(true);
    expect(verifyNewAddressProof(p, 'AddressV2')).toBe(false);
    expect(verifyNewAddressProof(p, 'AddressV1', 40)).toBe(false);
    expect(verifyNewAddressProof({ ...p, nextIndex: 3 }, 'AddressV1')).toBe(false);
    expect(verifyNewAddressProof({ ...p, lowElementLeafIndex: 2 }, 'AddressV1')).toBe(false);
    expect(verifyNewAddressProof({ ...p, root: toB58(flipLowBit(b58(p.root))) }, 'AddressV1')).toBe(false);
    expect(verifyNewAddressProof({ ...p, higherRangeAddress: toB58(flipLowBit(b58(p.higherRangeAddress))) }, 'AddressV1')).toBe(false);
    expect(verifyNewAddressProof({ ...p, lowerRangeAddress: toB58(flipLowBit(b58(p.lowerRangeAddress))) }, 'AddressV1')).toBe(false);
    const proof = p.proof.slice();
    proof[1] = toB58(flipLowBit(b58(proof[1])));
    expect(verifyNewAddressProof({ ...p, proof }, 'AddressV1')).toBe(false);
    expect(verifyNewAddressProof({ ...p, higherRangeAddress: 'not base58!' }, 'AddressV1')).toBe(false);
    expect(verifyNewAddressProof({ ...p, higherRangeAddress: toB58(new Uint8Array(32).fill(255)) }, 'AddressV1')).toBe(false);
    expect(verifyNewAddressProof({ ...p, nextIndex: -1 }, 'AddressV1')).toBe(false);
  });
});

describe('fresh V2 address tree (height 40)', () => {
  it("root is Light's ADDRESS_TREE_INIT_ROOT_40", () => {
    expect(Array.from(initialAddressTreeRoot('AddressV2'))).toEqual(ADDRESS_TREE_INIT_ROOT_40);
    expect(Array.from(new IndexedMerkleTree('AddressV2').root())).toEqual(ADDRESS_TREE_INIT_ROOT_40);
    // = H(0, HIGHEST) hashed up through 40 zero siblings (test_address_tree_init_correct_formula)
    const t = new SparsePoseidonTree(40);
    t.setLeaf(0, poseidon([0n, HIGHEST_ADDRESS_PLUS_ONE]));
    expect(Array.from(t.root())).toEqual(ADDRESS_TREE_INIT_ROOT_40);
  });

  it("Photon's empty-tree answer: element 0, 40 zero siblings, rootSeq 0", () => {
    const address = bigintToAddress(987654321n);
    const p = emptyAddressTreeProof('AddressV2', address, V2_TREE);
    expect(p).toEqual({
      root: toB58(Uint8Array.from(ADDRESS_TREE_INIT_ROOT_40)),
      address,
      lowerRangeAddress: ZERO_ADDRESS,
      higherRangeAddress: bigintToAddress(HIGHEST_ADDRESS_PLUS_ONE),
      nextIndex: 0,
      proof: Array.from({ length: 40 }, (_, level) => toB58(zeroHash(level))),
      merkleTree: V2_TREE,
      rootSeq: 0,
      lowElementLeafIndex: 0,
    });
    expect(verifyNewAddressProof(p, 'AddressV2', 40)).toBe(true);
    expect(isAddressInLowElementRange(p)).toBe(true);
    // out-of-range addresses get the same answer (as in the V1 snapshot)
    const high = toB58(new Uint8Array(32).fill(7));
    expect({ ...emptyAddressTreeProof('AddressV2', high, V2_TREE), address: address }).toEqual(p);
  });
});

describe('low element search', () => {
  const elements: IndexedElement[] = [
    { index: 0, value: 0n, nextIndex: 2, nextValue: 10n },
    { index: 1, value: HIGHEST_ADDRESS_PLUS_ONE, nextIndex: 0, nextValue: 0n },
    { index: 2, value: 10n, nextIndex: 3, nextValue: 20n },
    { index: 3, value: 20n, nextIndex: 1, nextValue: HIGHEST_ADDRESS_PLUS_ONE },
  ];

  it('is the largest value below the address', () => {
    expect(findLowElement(elements, 1n).index).toBe(0);
    expect(findLowElement(elements, 9n).index).toBe(0);
    expect(findLowElement(elements, 11n).index).toBe(2);
    expect(findLowElement(elements, 19n).index).toBe(2);
    expect(findLowElement(elements, 21n).index).toBe(3);
    expect(findLowElement(elements, HIGHEST_ADDRESS_PLUS_ONE - 1n).index).toBe(3);
    // beyond the sentinel: the top element, as Photon's query would pick (no range check)
    expect(findLowElement(elements, HIGHEST_ADDRESS_PLUS_ONE + 1n).index).toBe(1);
  });

  it('an equal value means the address exists', () => {
    for (const v of [0n, 10n, 20n, HIGHEST_ADDRESS_PLUS_ONE]) {
      expect(() => findLowElement(elements, v)).toThrow(/already exists/);
    }
    try {
      findLowElement(elements, 10n);
    } catch (e) {
      expect((e as SolgateError).code).toBe('INVALID_ARGUMENT');
    }
    expect(() => findLowElement(elements.slice(1), 5n)).toThrow(/No low element/);
  });

  it('buildNewAddressProof reads the low leaf through a store and the result verifies', () => {
    const t = new IndexedMerkleTree('AddressV1');
    for (const v of [10n, 20n]) t.insert(v);
    const low = t.lowElement(15n);
    expect(low).toEqual({ index: 2, value: 10n, nextIndex: 3, nextValue: 20n });
    const p = buildNewAddressProof({ address: bigintToAddress(15n), lowElement: low, treeType: 'AddressV1', lookup: t.lookup, merkleTree: AMT1, rootSeq: 7 });
    expect(p.lowerRangeAddress).toBe(bigintToAddress(10n));
    expect(p.higherRangeAddress).toBe(bigintToAddress(20n));
    expect(p.nextIndex).toBe(3);
    expect(p.lowElementLeafIndex).toBe(2);
    expect(p.rootSeq).toBe(7);
    expect(p.root).toBe(toB58(t.root()));
    expect(verifyNewAddressProof(p, 'AddressV1', 26)).toBe(true);
    // bytes in, base58 out
    const fromBytes = buildNewAddressProof({ address: b58(bigintToAddress(15n)), lowElement: low, treeType: 'AddressV1', lookup: t.lookup, merkleTree: AMT1, rootSeq: 7 });
    expect(fromBytes).toEqual(p);
  });
});

/** Walks the linked list from element 0: values strictly increase and every element is visited once. */
function checkLinkedList(t: IndexedMerkleTree): void {
  const els = t.elements();
  const seen = new Set<number>();
  let e = els[0];
  for (;;) {
    seen.add(e.index);
    if (e.nextValue === HIGHEST_ADDRESS_PLUS_ONE) break;
    const next = els[e.nextIndex];
    expect(next.value).toBe(e.nextValue);
    expect(next.value > e.value).toBe(true);
    e = next;
  }
  if (t.treeType === 'AddressV1') {
    expect(e.nextIndex).toBe(1); // the last real element points at the top element
    seen.add(1);
  } else {
    expect(e.nextIndex).toBe(0);
  }
  expect(seen.size).toBe(els.length);
}

function randomInserts(treeType: AddressTreeType, height: number, count: number, seed: number): void {
  const rand = rng(seed);
  const t = new IndexedMerkleTree(treeType, height);
  const values: bigint[] = [];
  for (let k = 0; k < count; k++) {
    const v = addressToBigint(randomField(rand));
    t.insert(v);
    values.push(v);
  }
  expect(t.size).toBe(count + (treeType === 'AddressV1' ? 2 : 1));
  checkLinkedList(t);

  // the tree equals a fresh sparse tree of the element hashes
  const rebuilt = new SparsePoseidonTree(height);
  for (const e of t.elements()) rebuilt.setLeaf(e.index, indexedElementHash(e, treeType));
  expect(toB58(rebuilt.root())).toBe(toB58(t.root()));

  // absent addresses: proofs verify and show absence; existing ones throw
  for (let k = 0; k < 4; k++) {
    const address = toB58(randomField(rand));
    const p = t.newAddressProof(address, { merkleTree: 'T', rootSeq: k });
    expect(verifyNewAddressProof(p, treeType, height)).toBe(true);
    expect(isAddressInLowElementRange(p)).toBe(true);
    const proof = p.proof.slice();
    proof[k % height] = toB58(flipLowBit(b58(proof[k % height])));
    expect(verifyNewAddressProof({ ...p, proof }, treeType)).toBe(false);
  }
  for (const v of values.slice(0, 3)) {
    expect(() => t.newAddressProof(bigintToAddress(v), { merkleTree: 'T', rootSeq: 0 })).toThrow(/already exists/);
    expect(() => t.insert(v)).toThrow(/already exists/);
  }
  // neighbours of an inserted value are absent and bracketed by it
  const v = values[0];
  const below = t.newAddressProof(bigintToAddress(v - 1n), { merkleTree: 'T', rootSeq: 0 });
  expect(below.higherRangeAddress).toBe(bigintToAddress(v));
  const above = t.newAddressProof(bigintToAddress(v + 1n), { merkleTree: 'T', rootSeq: 0 });
  expect(above.lowerRangeAddress).toBe(bigintToAddress(v));
  expect(verifyNewAddressProof(below, treeType) && verifyNewAddressProof(above, treeType)).toBe(true);
  // the program refuses values at or above the sentinel
  expect(() => t.insert(HIGHEST_ADDRESS_PLUS_ONE + 5n)).toThrow(SolgateError);
}

describe('random inserts keep a sorted linked list and valid non-inclusion proofs', () => {
  it('V1, height 26', () => randomInserts('AddressV1', 26, 12, 1));
  it('V2, height 40', () => randomInserts('AddressV2', 40, 12, 2));
  it('V1 and V2 on small trees (height 5, 20 inserts)', () => {
    randomInserts('AddressV1', 5, 20, 3);
    randomInserts('AddressV2', 5, 20, 4);
  });
});
