/**
 * Value conversions between the ZK row types and SQL: keys, hashes and signatures travel as base58 in TypeScript
 * and as BYTEA in the tables. Parameters are passed as PostgreSQL hex-format text (`\x0a0b…`), which both drivers
 * accept inside array literals (bulk unnest inserts) and cast with `::bytea` / `::bytea[]`; single values go as
 * Buffers. Results come back as Buffer (pg) or Uint8Array (PGlite).
 */
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';

/** Recent {@link b58hex} results (tree keys recur in every query; a request's keys recur across its queries). */
const hexMemo = new Map<string, string>();
const HEX_MEMO_SIZE = 4096;

/** Base58 → `\x…` hex text (null stays null). */
export function b58hex(s: string): string;
export function b58hex(s: string | null | undefined): string | null;
export function b58hex(s: string | null | undefined): string | null {
  if (s === null || s === undefined) return null;
  let hex = hexMemo.get(s);
  if (hex === undefined) {
    hex = `\\x${Buffer.from(base58ToBytes(s)).toString('hex')}`;
    if (hexMemo.size >= HEX_MEMO_SIZE) hexMemo.clear();
    hexMemo.set(s, hex);
  }
  return hex;
}

/** Bytes → `\x…` hex text (null stays null). */
export function byteshex(b: Uint8Array | null | undefined): string | null {
  if (b === null || b === undefined) return null;
  return `\\x${Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex')}`;
}

/** Base58 → Buffer, for single bytea parameters. */
export function b58buf(s: string): Buffer {
  return Buffer.from(base58ToBytes(s));
}

/** Base58 values as one `{"\\x…",…}` bytea[] array literal parameter. */
export function b58array(values: readonly string[]): string {
  return `{${values.map((v) => `"\\\\x${Buffer.from(base58ToBytes(v)).toString('hex')}"`).join(',')}}`;
}

/** A bytea result as bytes. */
export function asBytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  throw new TypeError(`expected bytea, got ${typeof v}`);
}

/** A (non-null) bytea result as base58. */
export function b58(v: unknown): string {
  return bytesToBase58(asBytes(v));
}

/** A nullable bytea result as base58 or null. */
export function b58n(v: unknown): string | null {
  return v === null || v === undefined ? null : bytesToBase58(asBytes(v));
}

/** A bytea result as a detached Uint8Array (null stays null). */
export function bytesOrNull(v: unknown): Uint8Array | null {
  if (v === null || v === undefined) return null;
  const b = asBytes(v);
  return new Uint8Array(b);
}

/** An int8/numeric result as a number (null stays null). */
export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** A numeric result as bigint (null → 0n). */
export function big(v: unknown): bigint {
  if (v === null || v === undefined) return 0n;
  return BigInt(v as string | number);
}
