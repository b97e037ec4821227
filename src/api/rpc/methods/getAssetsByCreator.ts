/**
 * getAssetsByCreator (alias get_assets_by_creator): assets listing `creatorAddress` among their creators
 * (`onlyVerified` keeps verified entries only); walks the creator index in the requested order.
 */
import { SolgateError } from '../../../core/errors.js';
import { displayOptions, namedParams, pubkey, requireField } from '../../das/params.js';
import { answerList, bind, commonListFilters, LIST_KEYS, type ListQuery } from '../../das/list-assets.js';
import type { RpcMethod } from '../method.js';

export const getAssetsByCreator: RpcMethod = {
  name: 'getAssetsByCreator',
  aliases: ['get_assets_by_creator'],
  credits: 10,
  async handler(params, deps) {
    const p = namedParams(params, ['creatorAddress', 'onlyVerified', ...LIST_KEYS]);
    const creator = pubkey(requireField(p, 'creatorAddress'), 'creatorAddress');
    if (p.onlyVerified != null && typeof p.onlyVerified !== 'boolean') throw new SolgateError('INVALID_PARAMS', 'Invalid params: `onlyVerified` must be a boolean');
    const opts = displayOptions(p);
    const query: ListQuery = { drive: { kind: 'assets' }, where: commonListFilters(opts), params: [] };
    const where = [`s.creator = ${bind(query, creator)}`];
    if (p.onlyVerified === true) where.push('s.verified');
    query.drive = { kind: 'side', table: 'das_asset_creators', where };
    return answerList(deps.db, query, p, opts);
  },
};
