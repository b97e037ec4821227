/**
 * getAssetsByGroup (alias get_assets_by_group): assets of a group (`groupKey` e.g. "collection", `groupValue`),
 * verified memberships only unless showUnverifiedCollections; walks the group index in the requested order. A
 * collection the index has not covered is read from the cluster first (`requireKeyCoverage`, docs/coverage.md).
 */
import { SolgateError } from '../../../core/errors.js';
import { isAddress } from '../../../core/encoding.js';
import { displayOptions, namedParams, requireField } from '../../das/params.js';
import { answerList, bind, commonListFilters, type ListQuery } from '../../das/list-assets.js';
import { requireKeyCoverage, type RpcMethod } from '../method.js';
import { DAS_LIST_FIELDS, byNameParams, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ groupKey: { type: 'string', description: 'e.g. "collection"' }, groupValue: { type: 'string' }, ...DAS_LIST_FIELDS }, ['groupKey', 'groupValue']);

export function stringField(v: unknown, name: string): string {
  if (typeof v !== 'string') throw new SolgateError('INVALID_PARAMS', `Invalid params: \`${name}\` must be a string`);
  return v;
}

export const getAssetsByGroup: RpcMethod = {
  name: 'getAssetsByGroup',
  aliases: ['get_assets_by_group'],
  credits: 10,
  paramsSchema,
  async handler(params, deps, ctx) {
    const p = namedParams(params, paramNames(paramsSchema));
    const groupKey = stringField(requireField(p, 'groupKey'), 'groupKey');
    const groupValue = stringField(requireField(p, 'groupValue'), 'groupValue');
    const opts = displayOptions(p);
    // Only collections are groups on chain; any other group key answers from the index (its coverage).
    if (groupKey === 'collection' && isAddress(groupValue)) await requireKeyCoverage(deps, ctx, 'group', groupValue);
    const query: ListQuery = { drive: { kind: 'assets' }, where: commonListFilters(opts), params: [] };
    const where = [`s.group_key = ${bind(query, groupKey)}`, `s.group_value = ${bind(query, groupValue)}`];
    if (!opts.showUnverifiedCollections) where.push('s.verified');
    query.drive = { kind: 'side', table: 'das_asset_groups', where };
    return answerList(deps.db, query, p, opts, undefined, deps.tokens);
  },
};
