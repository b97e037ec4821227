/**
 * Photon's list cursors (helius-labs/photon src/api/method/*.rs): base58 of the sort key of the last item of a page,
 * decoded with Photon's length checks and messages. A cursor whose text is not base58 is a params error where
 * Photon's request field is typed (`Hash`, `Base58String`) and a validation error where it is a plain string
 * (signature lists).
 *
 * | list                                  | bytes                                   | order                 |
 * |---------------------------------------|-----------------------------------------|-----------------------|
 * | accounts by owner                     | hash (32)                               | hash asc              |
 * | token accounts by owner / delegate    | mint (32) ‖ hash (32)                   | mint asc, hash asc    |
 * | token balances by owner               | mint (32)                               | mint asc              |
 * | mint token holders                    | balance u64 LE (8) ‖ owner (32)         | balance desc, owner desc |
 * | signature lists                       | slot u64 LE (8) ‖ signature (64)        | slot desc, signature desc |
 */
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import { SolgateError } from '../../core/errors.js';

function decodeBase58(cursor: string, plainString: boolean): Uint8Array {
  try {
    return base58ToBytes(cursor);
  } catch {
    if (plainString) throw new SolgateError('INVALID_ARGUMENT', `Invalid cursor ${cursor}`);
    throw new SolgateError('INVALID_PARAMS', 'Invalid params', { details: `cursor: invalid base58 string` });
  }
}

function expectLength(bytes: Uint8Array, n: number): Uint8Array {
  if (bytes.length !== n) {
    throw new SolgateError('INVALID_ARGUMENT', `Invalid cursor length. Expected ${n}. Received ${bytes.length}.`);
  }
  return bytes;
}

const u64le = (v: bigint): Uint8Array => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return b;
};
const readU64le = (b: Uint8Array): bigint => Buffer.from(b.buffer, b.byteOffset, 8).readBigUInt64LE(0);
const cat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

/** Accounts by owner: the cursor is a `Hash` (32 bytes); anything else is a params error. */
export function decodeHashCursor(cursor: string): Uint8Array {
  const b = decodeBase58(cursor, false);
  if (b.length !== 32) throw new SolgateError('INVALID_PARAMS', 'Invalid params', { details: 'cursor: not a 32-byte hash' });
  return b;
}
export const encodeHashCursor = (hash: Uint8Array): string => bytesToBase58(hash);

/** Token accounts by owner / delegate: mint ‖ hash. */
export function decodeTokenAccountCursor(cursor: string): { mint: Uint8Array; hash: Uint8Array } {
  const b = expectLength(decodeBase58(cursor, false), 64);
  return { mint: b.subarray(0, 32), hash: b.subarray(32) };
}
export const encodeTokenAccountCursor = (mint: Uint8Array, hash: Uint8Array): string => bytesToBase58(cat(mint, hash));

/** Token balances by owner: mint. */
export function decodeMintCursor(cursor: string): Uint8Array {
  return expectLength(decodeBase58(cursor, false), 32);
}
export const encodeMintCursor = (mint: Uint8Array): string => bytesToBase58(mint);

/** Mint token holders: balance (u64 LE) ‖ owner. */
export function decodeHolderCursor(cursor: string): { balance: bigint; owner: Uint8Array } {
  const b = expectLength(decodeBase58(cursor, false), 40);
  return { balance: readU64le(b), owner: b.subarray(8) };
}
export const encodeHolderCursor = (balance: bigint, owner: Uint8Array): string => bytesToBase58(cat(u64le(balance), owner));

/** Signature lists: slot (u64 LE) ‖ signature. */
export function decodeSignatureCursor(cursor: string): { slot: bigint; signature: Uint8Array } {
  const b = expectLength(decodeBase58(cursor, true), 72);
  return { slot: readU64le(b), signature: b.subarray(8) };
}
export const encodeSignatureCursor = (slot: bigint, signature: Uint8Array): string =>
  bytesToBase58(cat(u64le(slot), signature));

/** Photon's page limit (`Limit`): at most 1000. Callers validate requests earlier; this keeps the SQL sound. */
export const PAGE_LIMIT = 1000;
/** Photon's getQueueElements cap. */
export const QUEUE_LIMIT = 30_000;
export function checkLimit(limit: number, max: number = PAGE_LIMIT): void {
  if (!Number.isInteger(limit) || limit < 0 || limit > max) {
    throw new SolgateError('INVALID_PARAMS', 'Invalid params', { details: `limit: a value less than or equal to ${max}` });
  }
}
