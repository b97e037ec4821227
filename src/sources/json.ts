/**
 * JSON parsing for chain data without silent precision loss.
 *
 * Solana JSON-RPC and recorded files carry u64 values (lamports, `rentEpoch`, write versions) as bare JSON
 * numbers. `JSON.parse` rounds anything above 2^53 (a localnet faucet holds ~5e17 lamports), so the sources
 * parse through {@link parseJsonLossless}, which turns integer literals of 16+ digits into strings first; the
 * normalisers accept digit strings wherever they expect an integer.
 */

/** Matches a JSON string (skipped as a whole) or a bare integer literal of 16 or more digits. */
const STRING_OR_BIG_INT = /"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/g;
/**
 * Cheap pre-test: a bare integer literal always starts the document or follows `:`, `,` or `[` (plus optional
 * whitespace). Digit runs inside strings (base58 `1111…`, log lines) rarely look like that, so the exact (and
 * several times slower) rewrite only runs when a candidate exists; a false positive only costs time.
 */
const MAYBE_BIG_INT = /(?:^|[:,[])\s*-?\d{16}/;

/**
 * `JSON.parse`, except that integer literals too long to be exact as a JS number become decimal strings.
 * Throws the `JSON.parse` SyntaxError on invalid input.
 *
 * When a candidate exists, the text is parsed as it is first: if no number of the result lies beyond ±(2^53 − 1),
 * every integer literal in it was exact (a literal beyond that bound parses to at least 2^53), so the result is
 * returned as it is, and only otherwise is the text rewritten (every literal of 16 or more digits outside strings
 * quoted) and parsed again. A real mainnet block holds 16-digit lamport balances below the bound and none above
 * it: its walk takes about a tenth of the rewrite.
 */
export function parseJsonLossless(text: string): unknown {
  if (!MAYBE_BIG_INT.test(text)) return JSON.parse(text);
  const doc: unknown = JSON.parse(text);
  return holdsInexactNumber(doc) ? JSON.parse(quoteBigInts(text)) : doc;
}

/** Whether a parsed JSON value holds a number beyond the safe integers (an integer literal may have lost digits). */
function holdsInexactNumber(v: unknown): boolean {
  if (typeof v === 'number') return !(v <= Number.MAX_SAFE_INTEGER && v >= -Number.MAX_SAFE_INTEGER);
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if ((typeof x === 'object' || typeof x === 'number') && holdsInexactNumber(x)) return true;
    }
    return false;
  }
  for (const k in v) {
    const x: unknown = (v as Record<string, unknown>)[k];
    if ((typeof x === 'object' || typeof x === 'number') && holdsInexactNumber(x)) return true;
  }
  return false;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * `text` with every integer literal of 16 or more digits outside strings quoted (the rewrite of
 * {@link STRING_OR_BIG_INT}, by a scan that jumps from quote to quote instead of a regex match per string: a
 * mainnet block holds hundreds of thousands of strings, and one 16-digit lamport balance sends it here).
 * Numbers with a fraction or an exponent are left as they are. Invalid JSON comes out as invalid as it came in.
 */
function quoteBigInts(text: string): string {
  const n = text.length;
  let out = '';
  let last = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // The closing quote: the next one not escaped (preceded by an even run of backslashes).
      let q = text.indexOf('"', i + 1);
      while (q !== -1) {
        let b = q - 1;
        while (text.charCodeAt(b) === 92 /* \ */) b--;
        if ((q - 1 - b) % 2 === 0) break;
        q = text.indexOf('"', q + 1);
      }
      if (q === -1) break;
      i = q + 1;
      continue;
    }
    if (c === 45 /* - */ || isDigit(c)) {
      let j = c === 45 ? i + 1 : i;
      const start = j;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
      // The rest of the number token (fraction, exponent): such a number is not an integer literal.
      let k = j;
      for (let d = text.charCodeAt(k); k < n && (isDigit(d) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45); d = text.charCodeAt(++k));
      if (k === j && j - start >= 16) {
        out += `${text.slice(last, i)}"${text.slice(i, j)}"`;
        last = j;
      }
      i = k;
      continue;
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Marks a big integer literal inside the rewritten text of {@link parseJsonBigInt} (a JSON string cannot contain U+0000 raw). */
const BIG_MARK = '\u0000';

/**
 * `JSON.parse`, except that integer literals too long to be exact as a JS number become `bigint`s (so a proxy can
 * write them back with every digit; strings in the document stay strings).
 */
export function parseJsonBigInt(text: string): unknown {
  if (!MAYBE_BIG_INT.test(text)) return JSON.parse(text);
  let found = false;
  const safe = text.replace(STRING_OR_BIG_INT, (m) => (m.charCodeAt(0) === 34 /* " */ ? m : ((found = true), `"\\u0000${m}"`)));
  const doc = JSON.parse(safe);
  return found ? reviveBig(doc) : doc;
}

function reviveBig(v: unknown): unknown {
  if (typeof v === 'string') return v.charCodeAt(0) === 0 && v.startsWith(BIG_MARK) && /^-?\d+$/.test(v.slice(1)) ? BigInt(v.slice(1)) : v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = reviveBig(v[i]);
    return v;
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = reviveBig(o[k]);
    return o;
  }
  return v;
}

/**
 * Parses a recorded file: one JSON document, or JSON lines (one document per non-empty line).
 * Returns the documents; throws an Error naming `label` when neither form parses.
 */
export function parseJsonDocuments(text: string, label: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error(`${label}: file is empty`);
  try {
    return [parseJsonLossless(trimmed)];
  } catch (whole) {
    const lines = trimmed.split(/\r?\n/).filter((l) => l.trim() !== '');
    if (lines.length < 2) throw new Error(`${label}: invalid JSON: ${(whole as Error).message}`);
    return lines.map((line, i) => {
      try {
        return parseJsonLossless(line);
      } catch (e) {
        throw new Error(
          `${label}: invalid JSON: ${(whole as Error).message} ` +
            `(nor JSON lines: line ${i + 1}: ${(e as Error).message})`,
        );
      }
    });
  }
}
