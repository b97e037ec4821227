/** getAssetBatch (aliases getAssets, get_asset_batch): assets by distinct id, null where not found (DAS). */
import { SolgateError } from '../../../core/errors.js';
import { displayOptions, namedParams, pubkey, requireField } from '../../das/params.js';
import { loadAssetAnswers, loadAssetDocs, passThrough } from '../../das/asset-docs.js';
import { addTokenPrices } from '../../das/price-info.js';
import { requireAssetCoverage, type RpcMethod } from '../method.js';
import { DISPLAY_OPTIONS, PUBKEY, byNameParams, paramNames } from '../params-schema.js';

export const MAX_BATCH = 1000;

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ ids: { type: 'array', items: PUBKEY, maxItems: MAX_BATCH }, options: DISPLAY_OPTIONS, displayOptions: DISPLAY_OPTIONS }, ['ids']);

export const getAssetBatch: RpcMethod = {
  name: 'getAssetBatch',
  aliases: ['getAssets', 'get_asset_batch'],
  credits: 10,
  paramsSchema,
  async handler(params, deps, ctx) {
    const p = namedParams(params, paramNames(paramsSchema));
    const raw = requireField(p, 'ids');
    if (!Array.isArray(raw)) throw new SolgateError('INVALID_PARAMS', 'Invalid params: `ids` must be an array');
    if (raw.length > MAX_BATCH) throw new SolgateError('INVALID_ARGUMENT', 'Batch Size Error. Batch size should not be greater than 1000.');
    // Like the reference: one entry per distinct id, in first-seen order, null where not found.
    const ids = [...new Set(raw.map((v) => pubkey(v, 'ids')))];
    await requireAssetCoverage(deps, ctx, ids);
    const opts = displayOptions(p);
    if (passThrough(opts)) {
      const answers = await loadAssetAnswers(deps.db, ids, opts);
      return ids.map((id) => answers.get(id) ?? null);
    }
    const assets = await loadAssetDocs(deps.db, ids, opts);
    if (opts.showFungible) await addTokenPrices(assets.values(), deps.tokens);
    return ids.map((id) => assets.get(id) ?? null);
  },
};
