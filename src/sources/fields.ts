/**
 * Small typed readers for untrusted JSON (RPC responses, recorded files).
 *
 * Every reader takes the dotted path of the value so a malformed input fails with an Error that says exactly
 * which field is wrong (`getTransaction result: meta.preBalances[3] must be an unsigned integer, got "x"`)
 * instead of a `TypeError` deep inside a normaliser.
 */
import { base58ToBytes, base64ToBytes, isAddress } from '../core/encoding.js';

export type JsonObject = Record<string, unknown>;

/** The error every reader throws; `path` is the offending field. */
export class FieldError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path} ${problem}`);
    this.name = 'FieldError';
  }
}

/** A short printable form of a bad value for error messages. */
export function show(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'bigint') return `${v}n`;
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function fail(path: string, expected: string, v: unknown): never {
  throw new FieldError(path, `must be ${expected}, got ${show(v)}`);
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown, path: string): JsonObject {
  return isObject(v) ? v : fail(path, 'an object', v);
}

export function arr(v: unknown, path: string): unknown[] {
  return Array.isArray(v) ? v : fail(path, 'an array', v);
}

/** Array, or `null` when the value is null/absent (fields old records or some sources omit). */
export function optArr(v: unknown, path: string): unknown[] | null {
  return v === null || v === undefined ? null : arr(v, path);
}

export function str(v: unknown, path: string): string {
  return typeof v === 'string' ? v : fail(path, 'a string', v);
}

export function optStr(v: unknown, path: string): string | null {
  return v === null || v === undefined ? null : str(v, path);
}

export function bool(v: unknown, path: string): boolean {
  return typeof v === 'boolean' ? v : fail(path, 'a boolean', v);
}

/** A non-negative safe integer; also accepts a decimal string (as produced by lossless parsing). */
export function uint(v: unknown, path: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return fail(path, 'an unsigned integer', v);
}

export function optUint(v: unknown, path: string): number | null {
  return v === null || v === undefined ? null : uint(v, path);
}

/** A signed integer (block times may precede 1970 on test clusters); also accepts a decimal string. */
export function int(v: unknown, path: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,15}$/.test(v)) return Number(v);
  return fail(path, 'an integer', v);
}

export function optInt(v: unknown, path: string): number | null {
  return v === null || v === undefined ? null : int(v, path);
}

/**
 * A u64 as bigint: a JSON integer, a decimal string or a bigint. Integers beyond 2^53 that were already rounded
 * by a plain `JSON.parse` are accepted as they are (parse with `parseJsonLossless` to keep them exact).
 */
export function u64(v: unknown, path: string): bigint {
  if (typeof v === 'bigint' && v >= 0n) return v;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return BigInt(v);
  return fail(path, 'an unsigned 64-bit integer', v);
}

export function optU64(v: unknown, path: string): bigint | null {
  return v === null || v === undefined ? null : u64(v, path);
}

export function uintArray(v: unknown, path: string): number[] {
  return arr(v, path).map((x, i) => uint(x, `${path}[${i}]`));
}

/** Indexes into an account list, which on the wire are single bytes. */
export function indexArray(v: unknown, path: string): number[] {
  const a = arr(v, path);
  const out = new Array<number>(a.length);
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    // The common case without building the element's path (it is only needed to report a bad value).
    if (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 && x <= 255) out[i] = x;
    else {
      const n = uint(x, `${path}[${i}]`);
      out[i] = n <= 255 ? n : fail(`${path}[${i}]`, 'an account index (0-255)', x);
    }
  }
  return out;
}

export function u64Array(v: unknown, path: string): bigint[] {
  const a = arr(v, path);
  const out = new Array<bigint>(a.length);
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    out[i] = typeof x === 'number' && Number.isInteger(x) && x >= 0 ? BigInt(x) : u64(x, `${path}[${i}]`);
  }
  return out;
}

/** A base58 public key. */
export function address(v: unknown, path: string): string {
  return isAddress(v) ? v : fail(path, 'a base58 address', v);
}

export function optAddress(v: unknown, path: string): string | null {
  return v === null || v === undefined ? null : address(v, path);
}

export function base58Bytes(v: unknown, path: string): Uint8Array {
  const s = str(v, path);
  try {
    return base58ToBytes(s);
  } catch {
    return fail(path, 'base58 data', v);
  }
}

/**
 * Strict base64 (the standard alphabet; padding, when present, completing the last group of four). Checked by the
 * decoded length instead of a pattern over the text (a tenth of the time on a mainnet block's transactions): the
 * decoder skips any character outside its alphabets, so a string holding one decodes short; the URL-safe
 * alphabet, which it also takes, is looked for separately.
 */
export function base64Bytes(v: unknown, path: string): Uint8Array {
  const s = str(v, path);
  const n = s.length;
  const pad = n > 0 && s.charCodeAt(n - 1) === 61 /* = */ ? (n > 1 && s.charCodeAt(n - 2) === 61 ? 2 : 1) : 0;
  const chars = n - pad;
  if ((pad > 0 && n % 4 !== 0) || chars % 4 === 1 || s.includes('-') || s.includes('_')) return fail(path, 'base64 data', v);
  const bytes = base64ToBytes(s);
  return bytes.length === Math.floor((chars * 3) / 4) ? bytes : fail(path, 'base64 data', v);
}

/**
 * Data in the RPC's `[data, encoding]` form (`base64`, `base58`, or `base64+zstd` which is rejected), or a bare
 * base64 string as some recorders write.
 */
export function encodedData(v: unknown, path: string): Uint8Array {
  if (typeof v === 'string') return base64Bytes(v, path);
  const a = arr(v, path);
  const enc = str(a[1], `${path}[1]`);
  if (enc === 'base64') return base64Bytes(a[0], `${path}[0]`);
  if (enc === 'base58') return base58Bytes(a[0], `${path}[0]`);
  return fail(`${path}[1]`, '"base64" or "base58"', enc);
}
