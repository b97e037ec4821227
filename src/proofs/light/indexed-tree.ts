/**
 * Indexed (address) Merkle trees as Light defines them (`light-indexed-merkle-tree` / `light-indexed-array`,
 * and Photon's `ingester/persist/indexed_merkle_tree/`), and the non-inclusion proof Photon returns from
 * `getMultipleNewAddressProofs(V2)`.
 *
 * An indexed tree stores a sorted linked list of values: element i = {value, nextIndex, nextValue}, where
 * nextValue is the next larger value in the tree. An address A is absent when some element L has
 * L.value < A < L.nextValue (the "low element"); proving that is proving L's leaf.
 *
 * - Leaf hash: V1 address trees Poseidon(value, nextIndex, nextValue) (nextIndex as a field element); V2
 *   batched address trees Poseidon(value, nextValue) — next_index is kept but not hashed since Light removed it
 *   from the circuit (Photon `compute_range_node_hash_v1` / `_v2`).
 * - A fresh V1 tree holds two elements: 0 = {0, next 1, HIGHEST_ADDRESS_PLUS_ONE} and 1 =
 *   {HIGHEST_ADDRESS_PLUS_ONE, next 0, 0} (Photon `get_zeroeth_exclusion_range_v1`, `get_top_element`); its
 *   sequence number is 3 after initialisation. A fresh V2 tree holds one element, {0, next 0,
 *   HIGHEST_ADDRESS_PLUS_ONE} (`get_zeroeth_exclusion_range`), and its root is Light's
 *   `ADDRESS_TREE_INIT_ROOT_40`; its sequence number is 0.
 * - Inserting A (low element L): A becomes element n (the next free index) = {A, L.nextIndex, L.nextValue},
 *   and L becomes {L.value, n, A}; both leaves are rewritten.
 * - Low-element search is Photon's `value < A ORDER BY value DESC LIMIT 1`: the largest value below A; an
 *   element equal to A means the address exists (an error here). Light derives addresses below 2^248 (first
 *   byte zeroed), so A < HIGHEST_ADDRESS_PLUS_ONE on chain; Photon does not check it and answers any 32 bytes,
 *   with a proof whose range then does not contain A. This module answers the same (`buildNewAddressProof`),
 *   and `isAddressInLowElementRange` tells whether a proof really shows absence. Only `insert` refuses such
 *   values, as the program would.
 * - An address tree nothing was inserted into has no rows in Photon's database; it then answers with element
 *   0 of the fresh tree for every address (`proof_for_empty_tree`): `emptyAddressTreeProof`.
 * - Photon's proof object (`MerkleContextWithNewAddressProof`): root, address, lowerRangeAddress (= L.value),
 *   higherRangeAddress (= L.nextValue), nextIndex (= L.nextIndex), proof (the tree height's worth of siblings:
 *   26 for V1, 40 for V2), merkleTree, rootSeq, lowElementLeafIndex (= L.index). Values are 32-byte big-endian
 *   numbers shown as base58 pubkeys.
 */
import { SolgateError } from '../../core/errors.js';
import { nodeFromBase58, nodeToBase58 } from '../hash.js';
import {
  readLightProofNodes,
  verifyLightProof,
  type LightNodeLookup,
  type LightMerkleProof,
} from './merkle-proof.js';
import { bigintToBytes32, bytesToBigint, poseidon, poseidonBatch, poseidonPairs, toFieldElement } from './poseidon.js';
import { SparsePoseidonTree } from './sparse-tree.js';
import { LIGHT_TREE_HEIGHT } from './trees.js';

/** The two address tree kinds. */
export type AddressTreeType = 'AddressV1' | 'AddressV2';

/** Upper sentinel of every address tree: 2^248 - 1 (Photon / Light `HIGHEST_ADDRESS_PLUS_ONE`). */
export const HIGHEST_ADDRESS_PLUS_ONE = (1n << 248n) - 1n;

/** `rootSeq` Photon reports for an address tree nothing was ever inserted into. */
export const EMPTY_ADDRESS_TREE_ROOT_SEQ: Readonly<Record<AddressTreeType, number>> = { AddressV1: 3, AddressV2: 0 };

/** One element of an indexed tree (Photon `indexed_trees` row). */
export interface IndexedElement {
  /** Leaf index. */
  index: number;
  value: bigint;
  nextIndex: number;
  nextValue: bigint;
}

/** Photon's `MerkleContextWithNewAddressProof` (getMultipleNewAddressProofs / V2 items), in its field order. */
export interface NewAddressProof {
  root: string;
  address: string;
  lowerRangeAddress: string;
  higherRangeAddress: string;
  nextIndex: number;
  proof: string[];
  merkleTree: string;
  rootSeq: number;
  lowElementLeafIndex: number;
}

function invalid(message: string, context?: Record<string, unknown>): never {
  throw new SolgateError('INVALID_ARGUMENT', message, { context });
}

function checkTreeType(treeType: AddressTreeType): void {
  if (treeType !== 'AddressV1' && treeType !== 'AddressV2') {
    throw new SolgateError('INTERNAL', 'not an address tree type', { context: { treeType } });
  }
}

/** An address (base58 pubkey or 32 bytes) as the big-endian number the tree orders by. */
export function addressToBigint(address: string | Uint8Array): bigint {
  const bytes = typeof address === 'string' ? nodeFromBase58(address) : address;
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) invalid('Invalid address', { address: String(address) });
  return bytesToBigint(bytes);
}

/** A tree value as a base58 pubkey (32 bytes, big-endian). */
export function bigintToAddress(value: bigint): string {
  return nodeToBase58(bigintToBytes32(value));
}

/** Leaf hash of an indexed element: V1 Poseidon(value, nextIndex, nextValue), V2 Poseidon(value, nextValue). */
export function indexedElementHash(element: IndexedElement, treeType: AddressTreeType): Uint8Array {
  checkTreeType(treeType);
  if (!Number.isSafeInteger(element.nextIndex) || element.nextIndex < 0) {
    throw new SolgateError('INTERNAL', 'nextIndex must be a non-negative integer', {
      context: { nextIndex: element.nextIndex },
    });
  }
  return treeType === 'AddressV1'
    ? poseidon([element.value, BigInt(element.nextIndex), element.nextValue])
    : poseidon([element.value, element.nextValue]);
}

/** Elements of a freshly initialised address tree (see the module comment). */
export function initialIndexedElements(treeType: AddressTreeType): IndexedElement[] {
  checkTreeType(treeType);
  if (treeType === 'AddressV1') {
    return [
      { index: 0, value: 0n, nextIndex: 1, nextValue: HIGHEST_ADDRESS_PLUS_ONE },
      { index: 1, value: HIGHEST_ADDRESS_PLUS_ONE, nextIndex: 0, nextValue: 0n },
    ];
  }
  return [{ index: 0, value: 0n, nextIndex: 0, nextValue: HIGHEST_ADDRESS_PLUS_ONE }];
}

/**
 * The low element of `value` among `elements`: the one with the largest value below it (Photon's query).
 * Throws INVALID_ARGUMENT "Address … already exists" when an element equals `value` (0 always exists: it is
 * element 0), and "No low element …" when nothing is below it (only when element 0 is missing from
 * `elements`). Does not check that `value` is below the low element's nextValue: Photon does not either (see
 * `isAddressInLowElementRange`).
 */
export function findLowElement(elements: Iterable<IndexedElement>, value: bigint): IndexedElement {
  let low: IndexedElement | undefined;
  for (const e of elements) {
    if (e.value === value) invalid(`Address ${bigintToAddressSafe(value)} already exists`);
    if (e.value < value && (low === undefined || e.value > low.value)) low = e;
  }
  if (low === undefined) invalid(`No low element for address ${bigintToAddressSafe(value)}`);
  return low;
}

function bigintToAddressSafe(value: bigint): string {
  return value >= 0n && value < 1n << 256n ? bigintToAddress(value) : value.toString();
}

/** Arguments of `buildNewAddressProof`. */
export interface BuildNewAddressProofInput {
  /** The address proven absent (base58 or 32 bytes). */
  address: string | Uint8Array;
  /** Its low element, as stored (`findLowElement`). */
  lowElement: IndexedElement;
  treeType: AddressTreeType;
  /** Tree height; defaults to the deployed one (26 for V1, 40 for V2). */
  height?: number;
  /** Reads the tree's stored nodes by heap index (undefined = zero hash of the level). */
  lookup: LightNodeLookup;
  /** The address tree pubkey (base58), echoed as `merkleTree`. */
  merkleTree: string;
  /** Sequence number of the root, echoed as `rootSeq`. */
  rootSeq: number;
}

/**
 * Photon's non-inclusion proof for `address`: the low element's fields, the siblings of its leaf (read through
 * `lookup`) and the root (node 1). The leaf hash is recomputed from the element, as Photon does. Like Photon it
 * does not require the address to lie inside the low element's range (`isAddressInLowElementRange`). Does not
 * check the proof against the root: pass the result to `verifyNewAddressProof` before answering (rule 8).
 */
export function buildNewAddressProof(input: BuildNewAddressProofInput): NewAddressProof {
  return readNewAddressProof(input).proof;
}

/**
 * `buildNewAddressProof`, with the nodes it read as bytes (the leaf is not among them: it is recomputed from the
 * element) and a choice of node encoder (`nodeToBase58` by default; callers answering many proofs pass a
 * memoised one).
 */
export function readNewAddressProof(
  input: BuildNewAddressProofInput,
  encode: (node: Uint8Array) => string = nodeToBase58,
): { proof: NewAddressProof; siblings: Uint8Array[]; root: Uint8Array } {
  const { lowElement: low, treeType } = input;
  checkTreeType(treeType);
  const value = addressToBigint(input.address);
  const height = input.height ?? LIGHT_TREE_HEIGHT[treeType];
  const nodes = readLightProofNodes(low.index, height, input.lookup);
  const proof = {
    root: encode(nodes.root),
    address: typeof input.address === 'string' ? input.address : bigintToAddress(value),
    lowerRangeAddress: bigintToAddress(low.value),
    higherRangeAddress: bigintToAddress(low.nextValue),
    nextIndex: low.nextIndex,
    proof: nodes.siblings.map(encode),
    merkleTree: input.merkleTree,
    rootSeq: input.rootSeq,
    lowElementLeafIndex: low.index,
  };
  return { proof, siblings: nodes.siblings, root: nodes.root };
}

/**
 * Leaf hashes of many elements of one tree kind (`indexedElementHash` of each) in one Poseidon batch (V2 leaves,
 * being pairs, through the pair memo). Throws as
 * `indexedElementHash` does on a value that is not a field element or a bad nextIndex.
 */
export function indexedElementHashes(elements: readonly IndexedElement[], treeType: AddressTreeType): Uint8Array[] {
  checkTreeType(treeType);
  const arity = treeType === 'AddressV1' ? 3 : 2;
  const input = new Uint8Array(elements.length * arity * 32);
  elements.forEach((e, i) => {
    if (!Number.isSafeInteger(e.nextIndex) || e.nextIndex < 0) {
      throw new SolgateError('INTERNAL', 'nextIndex must be a non-negative integer', { context: { nextIndex: e.nextIndex } });
    }
    const at = i * arity * 32;
    const fields = treeType === 'AddressV1' ? [e.value, BigInt(e.nextIndex), e.nextValue] : [e.value, e.nextValue];
    fields.forEach((f, k) => input.set(bigintToBytes32(toFieldElement(f)), at + 32 * k));
  });
  // V2 leaves are Poseidon pairs: the pair memo knows those of low elements asked for before
  const out = arity === 2 ? poseidonPairs(input, elements.length) : poseidonBatch(arity, input, elements.length);
  return elements.map((_, i) => out.slice(32 * i, 32 * i + 32));
}

/**
 * True when the low element's leaf — hashed per `treeType` from lowerRangeAddress, nextIndex and
 * higherRangeAddress — at `lowElementLeafIndex` links to `root` through `proof` (Photon's
 * `MerkleProofWithContext::validate` on the same proof). When `height` is given the proof must have that
 * length. Never throws on malformed input (Poseidon must be initialised).
 */
export function verifyNewAddressProof(p: NewAddressProof, treeType: AddressTreeType, height?: number): boolean {
  if (treeType !== 'AddressV1' && treeType !== 'AddressV2') return false;
  if (!Array.isArray(p.proof) || (height !== undefined && p.proof.length !== height)) return false;
  const lower = nodeFromBase58(p.lowerRangeAddress);
  const higher = nodeFromBase58(p.higherRangeAddress);
  if (!lower || !higher) return false;
  if (!Number.isSafeInteger(p.nextIndex) || p.nextIndex < 0) return false;
  let leaf: Uint8Array;
  try {
    const value = bytesToBigint(lower);
    const nextValue = bytesToBigint(higher);
    leaf = indexedElementHash({ index: p.lowElementLeafIndex, value, nextIndex: p.nextIndex, nextValue }, treeType);
  } catch {
    return false; // a range value that is not a field element
  }
  return verifyLightProof({ root: p.root, leaf, proof: p.proof, leafIndex: p.lowElementLeafIndex });
}

/**
 * True when lowerRangeAddress < address < higherRangeAddress, i.e. the (verified) proof really shows the
 * address absent. Photon answers without this check, so an address ≥ 2^248 gets a proof for which it is false.
 */
export function isAddressInLowElementRange(p: NewAddressProof): boolean {
  const address = nodeFromBase58(p.address);
  const lower = nodeFromBase58(p.lowerRangeAddress);
  const higher = nodeFromBase58(p.higherRangeAddress);
  if (!address || !lower || !higher) return false;
  const a = bytesToBigint(address);
  return bytesToBigint(lower) < a && a < bytesToBigint(higher);
}

/**
 * In-memory indexed Merkle tree: the reference model of an address tree (elements plus a sparse Poseidon tree
 * of their hashes). Starts in the freshly initialised state of its kind.
 */
export class IndexedMerkleTree {
  readonly treeType: AddressTreeType;
  readonly height: number;
  private readonly items: IndexedElement[];
  private readonly tree: SparsePoseidonTree;

  constructor(treeType: AddressTreeType, height: number = LIGHT_TREE_HEIGHT[treeType]) {
    checkTreeType(treeType);
    this.treeType = treeType;
    this.height = height;
    this.tree = new SparsePoseidonTree(height);
    this.items = initialIndexedElements(treeType);
    for (const e of this.items) this.tree.setLeaf(e.index, indexedElementHash(e, treeType));
  }

  /** Number of elements (the next free leaf index). */
  get size(): number {
    return this.items.length;
  }

  /** A copy of element `index`. */
  element(index: number): IndexedElement {
    const e = this.items[index];
    if (e === undefined) throw new SolgateError('INTERNAL', 'no such element', { context: { index } });
    return { ...e };
  }

  /** Copies of all elements in leaf order. */
  elements(): IndexedElement[] {
    return this.items.map((e) => ({ ...e }));
  }

  root(): Uint8Array {
    return this.tree.root();
  }

  /** Node reader of the underlying Poseidon tree. */
  get lookup(): LightNodeLookup {
    return this.tree.lookup;
  }

  /** Low element of `address` (see `findLowElement`). */
  lowElement(address: string | Uint8Array | bigint): IndexedElement {
    const v = typeof address === 'bigint' ? address : addressToBigint(address);
    return { ...findLowElement(this.items, v) };
  }

  /**
   * Inserts `address`: appends the new element at the next free index and relinks its low element (two leaf
   * writes). Throws INVALID_ARGUMENT when it exists or is not below its low element's nextValue (the program
   * refuses both). Returns the new element.
   */
  insert(address: string | Uint8Array | bigint): IndexedElement {
    const v = typeof address === 'bigint' ? address : addressToBigint(address);
    const low = findLowElement(this.items, v);
    if (v >= low.nextValue) invalid(`Address ${bigintToAddressSafe(v)} is outside the address range`);
    const fresh: IndexedElement = {
      index: this.items.length,
      value: v,
      nextIndex: low.nextIndex,
      nextValue: low.nextValue,
    };
    low.nextIndex = fresh.index;
    low.nextValue = v;
    this.items.push(fresh);
    this.tree.setLeaf(low.index, indexedElementHash(low, this.treeType));
    this.tree.setLeaf(fresh.index, indexedElementHash(fresh, this.treeType));
    return { ...fresh };
  }

  /** Merkle proof of leaf `leafIndex`. */
  proof(leafIndex: number): LightMerkleProof {
    return this.tree.proof(leafIndex);
  }

  /** Photon's non-inclusion proof of `address` against the current root. */
  newAddressProof(address: string | Uint8Array, ctx: { merkleTree: string; rootSeq: number }): NewAddressProof {
    return buildNewAddressProof({
      address,
      lowElement: this.lowElement(address),
      treeType: this.treeType,
      height: this.height,
      lookup: this.tree.lookup,
      merkleTree: ctx.merkleTree,
      rootSeq: ctx.rootSeq,
    });
  }
}

const freshTrees = new Map<AddressTreeType, IndexedMerkleTree>();

function freshTree(treeType: AddressTreeType): IndexedMerkleTree {
  checkTreeType(treeType);
  let t = freshTrees.get(treeType);
  if (t === undefined) {
    t = new IndexedMerkleTree(treeType);
    freshTrees.set(treeType, t);
  }
  return t;
}

/**
 * What Photon answers for an address tree nothing was inserted into (`proof_for_empty_tree`): element 0 of the
 * freshly initialised tree of the deployed height as the low element — for every address, in range or not —
 * with its proof, rootSeq 3 for V1 and 0 for V2. Address 0 (element 0's own value) throws "already exists".
 */
export function emptyAddressTreeProof(
  treeType: AddressTreeType,
  address: string | Uint8Array,
  merkleTree: string,
): NewAddressProof {
  const t = freshTree(treeType);
  if (addressToBigint(address) === 0n) invalid(`Address ${bigintToAddress(0n)} already exists`);
  return buildNewAddressProof({
    address,
    lowElement: t.element(0),
    treeType,
    height: t.height,
    lookup: t.lookup,
    merkleTree,
    rootSeq: EMPTY_ADDRESS_TREE_ROOT_SEQ[treeType],
  });
}

/** Root of a freshly initialised address tree of the deployed height (V2: Light's `ADDRESS_TREE_INIT_ROOT_40`). */
export function initialAddressTreeRoot(treeType: AddressTreeType): Uint8Array {
  return freshTree(treeType).root();
}
