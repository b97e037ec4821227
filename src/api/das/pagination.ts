/**
 * DAS list pagination shared by every list method (compat-facts §2.4/§2.6): `limit` ≤ 1000 (default 1000),
 * 1-based `page`, keyset `before`/`after`/`cursor` as base58 keys; the modes are exclusive. Errors carry the
 * reference's messages (-32000); values of the wrong type are -32602.
 */
import { SolgateError } from '../../core/errors.js';
import { isAddress } from '../../core/encoding.js';
import type { Params } from './params.js';

export const MAX_LIMIT = 1000;

/** Pagination keys every list method accepts. */
export const PAGINATION_KEYS = ['page', 'limit', 'before', 'after', 'cursor'] as const;

export type Pagination =
  | { mode: 'page'; limit: number; page: number }
  | { mode: 'keyset'; limit: number; before?: string; after?: string }
  | { mode: 'cursor'; limit: number; cursor?: string };

function int(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffff_ffff) throw new SolgateError('INVALID_PARAMS', `Invalid params: \`${name}\` must be a non-negative integer`);
  return v;
}

function key(v: unknown, name: string, kind: 'Pubkey' | 'Cursor'): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new SolgateError('INVALID_PARAMS', `Invalid params: \`${name}\` must be a string`);
  if (!isAddress(v)) throw new SolgateError('INVALID_ARGUMENT', `${kind} Validation Err: ${v} is invalid`);
  return v;
}

/**
 * Reads and validates the pagination params. `sortedById` is false when the request sorts by anything but
 * `id` (keyset modes need the id order).
 */
export function parsePagination(p: Params, opts: { sortedById?: boolean } = {}): Pagination {
  const limit = int(p.limit, 'limit') ?? MAX_LIMIT;
  const page = int(p.page, 'page');
  const before = key(p.before, 'before', 'Pubkey');
  const after = key(p.after, 'after', 'Pubkey');
  const cursor = key(p.cursor, 'cursor', 'Cursor');
  if (limit > MAX_LIMIT) throw new SolgateError('INVALID_ARGUMENT', 'Pagination Error. Limit should not be greater than 1000.');
  const keyset = before !== undefined || after !== undefined;
  if (page !== undefined && (keyset || cursor !== undefined)) throw new SolgateError('INVALID_ARGUMENT', 'Pagination Error. Only one pagination parameter supported per query.');
  if (cursor !== undefined && keyset) throw new SolgateError('INVALID_ARGUMENT', 'Pagination Error. Only one pagination parameter supported per query.');
  if (page !== undefined) {
    // The reference answers page 0 with its "empty pagination" error.
    if (page === 0) throw new SolgateError('INVALID_ARGUMENT', 'Pagination Error. No Pagination Method Selected');
    return { mode: 'page', limit, page };
  }
  if ((keyset || cursor !== undefined) && opts.sortedById === false)
    throw new SolgateError('INVALID_ARGUMENT', 'Pagination Sorting Error. Only sorting based on id is supported for this pagination option.');
  if (keyset) return { mode: 'keyset', limit, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
  return { mode: 'cursor', limit, ...(cursor !== undefined ? { cursor } : {}) };
}

/** SQL for a page of rows ordered by `column` (text, compared byte-wise), with `$n` placeholders from `next`. */
export function keysetSql(pg: Pagination, column: string, next: (v: unknown) => string): { where: string[]; order: string; limitOffset: string } {
  const col = `${column} COLLATE "C"`;
  const where: string[] = [];
  let order = `${col} ASC`;
  let limitOffset = `LIMIT ${pg.limit}`;
  if (pg.mode === 'page') limitOffset += ` OFFSET ${(pg.page - 1) * pg.limit}`;
  else if (pg.mode === 'cursor') {
    if (pg.cursor) where.push(`${col} > ${next(pg.cursor)}`);
  } else {
    if (pg.after) where.push(`${col} > ${next(pg.after)}`);
    if (pg.before) where.push(`${col} < ${next(pg.before)}`);
    // `before` alone pages backwards from the key: nearest rows first, re-sorted ascending by the caller.
    if (pg.before && !pg.after) order = `${col} DESC`;
  }
  return { where, order, limitOffset };
}

/**
 * The page/before/after/cursor keys of a list result, given the rows' keys in ascending order. Asset lists
 * return the last key as cursor on every cursor-mode page (`alwaysCursor`); token-account lists only when the
 * page is full or a cursor was given (null otherwise), as the reference's snapshots show.
 */
export function pageKeys(pg: Pagination, keys: string[], alwaysCursor = true): Record<string, unknown> {
  if (pg.mode === 'page') return { page: pg.page };
  if (pg.mode === 'keyset') return { ...(pg.before ? { before: pg.before } : {}), ...(pg.after ? { after: pg.after } : {}) };
  const last = keys.length ? keys[keys.length - 1] : null;
  return { cursor: alwaysCursor || keys.length === pg.limit || pg.cursor ? last : null };
}
