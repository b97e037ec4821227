/**
 * getAssetsByAuthority (alias get_assets_by_authority): assets `authorityAddress` is an authority of (any
 * scope); walks the authority index in the requested order. An authority the index has not covered is read from the
 * cluster first (`requireKeyCoverage`, docs/coverage.md).
 */
import { displayOptions, namedParams, pubkey, requireField } from '../../das/params.js';
import { answerList, bind, commonListFilters, type ListQuery } from '../../das/list-assets.js';
import { requireKeyCoverage, type RpcMethod } from '../method.js';
import { DAS_LIST_FIELDS, PUBKEY, byNameParams, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ authorityAddress: PUBKEY, ...DAS_LIST_FIELDS }, ['authorityAddress']);

export const getAssetsByAuthority: RpcMethod = {
  name: 'getAssetsByAuthority',
  aliases: ['get_assets_by_authority'],
  credits: 10,
  paramsSchema,
  async handler(params, deps, ctx) {
    const p = namedParams(params, paramNames(paramsSchema));
    const authority = pubkey(requireField(p, 'authorityAddress'), 'authorityAddress');
    const opts = displayOptions(p);
    await requireKeyCoverage(deps, ctx, 'authority', authority);
    const query: ListQuery = { drive: { kind: 'assets' }, where: commonListFilters(opts), params: [] };
    query.drive = { kind: 'side', table: 'das_asset_authorities', where: [`s.authority = ${bind(query, authority)}`] };
    return answerList(deps.db, query, p, opts, undefined, deps.tokens);
  },
};
