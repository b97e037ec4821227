/**
 * Request parsing of the ZK methods, mirroring Photon's serde request structs (`deny_unknown_fields`, camelCase):
 * a value that does not deserialize — unknown field, missing required field, wrong JSON type, a pubkey or hash
 * that is not 32 bytes of base58, a `limit` above 1000 — is a params error (-32602), never a 500. Optional fields
 * accept `null` like serde's `Option`.
 */
import { base58ToBytes, isAddress, isSignature } from '../../core/encoding.js';
import { paramsError, validationError } from './errors.js';
import { ADDRESS_WITH_TREE, HASH, listParams, paramNames, type ObjectParamsSchema } from '../rpc/params-schema.js';

export type Params = Record<string, unknown>;

/** Photon's page `Limit`: at most 1000, 1000 when absent. */
export const PAGE_LIMIT = 1000;

const given = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * The params object with every key checked against `allowed`. Missing params (`undefined`/`null`) are an empty
 * object when `optional` (every field of the request is optional), a params error otherwise.
 */
export function objectParams(params: unknown, allowed: readonly string[], optional = false): Params {
  if (params === undefined || params === null) {
    if (optional) return {};
    throw paramsError('expected an object');
  }
  if (typeof params !== 'object' || Array.isArray(params)) throw paramsError('expected an object');
  for (const k of Object.keys(params))
    if (!allowed.includes(k)) throw paramsError(`unknown field \`${k}\`, expected one of ${allowed.map((a) => `\`${a}\``).join(', ')}`);
  return params as Params;
}

/**
 * The params object of a by-name method checked against its schema: unknown fields refused against exactly the
 * schema's properties, omitted or null params taken as `{}` when the schema's type admits null (else a params
 * error), then each of the schema's required fields present (`missing field`), in the schema's order.
 */
export function schemaParams(params: unknown, schema: ObjectParamsSchema): Params {
  const p = objectParams(params, paramNames(schema), Array.isArray(schema.type));
  for (const r of schema.required ?? []) required(p, r);
  return p;
}

/** Params that are a JSON array (Photon's `HashList`, `AddressList`, `AddressListWithTrees`). */
export function arrayParams(params: unknown): unknown[] {
  if (!Array.isArray(params)) throw paramsError('expected an array');
  return params;
}

/** A required field. */
export function required(p: Params, name: string): unknown {
  if (!given(p[name])) throw paramsError(`missing field \`${name}\``);
  return p[name];
}

/** A `SerializablePubkey`: base58 of 32 bytes. */
export function pubkey(v: unknown, name: string): string {
  if (typeof v !== 'string') throw paramsError(`\`${name}\`: invalid type, expected a base58 public key`);
  if (!isAddress(v)) throw paramsError(`\`${name}\`: invalid public key ${JSON.stringify((v as string).slice(0, 100))}`);
  return v;
}

/** A `Hash`: base58 of 32 bytes (the same form as a pubkey). */
export function hash(v: unknown, name: string): string {
  if (typeof v !== 'string') throw paramsError(`\`${name}\`: invalid type, expected a base58 hash`);
  if (!isAddress(v)) throw paramsError(`\`${name}\`: invalid hash ${JSON.stringify((v as string).slice(0, 100))}`);
  return v;
}

/** An optional pubkey (`Option<SerializablePubkey>`). */
export function optionalPubkey(v: unknown, name: string): string | null {
  return given(v) ? pubkey(v, name) : null;
}

/** An optional hash (`Option<Hash>`). */
export function optionalHash(v: unknown, name: string): string | null {
  return given(v) ? hash(v, name) : null;
}

/** A `SerializableSignature`: base58 of 64 bytes. */
export function signature(v: unknown, name: string): string {
  if (typeof v !== 'string') throw paramsError(`\`${name}\`: invalid type, expected a base58 signature`);
  if (!isSignature(v)) throw paramsError(`\`${name}\`: invalid signature ${JSON.stringify((v as string).slice(0, 100))}`);
  return v;
}

/** An optional `Base58String` (any length; Photon checks the decoded length afterwards). */
export function optionalBase58(v: unknown, name: string): string | null {
  if (!given(v)) return null;
  if (typeof v !== 'string') throw paramsError(`\`${name}\`: invalid type, expected a base58 string`);
  if (v.length > 200) throw paramsError(`\`${name}\`: not a valid base58 string`);
  try {
    base58ToBytes(v);
  } catch {
    throw paramsError(`\`${name}\`: not a valid base58 string`);
  }
  return v;
}

/** An optional plain string (signature-list cursors are `Option<String>` in Photon). */
export function optionalString(v: unknown, name: string): string | null {
  if (!given(v)) return null;
  if (typeof v !== 'string') throw paramsError(`\`${name}\`: invalid type, expected a string`);
  return v;
}

/** An unsigned integer in [0, max] (`max` defaults to u64's safe range). */
export function uint(v: unknown, name: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw paramsError(`\`${name}\`: invalid value, expected an unsigned integer`);
  if (v > max) throw paramsError(`\`${name}\`: invalid value: integer \`${v}\`, expected a value less than or equal to ${max}`);
  return v;
}

/** An optional unsigned integer. */
export function optionalUint(v: unknown, name: string, max?: number): number | null {
  return given(v) ? uint(v, name, max) : null;
}

/** Photon's `Option<Limit>`: 1000 when absent, a params error above 1000. */
export function limit(v: unknown): number {
  if (!given(v)) return PAGE_LIMIT;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw paramsError('`limit`: invalid value, expected an unsigned integer');
  if (v > PAGE_LIMIT) throw paramsError(`\`limit\`: invalid value: integer \`${v}\`, expected a value less than or equal to ${PAGE_LIMIT}`);
  return v;
}

/** A JSON array field (`Vec<T>`), `[]` when absent and `optional`. */
export function list(v: unknown, name: string, optional = true): unknown[] {
  if (!given(v)) {
    if (optional) return [];
    throw paramsError(`missing field \`${name}\``);
  }
  if (!Array.isArray(v)) throw paramsError(`\`${name}\`: invalid type, expected an array`);
  return v;
}

/** An `AddressWithTree` object: `{address, tree}` (both pubkeys, no other field; the names from `ADDRESS_WITH_TREE`). */
export function addressWithTree(v: unknown, name: string): { address: string; tree: string } {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw paramsError(`\`${name}\`: expected an object {address, tree}`);
  const p = v as Params;
  const allowed = paramNames(ADDRESS_WITH_TREE);
  for (const k of Object.keys(p)) if (!allowed.includes(k)) throw paramsError(`\`${name}\`: unknown field \`${k}\`, expected ${allowed.map((a) => `\`${a}\``).join(', ')}`);
  return { address: pubkey(required(p, 'address'), `${name}.address`), tree: pubkey(required(p, 'tree'), `${name}.tree`) };
}

/** Photon's `HashList` params: the params are a JSON array of account hashes, at most 1000. */
export const HASH_LIST_PARAMS = listParams('hashes', HASH, PAGE_LIMIT, 'account hashes (base58), one per position');

/** Photon's `HashList` params (a JSON array of hashes), at most 1000. */
export function hashList(params: unknown): string[] {
  const items = arrayParams(params);
  const max = HASH_LIST_PARAMS.maxItems;
  if (items.length > max) throw validationError(`Too many hashes requested ${items.length}. Maximum allowed: ${max}`);
  return items.map((h, i) => hash(h, `[${i}]`));
}
