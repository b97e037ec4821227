/** getAssetProof: the verified Merkle proof of a compressed asset (DAS). */
import { SolgateError } from '../../../core/errors.js';
import { namedParams, pubkey, requireField } from '../../das/params.js';
import { loadAssetProofs } from '../../das/asset-proof.js';
import type { RpcMethod } from '../method.js';

/** The getAssetProof method: `{id}` → the verified proof, or -32000 when the asset has none. */
export const getAssetProof: RpcMethod = {
  name: 'getAssetProof',
  credits: 10,
  async handler(params, deps) {
    const p = namedParams(params, ['id']);
    const id = pubkey(requireField(p, 'id'), 'id');
    const proof = (await loadAssetProofs(deps.db, [id])).get(id);
    if (!proof) throw new SolgateError('NOT_FOUND', 'Database Error: RecordNotFound Error: Asset Proof Not Found');
    return proof;
  },
};
