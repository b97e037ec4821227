/** getGrouping (alias get_grouping, reference-only): the size of a group (verified members). */
import { namedParams, requireField } from '../../das/params.js';
import { stringField } from './getAssetsByGroup.js';
import type { RpcMethod } from '../method.js';
import { byNameParams, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ groupKey: { type: 'string' }, groupValue: { type: 'string' } }, ['groupKey', 'groupValue']);

export const getGrouping: RpcMethod = {
  name: 'getGrouping',
  aliases: ['get_grouping'],
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = namedParams(params, paramNames(paramsSchema));
    const groupKey = stringField(requireField(p, 'groupKey'), 'groupKey');
    const groupValue = stringField(requireField(p, 'groupValue'), 'groupValue');
    const { rows } = await deps.db.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM das_asset_groups WHERE group_key = $1 AND group_value = $2 AND verified',
      [groupKey, groupValue],
    );
    return { group_key: groupKey, group_name: groupValue, group_size: Number(rows[0].n) };
  },
};
