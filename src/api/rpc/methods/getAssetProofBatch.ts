/** getAssetProofBatch (alias getAssetProofs): verified proofs keyed by asset id, null where none (DAS). */
import { SolgateError } from '../../../core/errors.js';
import { namedParams, pubkey, requireField } from '../../das/params.js';
import { loadAssetProofs } from '../../das/asset-proof.js';
import type { RpcMethod } from '../method.js';
import { PUBKEY, byNameParams, paramNames } from '../params-schema.js';

/** Most ids one call may ask for. */
export const MAX_PROOF_BATCH = 1000;

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ ids: { type: 'array', items: PUBKEY, maxItems: MAX_PROOF_BATCH } }, ['ids']);

/** The getAssetProofBatch method (alias getAssetProofs): `{ids}` (≤ 1000) → `{[id]: proof | null}`. */
export const getAssetProofBatch: RpcMethod = {
  name: 'getAssetProofBatch',
  aliases: ['getAssetProofs'],
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = namedParams(params, paramNames(paramsSchema));
    const raw = requireField(p, 'ids');
    if (!Array.isArray(raw)) throw new SolgateError('INVALID_PARAMS', 'Invalid params: `ids` must be an array');
    if (raw.length > MAX_PROOF_BATCH) throw new SolgateError('INVALID_ARGUMENT', 'Batch Size Error. Batch size should not be greater than 1000.');
    const ids = raw.map((v) => pubkey(v, 'ids'));
    const proofs = await loadAssetProofs(deps.db, ids);
    const out: Record<string, unknown> = {};
    for (const id of ids) out[id] = proofs.get(id) ?? null;
    return out;
  },
};
