/**
 * getSignaturesForAsset (alias getAssetSignatures): the transactions that changed a compressed asset, as
 * `[signature, instructionName]` pairs, in change-log (`seq`) order, newest first unless `sortDirection` is `asc`
 * (as the DAS reference orders `cl_audits_v2`). The asset is given by `id`, or by `tree` + `leafIndex` — exactly
 * one of the two, as the reference requires.
 *
 * Paging follows the list methods' rules (`pagination.ts`: limit ≤ 1000, 1-based `page`, `page` / `before`+`after`
 * / `cursor` exclusive, the reference's messages), and `total` is the number of items on the page, as the
 * reference reports it. Keyset values are transaction signatures of the asset (what the items carry and what the
 * providers' docs describe): `before` = older than that signature, `after` = newer, in either direction (the
 * reference's `seq < before` / `seq > after`); `cursor` = past that signature in the listing direction, so the last
 * item's signature continues a listing. The reference parses these values as pubkeys and compares them with the
 * bigint seq column, which its PostgreSQL rejects; a signature is the value clients can actually send. As in the
 * reference, the result echoes `page` (page mode) or `before`/`after` (keyset mode) and carries no `cursor`.
 */
import { SolgateError } from '../../../core/errors.js';
import { isSignature } from '../../../core/encoding.js';
import type { Address } from '../../../core/model.js';
import { cnftAssetId } from '../../../parsers/bubblegum/index.js';
import { namedParams, pubkey } from '../../das/params.js';
import { parsePagination } from '../../das/pagination.js';
import { getCnftSignaturePage } from '../../../store/cnft.js';
import { getCheckpoint } from '../../../store/chain.js';
import type { RpcMethod } from '../method.js';
import { DAS_PAGINATION, PUBKEY, SIGNATURE, byNameParams, nullable, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({
  id: nullable({ ...PUBKEY, description: 'the asset id (or give `tree` and `leafIndex`)' }),
  tree: nullable({ ...PUBKEY, description: 'the Merkle tree of a compressed asset (with `leafIndex`)' }),
  leafIndex: nullable({ type: 'integer', minimum: 0 }),
  page: DAS_PAGINATION.page,
  limit: DAS_PAGINATION.limit,
  before: nullable({ ...SIGNATURE, description: 'keyset: signatures before this one' }),
  after: nullable({ ...SIGNATURE, description: 'keyset: signatures after this one' }),
  cursor: nullable({ ...SIGNATURE, description: 'the cursor of the previous page' }),
  sortDirection: nullable({ type: 'string', enum: ['asc', 'desc'], default: 'desc' }),
});
const KEYS = ['before', 'after', 'cursor'] as const;
/** A valid pubkey that stands in for a signature so `parsePagination` applies its mode rules unchanged. */
const STAND_IN = '11111111111111111111111111111111';

function given(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** A keyset value: a transaction signature (wrong type → -32602, not a signature → -32000). */
function signatureKey(v: unknown, name: string): string | undefined {
  if (!given(v)) return undefined;
  if (typeof v !== 'string') throw new SolgateError('INVALID_PARAMS', `Invalid params: \`${name}\` must be a string`);
  if (!isSignature(v)) throw new SolgateError('INVALID_ARGUMENT', `${name === 'cursor' ? 'Cursor' : 'Signature'} Validation Err: ${v} is invalid`);
  return v;
}

/** The asset id from `id`, or from `tree` + `leafIndex` (exactly one form). */
function assetId(p: Record<string, unknown>): string {
  if (given(p.id) && typeof p.id !== 'string') throw new SolgateError('INVALID_PARAMS', 'Invalid params: `id` must be a string');
  if (given(p.tree) && typeof p.tree !== 'string') throw new SolgateError('INVALID_PARAMS', 'Invalid params: `tree` must be a string');
  if (given(p.leafIndex) && (typeof p.leafIndex !== 'number' || !Number.isSafeInteger(p.leafIndex) || p.leafIndex < 0))
    throw new SolgateError('INVALID_PARAMS', 'Invalid params: `leafIndex` must be a non-negative integer');
  const byId = given(p.id) && !given(p.tree) && !given(p.leafIndex);
  const byLeaf = !given(p.id) && given(p.tree) && given(p.leafIndex);
  if (!byId && !byLeaf) throw new SolgateError('INVALID_ARGUMENT', "Validation Error: Must provide either 'id' or both 'tree' and 'leafIndex'");
  if (byId) return pubkey(p.id, 'id');
  return cnftAssetId(pubkey(p.tree, 'tree') as Address, p.leafIndex as number);
}

/** The getSignaturesForAsset method (alias getAssetSignatures). */
export const getSignaturesForAsset: RpcMethod = {
  name: 'getSignaturesForAsset',
  aliases: ['getAssetSignatures'],
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = namedParams(params, paramNames(paramsSchema));
    const id = assetId(p);
    const dir = p.sortDirection ?? 'desc';
    if (dir !== 'asc' && dir !== 'desc') throw new SolgateError('INVALID_PARAMS', 'Invalid params: `sortDirection` must be "asc" or "desc"');
    const keys = Object.fromEntries(KEYS.map((k) => [k, signatureKey(p[k], k)])) as Record<(typeof KEYS)[number], string | undefined>;
    const pg = parsePagination({
      page: p.page,
      limit: p.limit,
      ...Object.fromEntries(KEYS.map((k) => [k, keys[k] === undefined ? undefined : STAND_IN])),
    });
    const ascending = dir === 'asc';
    const [page, slot] = await Promise.all([
      getCnftSignaturePage(deps.db, id, {
        limit: pg.limit,
        ascending,
        ...(pg.mode === 'page' ? { offset: (pg.page - 1) * pg.limit } : {}),
        ...(pg.mode === 'keyset' ? { before: keys.before, after: keys.after } : {}),
        ...(pg.mode === 'cursor' && keys.cursor !== undefined ? { cursor: keys.cursor } : {}),
      }),
      getCheckpoint(deps.db),
    ]);
    if ('unknown' in page) throw new SolgateError('INVALID_ARGUMENT', `Pagination Error. ${page.unknown} is not a signature of asset ${id}`);
    return {
      total: page.items.length,
      limit: pg.limit,
      ...(pg.mode === 'page' ? { page: pg.page } : {}),
      ...(pg.mode === 'keyset' && keys.before !== undefined ? { before: keys.before } : {}),
      ...(pg.mode === 'keyset' && keys.after !== undefined ? { after: keys.after } : {}),
      items: page.items,
      last_indexed_slot: slot ?? 0,
    };
  },
};
