/** JSON text of JSON-RPC answers (HTTP and WebSocket) with u64 values exact. */
import { randomBytes } from 'node:crypto';

/**
 * A per-process marker a bigint is written as before it is turned into digits. It is random, so no string in the
 * data can be taken for it; it has no character JSON escapes, so it reaches the output text unchanged.
 */
const BIGINT_MARK = `@solgate-bigint-${randomBytes(12).toString('hex')}:`;
const BIGINT_MARKED = new RegExp(`"${BIGINT_MARK}(-?\\d+)"`, 'g');
const markBigInt = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? BIGINT_MARK + v.toString() : v);

/**
 * The JSON text of a response, `bigint` members written as bare JSON numbers with exact digits (e.g.
 * 18446744073709551615). Answers without a bigint (nearly all: results hold `number`s wherever the value is
 * exact as one) take the plain `JSON.stringify` path at its native speed; `JSON.stringify` throws on the first
 * bigint, and only then is the payload written again with a replacer that marks each bigint and the marks replaced
 * by the digits (one more pass over the text).
 */
export function stringifyRpc(payload: unknown): string {
  try {
    return JSON.stringify(payload);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    // a bigint (or a cycle, which throws again here)
    return JSON.stringify(payload, markBigInt).replace(BIGINT_MARKED, '$1');
  }
}
