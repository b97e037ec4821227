/**
 * Hashes of compressed accounts and compressed token data, as Light computes them on chain:
 *
 * - `hashToBn254FieldSizeBe` is `light-hasher`'s `hash_to_bn254_field_size_be` / `hashv_to_bn254_field_size_be`:
 *   keccak256(bytes ‖ [255]) with the first byte zeroed, so a 32-byte key becomes a field element. (Older
 *   releases looped over bump seeds 255, 254, …; the first always succeeds once byte 0 is zero, so the result
 *   is the same.)
 * - `compressedAccountHash` is `CompressedAccount::hash` / `hash_with_hashed_values`
 *   (`light-compressed-account` `compressed_account.rs`): Poseidon over
 *   [H(owner), leaf index, H(tree), lamports?, address?, discriminator?, data hash?] where
 *   · the leaf index fills bytes 28..32 of a zero word, little-endian in V1 (concurrent) state trees and
 *     big-endian in V2 (batched) state trees;
 *   · lamports are hashed only when non-zero: bytes 24..32 hold them (LE in V1, BE in V2) and byte 23 is 1;
 *   · the address (32 bytes) only when present;
 *   · data only when present: the 8 discriminator bytes at 24..32 with byte 23 = 2, then the 32-byte data hash.
 * - `tokenDataHash` is the compressed token program's `TokenData::hash_v1` / `hash_v2`: Poseidon over
 *   [H(mint), H(owner), amount, H(delegate)?, frozen?] with the u64 amount in bytes 24..32 (LE for token data
 *   version 1, account discriminator [2,0,0,0,0,0,0,0]; BE for version 2, discriminator [0,0,0,0,0,0,0,3]) and
 *   a frozen account adding the word 1.
 *
 * Photon returns `data.discriminator` as the u64 read little-endian from the 8 bytes (a V1 token account shows
 * 2); `discriminatorToBytes` turns it back.
 */
import { SolgateError } from '../../core/errors.js';
import { keccak256, NODE_BYTES } from '../hash.js';
import { poseidon } from './poseidon.js';

/** `hash_to_bn254_field_size_be` over the concatenation of `parts`: keccak256(parts ‖ [255]), byte 0 zeroed. */
export function hashToBn254FieldSizeBe(...parts: readonly Uint8Array[]): Uint8Array {
  const h = keccak256(...parts, Uint8Array.of(255));
  h[0] = 0;
  return h;
}

function check32(name: string, v: Uint8Array): void {
  if (!(v instanceof Uint8Array) || v.length !== NODE_BYTES) {
    throw new SolgateError('INTERNAL', `${name} must be ${NODE_BYTES} bytes`, { context: { name } });
  }
}

const U64_MAX = (1n << 64n) - 1n;

function checkU64(name: string, v: bigint): void {
  if (typeof v !== 'bigint' || v < 0n || v > U64_MAX) {
    throw new SolgateError('INTERNAL', `${name} must be a u64`, { context: { name, value: String(v) } });
  }
}

/** u64 into bytes 24..32 of a zero word, little- or big-endian, with an optional domain byte at 23. */
function u64Word(v: bigint, bigEndian: boolean, prefix?: number): Uint8Array {
  const w = new Uint8Array(32);
  const view = new DataView(w.buffer);
  view.setBigUint64(24, v, !bigEndian);
  if (prefix !== undefined) w[23] = prefix;
  return w;
}

/** The 8 discriminator bytes of a Photon wire discriminator (the u64 read little-endian). */
export function discriminatorToBytes(value: bigint | number): Uint8Array {
  const v = typeof value === 'number' ? BigInt(value) : value;
  checkU64('discriminator', v);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, v, true);
  return out;
}

/** The data part of a compressed account that enters its hash. */
export interface CompressedAccountDataHashInput {
  /** 8 bytes. */
  discriminator: Uint8Array;
  /** 32 bytes: the program's hash of the account data (Photon `dataHash`). */
  dataHash: Uint8Array;
}

/** Inputs of `compressedAccountHashWithHashedValues`. */
export interface HashedCompressedAccountInput {
  /** `hashToBn254FieldSizeBe(owner)`. */
  ownerHashed: Uint8Array;
  /** `hashToBn254FieldSizeBe(merkle tree pubkey)`. */
  merkleTreeHashed: Uint8Array;
  leafIndex: number;
  lamports: bigint;
  /** 32 bytes, or null when the account has no address. */
  address: Uint8Array | null;
  data: CompressedAccountDataHashInput | null;
  /** True for accounts in V2 (batched) state trees: leaf index and lamports are hashed big-endian. */
  batched: boolean;
}

/** Light's `hash_with_hashed_values` (see the module comment). Throws on malformed input. */
export function compressedAccountHashWithHashedValues(a: HashedCompressedAccountInput): Uint8Array {
  check32('ownerHashed', a.ownerHashed);
  check32('merkleTreeHashed', a.merkleTreeHashed);
  if (!Number.isInteger(a.leafIndex) || a.leafIndex < 0 || a.leafIndex > 0xffffffff) {
    throw new SolgateError('INTERNAL', 'leaf index must be a u32', { context: { leafIndex: a.leafIndex } });
  }
  checkU64('lamports', a.lamports);
  const leafIndex = new Uint8Array(32);
  new DataView(leafIndex.buffer).setUint32(28, a.leafIndex, !a.batched);
  const inputs: Uint8Array[] = [a.ownerHashed, leafIndex, a.merkleTreeHashed];
  if (a.lamports !== 0n) inputs.push(u64Word(a.lamports, a.batched, 1));
  if (a.address !== null) {
    check32('address', a.address);
    inputs.push(a.address);
  }
  if (a.data !== null) {
    if (!(a.data.discriminator instanceof Uint8Array) || a.data.discriminator.length !== 8) {
      throw new SolgateError('INTERNAL', 'discriminator must be 8 bytes');
    }
    check32('dataHash', a.data.dataHash);
    const d = new Uint8Array(32);
    d.set(a.data.discriminator, 24);
    d[23] = 2;
    inputs.push(d, a.data.dataHash);
  }
  return poseidon(inputs);
}

/** A compressed account with its place in a state tree. */
export interface CompressedAccountHashInput {
  /** Owner program, 32 bytes. */
  owner: Uint8Array;
  lamports: bigint;
  address: Uint8Array | null;
  data: CompressedAccountDataHashInput | null;
  /** State tree pubkey, 32 bytes. */
  merkleTree: Uint8Array;
  leafIndex: number;
  /** True for V2 (batched) state trees. */
  batched: boolean;
}

/** Light's `CompressedAccount::hash(merkle_tree, leaf_index, is_batched)`: the leaf of the account. */
export function compressedAccountHash(a: CompressedAccountHashInput): Uint8Array {
  check32('owner', a.owner);
  check32('merkleTree', a.merkleTree);
  return compressedAccountHashWithHashedValues({
    ownerHashed: hashToBn254FieldSizeBe(a.owner),
    merkleTreeHashed: hashToBn254FieldSizeBe(a.merkleTree),
    leafIndex: a.leafIndex,
    lamports: a.lamports,
    address: a.address,
    data: a.data,
    batched: a.batched,
  });
}

/** Compressed token account fields that enter the token data hash (the TLV does not). */
export interface TokenDataHashInput {
  mint: Uint8Array;
  owner: Uint8Array;
  amount: bigint;
  delegate: Uint8Array | null;
  state: 'initialized' | 'frozen';
}

/** Token data version: 1 (V1 trees, discriminator [2,0,…]) or 2 (batched trees, discriminator [0,…,3]). */
export type TokenDataHashVersion = 1 | 2;

/** Account discriminators of the Poseidon-hashed token data versions. */
export const TOKEN_DATA_DISCRIMINATOR: Readonly<Record<TokenDataHashVersion, Uint8Array>> = {
  1: Uint8Array.of(2, 0, 0, 0, 0, 0, 0, 0),
  2: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 3),
};

/**
 * The token data version whose Poseidon hash the account discriminator announces, or undefined (other
 * discriminators, e.g. version 3's SHA-256 flat hash [0,…,4], are not computed here).
 */
export function tokenDataHashVersion(discriminator: Uint8Array): TokenDataHashVersion | undefined {
  for (const v of [1, 2] as const) {
    const d = TOKEN_DATA_DISCRIMINATOR[v];
    if (discriminator.length === 8 && d.every((b, i) => discriminator[i] === b)) return v;
  }
  return undefined;
}

/** `TokenData::hash_v1` (version 1) / `hash_v2` (version 2): the `dataHash` of a compressed token account. */
export function tokenDataHash(t: TokenDataHashInput, version: TokenDataHashVersion): Uint8Array {
  check32('mint', t.mint);
  check32('owner', t.owner);
  checkU64('amount', t.amount);
  if (version !== 1 && version !== 2) {
    throw new SolgateError('INTERNAL', 'token data version must be 1 or 2', { context: { version } });
  }
  const inputs: Uint8Array[] = [
    hashToBn254FieldSizeBe(t.mint),
    hashToBn254FieldSizeBe(t.owner),
    u64Word(t.amount, version === 2),
  ];
  if (t.delegate !== null) {
    check32('delegate', t.delegate);
    inputs.push(hashToBn254FieldSizeBe(t.delegate));
  }
  if (t.state === 'frozen') {
    const frozen = new Uint8Array(32);
    frozen[31] = 1;
    inputs.push(frozen);
  } else if (t.state !== 'initialized') {
    throw new SolgateError('INTERNAL', 'token state must be initialized or frozen', { context: { state: t.state } });
  }
  return poseidon(inputs);
}
