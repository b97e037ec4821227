import { createHash } from 'node:crypto';

/**
 * Where a transaction sits in its slot, for ordering its state changes and its webhook events. Shared by the
 * ingest fold (src/ingest/fold-block.ts) and the webhook matcher (src/webhooks/match.ts), so it lives below both.
 */

/**
 * Recorded single transactions do not say where in their slot they ran. Changes of two such transactions in one
 * slot are ordered by a value derived from the signature, so the result never depends on the input order.
 */
export function unknownIndexTiebreak(signature: string): number {
  let h = 0;
  for (let i = 0; i < signature.length; i++) h = (h * 31 + signature.charCodeAt(i)) >>> 0;
  return 1 + (h % 999_990);
}

/**
 * The position stored for a transaction whose place in its slot is not known (`tx_index` of the history tables):
 * negative, so it never meets a real one, and derived from the signature alone, so a second write of the same
 * transaction lands on the same key. Migration 040 computes the same value in SQL:
 * -(1 + (first 4 bytes of md5(signature), unsigned) mod 2147483646).
 */
export function unknownTxIndex(signature: string): number {
  return -(1 + (createHash('md5').update(signature).digest().readUInt32BE(0) % 2147483646));
}
