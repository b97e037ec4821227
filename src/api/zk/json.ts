/**
 * JSON forms of Photon's scalar types. Photon writes u64 values (`UnsignedInteger`: lamports, token amounts,
 * discriminators, encoded node indexes) as JSON integers, which can exceed 2^53. The JSON-RPC dispatcher serialises
 * results with JSON.stringify, which has no lossless integer form on Node 20, so a value above 2^53 - 1 is written
 * as its decimal string (Light's stateless.js turns large integers into strings before parsing anyway); every
 * smaller value is an exact JSON number. Switching the dispatcher to a bigint-aware serializer only needs `u64`
 * to return the bigint.
 */
import { bytesToBase64 } from '../../core/encoding.js';

/** A u64 as Photon's JSON integer (a decimal string above Number.MAX_SAFE_INTEGER). */
export function u64(v: bigint | number): number | string {
  const b = typeof v === 'bigint' ? v : BigInt(v);
  return b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= 0n ? Number(b) : b.toString();
}

/** Bytes as Photon's `Base64String`. */
export function base64(bytes: Uint8Array): string {
  return bytesToBase64(bytes);
}

/** Photon's `Hash::default()` / `SerializablePubkey::default()`: 32 zero bytes in base58. */
export const ZERO_HASH = '11111111111111111111111111111111';
