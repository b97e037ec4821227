/**
 * getAssetsByOwner (alias get_assets_by_owner): the assets a wallet owns. Without showFungible, its live
 * single-owner assets (the owner index, keyset by id); with showFungible, also every mint it holds a non-empty
 * token account of (empty ones too with showZeroBalance), fungible ones shown with its balance (reference
 * semantics); `nativeBalance` with showNativeBalance.
 */
import { displayOptions, namedParams, pubkey, requireField } from '../../das/params.js';
import { answerList, bind, ownerAssetsQuery, type ListQuery } from '../../das/list-assets.js';
import { requireCoverage, type RpcMethod } from '../method.js';
import { DAS_LIST_FIELDS, PUBKEY, byNameParams, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ ownerAddress: PUBKEY, ...DAS_LIST_FIELDS }, ['ownerAddress']);

export const getAssetsByOwner: RpcMethod = {
  name: 'getAssetsByOwner',
  aliases: ['get_assets_by_owner'],
  credits: 10,
  paramsSchema,
  async handler(params, deps, ctx) {
    const p = namedParams(params, paramNames(paramsSchema));
    const owner = pubkey(requireField(p, 'ownerAddress'), 'ownerAddress');
    const opts = displayOptions(p);
    await requireCoverage(deps, ctx, owner);
    let query: ListQuery;
    if (opts.showFungible) {
      query = { drive: { kind: 'assets' }, where: ['a.supply > 0'], params: [] };
      query.drive = { kind: 'holdings', ownerParam: bind(query, owner), zeroBalance: opts.showZeroBalance };
    } else query = ownerAssetsQuery(owner);
    return answerList(deps.db, query, p, opts, owner, deps.tokens);
  },
};
