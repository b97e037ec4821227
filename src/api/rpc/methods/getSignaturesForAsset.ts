/**
 * getSignaturesForAsset (alias getAssetSignatures): the transactions that changed a compressed asset, as
 * `[signature, instructionName]` pairs, newest first unless `sortDirection` is `asc`; page/limit paging (DAS).
 * The asset is given by `id`, or by `tree` + `leafIndex` as the reference also accepts.
 */
import { SolgateError } from '../../../core/errors.js';
import type { Address } from '../../../core/model.js';
import { cnftAssetId } from '../../../parsers/bubblegum/index.js';
import { namedParams, pubkey } from '../../das/params.js';
import { getCnftSignatures } from '../../../store/cnft.js';
import { getCheckpoint } from '../../../store/chain.js';
import type { RpcMethod } from '../method.js';

const MAX_LIMIT = 1000;

function positiveInt(v: unknown, name: string, max?: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new SolgateError('INVALID_PARAMS', `Invalid params: \`${name}\` must be a positive integer`);
  if (max !== undefined && v > max) throw new SolgateError('INVALID_ARGUMENT', `Pagination Error. Limit should not be greater than ${max}.`);
  return v;
}

/** The getSignaturesForAsset method (alias getAssetSignatures). */
export const getSignaturesForAsset: RpcMethod = {
  name: 'getSignaturesForAsset',
  aliases: ['getAssetSignatures'],
  credits: 10,
  async handler(params, deps) {
    const p = namedParams(params, ['id', 'tree', 'leafIndex', 'page', 'limit', 'before', 'after', 'cursor', 'sortDirection', 'sortBy']);
    let id: string;
    if (p.id !== undefined && p.id !== null) id = pubkey(p.id, 'id');
    else if (p.tree !== undefined && p.leafIndex !== undefined) {
      const tree = pubkey(p.tree, 'tree');
      if (typeof p.leafIndex !== 'number' || !Number.isInteger(p.leafIndex) || p.leafIndex < 0) throw new SolgateError('INVALID_PARAMS', 'Invalid params: `leafIndex` must be a non-negative integer');
      id = cnftAssetId(tree as Address, p.leafIndex);
    } else throw new SolgateError('INVALID_PARAMS', 'Invalid params: give `id`, or `tree` and `leafIndex`');
    for (const k of ['before', 'after', 'cursor'] as const) {
      if (p[k] !== undefined && p[k] !== null) throw new SolgateError('INVALID_ARGUMENT', `\`${k}\` paging is not supported yet for getSignaturesForAsset; use page and limit`);
    }
    const dir = p.sortDirection ?? 'desc';
    if (dir !== 'asc' && dir !== 'desc') throw new SolgateError('INVALID_PARAMS', 'Invalid params: `sortDirection` must be "asc" or "desc"');
    const limit = positiveInt(p.limit, 'limit', MAX_LIMIT) ?? MAX_LIMIT;
    const page = positiveInt(p.page, 'page') ?? 1;
    const [items, slot] = await Promise.all([getCnftSignatures(deps.db, id, limit, (page - 1) * limit, dir === 'asc'), getCheckpoint(deps.db)]);
    return { total: items.length, limit, page, items, last_indexed_slot: slot ?? 0 };
  },
};
