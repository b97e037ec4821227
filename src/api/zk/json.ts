/**
 * JSON forms of Photon's scalar types. Photon writes u64 values (`UnsignedInteger`: lamports, token amounts,
 * balances, discriminators, encoded node indexes) as plain JSON integers with every digit, which can exceed 2^53.
 * `u64` gives a `number` when that is exact (every value up to Number.MAX_SAFE_INTEGER) and the `bigint` otherwise;
 * the JSON-RPC dispatcher's serializer (`stringifyRpc` in api/wire/json.ts) writes a bigint as a bare JSON integer,
 * so both come out as Photon writes them. (A typed client that parses with plain `JSON.parse` rounds the large
 * ones; stateless.js reads them losslessly.)
 */
import { bytesToBase64 } from '../../core/encoding.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A u64 as Photon's JSON integer: a number when exact, else the bigint (written with all its digits). */
export function u64(v: bigint | number): number | bigint {
  const b = typeof v === 'bigint' ? v : BigInt(v);
  return b <= MAX_SAFE && b >= -MAX_SAFE ? Number(b) : b;
}

/** Bytes as Photon's `Base64String`. */
export function base64(bytes: Uint8Array): string {
  return bytesToBase64(bytes);
}

/** Photon's `Hash::default()` / `SerializablePubkey::default()`: 32 zero bytes in base58. */
export const ZERO_HASH = '11111111111111111111111111111111';
