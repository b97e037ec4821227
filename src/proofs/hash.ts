/**
 * Node hashing of SPL / MPL concurrent Merkle trees (account compression).
 *
 * Mirrors `spl-concurrent-merkle-tree` (solana-program-library `libraries/concurrent-merkle-tree/src`):
 * - `hash.rs` `hash_to_parent`: parent = keccak256(left ‖ right), the order given by the child's side;
 * - `node.rs` `EMPTY` / `empty_node`: an empty leaf is 32 zero bytes and the empty subtree of level i is
 *   keccak256(empty(i-1) ‖ empty(i-1)).
 * Pure: no I/O, no state besides the empty-subtree table computed once at import.
 */
import { keccak_256 } from '@noble/hashes/sha3';
import bs58 from 'bs58';
import { SolgateError } from '../core/errors.js';

/** Size in bytes of every node (leaf, inner node, root). */
export const NODE_BYTES = 32;

/** Deepest tree the program accepts (`check_bounds`: `max_depth < 31`). */
export const MAX_TREE_DEPTH = 30;

/** keccak256 of the concatenation of `parts` (Solana's `keccak::hashv`). */
export function keccak256(...parts: readonly Uint8Array[]): Uint8Array {
  const h = keccak_256.create();
  for (const p of parts) h.update(p);
  return h.digest();
}

/** Parent of two sibling nodes: keccak256(left ‖ right). */
export function hashPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  return keccak256(left, right);
}

/**
 * Parent of `node` and its `sibling` (`hash_to_parent`): `node` goes first when it is the left child, which is
 * when the bit of the leaf index at this level is 0 (even node index).
 */
export function hashToParent(node: Uint8Array, sibling: Uint8Array, nodeIsLeft: boolean): Uint8Array {
  return nodeIsLeft ? keccak256(node, sibling) : keccak256(sibling, node);
}

const EMPTY_NODES: readonly Uint8Array[] = (() => {
  const table: Uint8Array[] = [new Uint8Array(NODE_BYTES)];
  for (let level = 1; level <= MAX_TREE_DEPTH; level++) {
    const below = table[level - 1];
    table.push(hashPair(below, below));
  }
  return table;
})();

function checkLevel(level: number): void {
  if (!Number.isInteger(level) || level < 0 || level > MAX_TREE_DEPTH) {
    throw new SolgateError('INTERNAL', `empty-node level must be an integer in 0..${MAX_TREE_DEPTH}`, {
      context: { level },
    });
  }
}

/**
 * Hash of an empty subtree whose root sits `level` levels above the leaves (level 0 = the empty leaf, 32 zero
 * bytes; level `depth` = the root of an empty tree of that depth). Returns a fresh copy of the cached value.
 */
export function emptyNode(level: number): Uint8Array {
  checkLevel(level);
  return EMPTY_NODES[level].slice();
}

/** True when `hash` is the empty-subtree hash for `level` (no copy made). */
export function isEmptyNode(hash: Uint8Array, level: number): boolean {
  checkLevel(level);
  return nodesEqual(hash, EMPTY_NODES[level]);
}

/** Byte equality of two nodes (any length; false when lengths differ). */
export function nodesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Node → base58, the encoding of `root`, `leaf` and `proof[]` in getAssetProof. Uses `bs58` directly rather
 * than `core/encoding`'s memoised `bytesToBase58`, so random hashes do not evict cached account keys.
 */
export function nodeToBase58(node: Uint8Array): string {
  if (node.length !== NODE_BYTES) return bs58.encode(node);
  // The number as 16 limbs of 16 bits (most significant first), divided by 58^5 repeatedly: every step of the
  // long division stays below 2^46, exact in floating point, and each remainder gives five digits at once.
  const limbs = LIMBS;
  for (let i = 0; i < 16; i++) limbs[i] = (node[2 * i] << 8) | node[2 * i + 1];
  let zeros = 0;
  while (zeros < NODE_BYTES && node[zeros] === 0) zeros++;
  let groups = 0;
  let start = zeros >> 1;
  while (start < 16) {
    let rem = 0;
    for (let i = start; i < 16; i++) {
      const cur = rem * 65536 + limbs[i];
      const q = Math.floor(cur / B58_GROUP);
      limbs[i] = q;
      rem = cur - q * B58_GROUP;
    }
    GROUPS[groups++] = rem;
    while (start < 16 && limbs[start] === 0) start++;
  }
  // digits, least significant first, into OUT from its end
  let at = OUT.length;
  for (let g = 0; g < groups; g++) {
    let v = GROUPS[g];
    for (let k = 0; k < 5; k++) {
      const q = Math.floor(v / 58);
      OUT[--at] = B58_CODES[v - q * 58];
      v = q;
    }
  }
  while (at < OUT.length && OUT[at] === 0x31) at++; // leading zero digits of the top group
  for (let k = 0; k < zeros; k++) OUT[--at] = 0x31; // one '1' per leading zero byte
  return String.fromCharCode.apply(null, OUT.subarray(at) as unknown as number[]);
}

const B58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B58_GROUP = 58 ** 5;
const LIMBS = new Array<number>(16).fill(0);
const GROUPS = new Array<number>(10).fill(0);
const B58_CODES = Uint8Array.from(B58_ALPHABET, (c) => c.charCodeAt(0));
/** Room for the longest text of 32 bytes: 32 leading '1's, or 45 digits. */
const OUT = new Uint8Array(80);

const B58_VALUES = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < B58_ALPHABET.length; i++) t[B58_ALPHABET.charCodeAt(i)] = i;
  return t;
})();
/** 16-bit limbs of a decoded value, least significant first. */
const DECODE_LIMBS = new Array<number>(16).fill(0);

/**
 * Base58 → 32 bytes without `bs58`, for the texts of 32-byte values (at most 44 digits): the digits in groups of
 * five (58^5 < 2^30) multiplied into 16 limbs of 16 bits (every step below 2^46, exact in floating point).
 * Undefined when a character is not base58 or the text does not decode to exactly 32 bytes (as `bs58` would
 * give: one leading zero byte per leading '1', then the number's big-endian bytes).
 */
function decode32(text: string): Uint8Array | undefined {
  const n = text.length;
  if (n < 32 || n > 44) return undefined;
  let ones = 0;
  while (ones < n && text.charCodeAt(ones) === 0x31) ones++;
  const limbs = DECODE_LIMBS;
  limbs.fill(0);
  let at = ones;
  while (at < n) {
    const take = at === ones ? (n - ones) % 5 || 5 : 5;
    let group = 0;
    let scale = 1;
    for (let k = 0; k < take; k++) {
      const c = text.charCodeAt(at + k);
      const d = c < 128 ? B58_VALUES[c] : -1;
      if (d < 0) return undefined;
      group = group * 58 + d;
      scale *= 58;
    }
    at += take;
    let carry = group;
    for (let i = 0; i < 16; i++) {
      const cur = limbs[i] * scale + carry;
      carry = Math.floor(cur / 65536);
      limbs[i] = cur - carry * 65536;
    }
    if (carry !== 0) return undefined; // above 2^256
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 16; i++) {
    out[30 - 2 * i] = limbs[i] >> 8;
    out[31 - 2 * i] = limbs[i] & 0xff;
  }
  let zeros = 0;
  while (zeros < 32 && out[zeros] === 0) zeros++;
  // bs58's length: the leading '1's, then the number's own bytes
  return ones + (32 - zeros) === 32 ? out : undefined;
}

/** Base58 → 32-byte node; undefined when the text is not base58 or not exactly 32 bytes. */
export function nodeFromBase58(text: string): Uint8Array | undefined {
  if (typeof text === 'string' && text.length >= 32 && text.length <= 44) return decode32(text);
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(text);
  } catch {
    return undefined;
  }
  return bytes.length === NODE_BYTES ? bytes : undefined;
}
