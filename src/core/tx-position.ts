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
