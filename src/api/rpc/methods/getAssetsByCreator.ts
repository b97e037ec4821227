/**
 * getAssetsByCreator (alias get_assets_by_creator): assets listing `creatorAddress` among their creators
 * (`onlyVerified` keeps verified entries only); walks the creator index in the requested order. A creator the index
 * has not covered is read from the cluster first (`requireKeyCoverage`, docs/coverage.md).
 */
import { SolgateError } from '../../../core/errors.js';
import { displayOptions, namedParams, pubkey, requireField } from '../../das/params.js';
import { answerList, bind, commonListFilters, type ListQuery } from '../../das/list-assets.js';
import { requireKeyCoverage, type RpcMethod } from '../method.js';
import { DAS_LIST_FIELDS, PUBKEY, nullable, byNameParams, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ creatorAddress: PUBKEY, onlyVerified: nullable({ type: 'boolean' }), ...DAS_LIST_FIELDS }, ['creatorAddress']);

export const getAssetsByCreator: RpcMethod = {
  name: 'getAssetsByCreator',
  aliases: ['get_assets_by_creator'],
  credits: 10,
  paramsSchema,
  async handler(params, deps, ctx) {
    const p = namedParams(params, paramNames(paramsSchema));
    const creator = pubkey(requireField(p, 'creatorAddress'), 'creatorAddress');
    if (p.onlyVerified != null && typeof p.onlyVerified !== 'boolean') throw new SolgateError('INVALID_PARAMS', 'Invalid params: `onlyVerified` must be a boolean');
    const opts = displayOptions(p);
    await requireKeyCoverage(deps, ctx, 'creator', creator);
    const query: ListQuery = { drive: { kind: 'assets' }, where: commonListFilters(opts), params: [] };
    const where = [`s.creator = ${bind(query, creator)}`];
    if (p.onlyVerified === true) where.push('s.verified');
    query.drive = { kind: 'side', table: 'das_asset_creators', where };
    return answerList(deps.db, query, p, opts, undefined, deps.tokens);
  },
};
