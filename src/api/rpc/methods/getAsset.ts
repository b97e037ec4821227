/** getAsset: one asset by id (DAS). */
import { SolgateError } from '../../../core/errors.js';
import { displayOptions, namedParams, pubkey, requireField } from '../../das/params.js';
import { loadAssetAnswers, loadAssetDocs, passThrough } from '../../das/asset-docs.js';
import { addTokenPrices } from '../../das/price-info.js';
import { requireAssetCoverage, type RpcMethod } from '../method.js';
import { DISPLAY_OPTIONS, PUBKEY, byNameParams, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ id: PUBKEY, options: DISPLAY_OPTIONS, displayOptions: DISPLAY_OPTIONS }, ['id']);

export const getAsset: RpcMethod = {
  name: 'getAsset',
  credits: 10,
  paramsSchema,
  async handler(params, deps, ctx) {
    const p = namedParams(params, paramNames(paramsSchema));
    const id = pubkey(requireField(p, 'id'), 'id');
    await requireAssetCoverage(deps, ctx, [id]);
    const opts = displayOptions(p);
    // Without options that add data, the stored document's text is the answer (written as is, api/wire/json.ts).
    if (passThrough(opts)) return found((await loadAssetAnswers(deps.db, [id], opts)).get(id));
    const a = found((await loadAssetDocs(deps.db, [id], opts)).get(id));
    if (opts.showFungible) await addTokenPrices([a], deps.tokens);
    return a;
  },
};

function found<T>(a: T | undefined): T {
  if (!a) throw new SolgateError('NOT_FOUND', 'Database Error: RecordNotFound Error: Asset Not Found');
  return a;
}
