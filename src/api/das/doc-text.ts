/**
 * A stored DAS document (das_assets.doc, JSON text written by `JSON.stringify`) projected to the display options as
 * text, without parsing the whole document: the top-level members are located by one scan (strings skipped with
 * indexOf), `token_info` is cut out, the `grouping` array is rewritten only when it holds a `"verified":false`
 * entry, and `content` is parsed and rewritten only to merge a fetched off-chain document. The result is the same text
 * `JSON.stringify` writes for the projected object (`projectDoc` + `applyOffchainJson` in asset-docs.ts), because
 * `JSON.stringify(JSON.parse(t)) === t` for any text `t` that `JSON.stringify` wrote: every member left alone is
 * copied, every member rewritten is written by `JSON.stringify` from the same value.
 */
import type { AssetJson, DisplayOptions } from './asset-json.js';
import { applyOffchainJson } from './offchain-content.js';

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const COLON = 58;

/** The index just past the string whose opening quote is at `i`; -1 when unterminated. */
function stringEnd(t: string, i: number): number {
  let j = t.indexOf('"', i + 1);
  while (j !== -1) {
    let k = j - 1;
    while (t.charCodeAt(k) === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1;
    j = t.indexOf('"', j + 1);
  }
  return -1;
}

/** The index just past the value starting at `i` (no whitespace, as JSON.stringify writes); -1 when malformed. */
function valueEnd(t: string, i: number): number {
  const c = t.charCodeAt(i);
  if (c === QUOTE) return stringEnd(t, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < t.length; ) {
      const d = t.charCodeAt(j);
      if (d === QUOTE) {
        j = stringEnd(t, j);
        if (j === -1) return -1;
        continue;
      }
      if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    return -1;
  }
  let j = i;
  while (j < t.length) {
    const d = t.charCodeAt(j);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET) break;
    j++;
  }
  return j > i ? j : -1;
}

/** One top-level member: its key's opening quote, its value's start and end. */
interface Member {
  start: number;
  value: number;
  end: number;
}

/** The top-level members of an object text, by key (null when the text is not an object as JSON.stringify writes it). */
export function topMembers(t: string): Map<string, Member> | null {
  const out = new Map<string, Member>();
  if (t.charCodeAt(0) !== OPEN_BRACE) return null;
  if (t === '{}') return out;
  let i = 1;
  for (;;) {
    if (t.charCodeAt(i) !== QUOTE) return null;
    const k = stringEnd(t, i);
    if (k === -1 || t.charCodeAt(k) !== COLON) return null;
    const raw = t.slice(i + 1, k - 1);
    const key = raw.includes('\\') ? (JSON.parse(t.slice(i, k)) as string) : raw;
    const end = valueEnd(t, k + 1);
    if (end === -1) return null;
    out.set(key, { start: i, value: k + 1, end });
    const c = t.charCodeAt(end);
    if (c === CLOSE_BRACE) return end === t.length - 1 ? out : null;
    if (c !== COMMA) return null;
    i = end + 1;
  }
}

/**
 * The answer text of a stored document for `opts` (which must not ask for data read elsewhere: showFungible,
 * showCollectionMetadata, showInscription), with `offchain` (the fetched document at its json_uri) merged into
 * `content`; null when the text is not as expected (the caller then parses it).
 */
export function projectDocText(doc: string, opts: DisplayOptions, offchain: Record<string, unknown> | null): string | null {
  const m = topMembers(doc);
  if (!m) return null;
  // [start, end, replacement], in text order once sorted.
  const edits: [number, number, string][] = [];
  const tokenInfo = m.get('token_info');
  if (!opts.showFungible && tokenInfo) {
    // the member with the comma before it (or after it, when it is the first)
    if (doc.charCodeAt(tokenInfo.start - 1) === COMMA) edits.push([tokenInfo.start - 1, tokenInfo.end, '']);
    else edits.push([tokenInfo.start, doc.charCodeAt(tokenInfo.end) === COMMA ? tokenInfo.end + 1 : tokenInfo.end, '']);
  }
  const grouping = m.get('grouping');
  if (!opts.showUnverifiedCollections && grouping && doc.slice(grouping.value, grouping.end).includes('"verified":false')) {
    const groups = JSON.parse(doc.slice(grouping.value, grouping.end)) as unknown;
    if (Array.isArray(groups))
      edits.push([grouping.value, grouping.end, JSON.stringify((groups as Record<string, unknown>[]).filter((g) => g.verified !== false))]);
  }
  const content = m.get('content');
  if (offchain && content) {
    const c = JSON.parse(doc.slice(content.value, content.end)) as { json_uri?: unknown } | null;
    const uri = c?.json_uri;
    if (typeof uri === 'string' && uri.trim() !== '') {
      const holder: AssetJson = { content: c };
      applyOffchainJson(holder, offchain);
      edits.push([content.value, content.end, JSON.stringify(holder.content)]);
    }
  }
  if (!edits.length) return doc;
  edits.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [s, e, r] of edits) {
    out += doc.slice(at, s) + r;
    at = e;
  }
  return out + doc.slice(at);
}
