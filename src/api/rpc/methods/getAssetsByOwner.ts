/**
 * getAssetsByOwner (alias get_assets_by_owner): the assets a wallet owns. Without showFungible, its live
 * single-owner assets (the owner index, keyset by id); with showFungible, also every mint it holds a non-empty
 * token account of, fungible ones shown with its balance (reference semantics).
 */
import { displayOptions, namedParams, pubkey, requireField } from '../../das/params.js';
import { answerList, bind, LIST_KEYS, type ListQuery } from '../../das/list-assets.js';
import type { RpcMethod } from '../method.js';

export const getAssetsByOwner: RpcMethod = {
  name: 'getAssetsByOwner',
  aliases: ['get_assets_by_owner'],
  credits: 10,
  async handler(params, deps) {
    const p = namedParams(params, ['ownerAddress', ...LIST_KEYS]);
    const owner = pubkey(requireField(p, 'ownerAddress'), 'ownerAddress');
    const opts = displayOptions(p);
    const query: ListQuery = { drive: { kind: 'assets' }, where: [], params: [] };
    if (opts.showFungible) {
      query.drive = { kind: 'holdings', ownerParam: bind(query, owner) };
      query.where.push('a.supply > 0');
    } else {
      query.where.push(`a.owner = ${bind(query, owner)}`, "a.owner_type = 'single'", 'a.supply > 0', 'NOT a.burnt');
    }
    return answerList(deps.db, query, p, opts, owner);
  },
};
