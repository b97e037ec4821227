/** getAsset: one asset by id (DAS). */
import { SolgateError } from '../../../core/errors.js';
import { displayOptions, namedParams, pubkey, requireField } from '../../das/params.js';
import { loadAssets } from '../../das/load-assets.js';
import type { RpcMethod } from '../method.js';

export const getAsset: RpcMethod = {
  name: 'getAsset',
  credits: 10,
  async handler(params, deps) {
    const p = namedParams(params, ['id', 'options', 'displayOptions']);
    const id = pubkey(requireField(p, 'id'), 'id');
    const assets = await loadAssets(deps.db, [id], displayOptions(p));
    const a = assets.get(id);
    if (!a) throw new SolgateError('NOT_FOUND', 'Database Error: RecordNotFound Error: Asset Not Found');
    return a;
  },
};
