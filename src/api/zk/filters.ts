/**
 * getCompressedAccountsByOwner(V2) `filters` and `dataSlice` (helius-labs/photon
 * src/api/method/get_compressed_accounts_by_owner/common.rs): at most 5 filters, each `{memcmp: {offset, bytes
 * (base58)}}` comparing the account data at `offset`; `dataSlice {offset, length}` trims the returned data.
 * Offsets and lengths are capped at 10^9 so the SQL substring arithmetic stays in range.
 */
import { base58ToBytes } from '../../core/encoding.js';
import type { DataFilter } from '../../store/zk/accounts.js';
import { paramsError, validationError } from './errors.js';
import { uint, type Params } from './params.js';
import type { JsonSchema } from '../rpc/params-schema.js';

export const MAX_FILTERS = 5;
const MAX_BYTES_CHARS = 2000;
const MAX_OFFSET = 1_000_000_000;

const OFFSET: JsonSchema = { type: 'integer', minimum: 0, maximum: MAX_OFFSET };

/** One filter: `{memcmp: {offset, bytes}}` (the accepted names come from here). */
export const MEMCMP_FILTER = {
  type: 'object',
  properties: {
    memcmp: {
      type: 'object',
      properties: { offset: OFFSET, bytes: { type: 'string', maxLength: MAX_BYTES_CHARS, description: 'base58 bytes compared with the data at offset' } },
      required: ['offset', 'bytes'],
      additionalProperties: false,
    },
  },
  required: ['memcmp'],
  additionalProperties: false,
} satisfies JsonSchema;

/** `dataSlice: {offset, length}` (the accepted names come from here). */
export const DATA_SLICE = {
  type: 'object',
  description: 'returns only `length` bytes of the account data from `offset`',
  properties: { offset: OFFSET, length: OFFSET },
  required: ['offset', 'length'],
  additionalProperties: false,
} satisfies JsonSchema;

function keysOf(v: unknown, name: string, allowed: string[]): Params {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw paramsError(`\`${name}\`: expected an object`);
  for (const k of Object.keys(v)) if (!allowed.includes(k)) throw paramsError(`\`${name}\`: unknown field \`${k}\``);
  return v as Params;
}

/** The memcmp filters of a request. */
export function parseFilters(v: unknown): DataFilter[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw paramsError('`filters`: invalid type, expected an array');
  if (v.length > MAX_FILTERS) throw validationError(`Too many filters. The maximum number of filters allowed is ${MAX_FILTERS}`);
  return v.map((f, i) => {
    const sel = keysOf(f, `filters[${i}]`, Object.keys(MEMCMP_FILTER.properties));
    if (sel.memcmp === undefined || sel.memcmp === null) throw validationError('Filter instance cannot be null');
    const m = keysOf(sel.memcmp, `filters[${i}].memcmp`, Object.keys(MEMCMP_FILTER.properties.memcmp.properties));
    const offset = uint(m.offset, `filters[${i}].memcmp.offset`, MAX_OFFSET);
    if (typeof m.bytes !== 'string') throw paramsError(`\`filters[${i}].memcmp.bytes\`: invalid type, expected a base58 string`);
    if (m.bytes.length > MAX_BYTES_CHARS) throw paramsError(`\`filters[${i}].memcmp.bytes\`: too long`);
    let bytes: Uint8Array;
    try {
      bytes = base58ToBytes(m.bytes);
    } catch {
      throw paramsError(`\`filters[${i}].memcmp.bytes\`: not a valid base58 string`);
    }
    return { offset, bytes };
  });
}

/** The `dataSlice` of a request, or null. */
export function parseDataSlice(v: unknown): { offset: number; length: number } | null {
  if (v === undefined || v === null) return null;
  const s = keysOf(v, 'dataSlice', Object.keys(DATA_SLICE.properties));
  if (s.offset === undefined || s.offset === null) throw paramsError('`dataSlice`: missing field `offset`');
  if (s.length === undefined || s.length === null) throw paramsError('`dataSlice`: missing field `length`');
  return { offset: uint(s.offset, 'dataSlice.offset', MAX_OFFSET), length: uint(s.length, 'dataSlice.length', MAX_OFFSET) };
}
