/** JSON text of JSON-RPC answers (HTTP and WebSocket) with u64 values exact, and stored JSON text passed through. */
import { randomBytes } from 'node:crypto';

/**
 * A per-process marker a bigint is written as before it is turned into digits. It is random, so no string in the
 * data can be taken for it; it has no character JSON escapes, so it reaches the output text unchanged.
 */
const BIGINT_MARK = `@solgate-bigint-${randomBytes(12).toString('hex')}:`;
const BIGINT_MARKED = new RegExp(`"${BIGINT_MARK}(-?\\d+)"`, 'g');
const markBigInt = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? BIGINT_MARK + v.toString() : v);

/** The marker a `RawJson` is written as inside `stringifyRpc` (random per process, as BIGINT_MARK), then replaced by its text. */
const RAW_MARK = `@solgate-raw-${randomBytes(12).toString('hex')}:`;
const RAW_MARKED = new RegExp(`"${RAW_MARK}(\\d+)"`, 'g');
/** The texts of the RawJson values met by the `stringifyRpc` call running now (JSON.stringify is synchronous). */
let rawTexts: string[] | null = null;

/**
 * A value that is already JSON text (e.g. a stored DAS document, api/das/doc-text.ts): `stringifyRpc` writes the
 * text as is, without parsing it. Anywhere else (`JSON.stringify`, Fastify's default serializer) it serialises as the
 * value the text holds (parsed then), so it is never written wrongly, only more slowly.
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    if (rawTexts === null) return JSON.parse(this.text);
    rawTexts.push(this.text);
    return RAW_MARK + String(rawTexts.length - 1);
  }
}

/**
 * The JSON text of a response, `bigint` members written as bare JSON numbers with exact digits (e.g.
 * 18446744073709551615) and `RawJson` values as their text. Answers without a bigint (nearly all: results hold
 * `number`s wherever the value is exact as one) take the plain `JSON.stringify` path at its native speed;
 * `JSON.stringify` throws on the first bigint, and only then is the payload written again with a replacer that marks
 * each bigint and the marks replaced by the digits (one more pass over the text). RawJson values are written as
 * marks and the marks replaced by their texts (a pass over the text without them).
 */
export function stringifyRpc(payload: unknown): string {
  const whole = rawAnswer(payload);
  if (whole !== null) return whole;
  const outer = rawTexts;
  const raws: string[] = [];
  rawTexts = raws;
  let text: string;
  try {
    try {
      text = JSON.stringify(payload);
    } catch (err) {
      if (!(err instanceof TypeError)) throw err;
      // a bigint (or a cycle, which throws again here)
      raws.length = 0;
      text = JSON.stringify(payload, markBigInt).replace(BIGINT_MARKED, '$1');
    }
  } finally {
    rawTexts = outer;
  }
  return raws.length ? text.replace(RAW_MARKED, (_m, i: string) => raws[Number(i)]) : text;
}

/**
 * The text of a single answer `{jsonrpc: '2.0', result: RawJson, id}` (members in that order, as the dispatcher
 * builds it; the id a string, number or null) — what `JSON.stringify` writes for it, without the mark and its
 * replacement; null for any other payload.
 */
function rawAnswer(payload: unknown): string | null {
  if (payload === null || typeof payload !== 'object') return null;
  const p = payload as { jsonrpc?: unknown; result?: unknown; id?: unknown };
  if (!(p.result instanceof RawJson) || p.jsonrpc !== '2.0') return null;
  const id = p.id;
  if (!(id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))) return null;
  let n = 0;
  for (const k in p) {
    if ((n === 0 && k !== 'jsonrpc') || (n === 1 && k !== 'result') || (n === 2 && k !== 'id') || n > 2) return null;
    n++;
  }
  return n === 3 ? `{"jsonrpc":"2.0","result":${p.result.text},"id":${JSON.stringify(id)}}` : null;
}
