/** getAssetProof: the verified Merkle proof of a compressed asset (DAS). */
import { SolgateError } from '../../../core/errors.js';
import { namedParams, pubkey, requireField } from '../../das/params.js';
import { loadAssetProofs } from '../../das/asset-proof.js';
import type { RpcMethod } from '../method.js';
import { PUBKEY, byNameParams, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ id: PUBKEY }, ['id']);

/** The getAssetProof method: `{id}` → the verified proof, or -32000 when the asset has none. */
export const getAssetProof: RpcMethod = {
  name: 'getAssetProof',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = namedParams(params, paramNames(paramsSchema));
    const id = pubkey(requireField(p, 'id'), 'id');
    const proof = (await loadAssetProofs(deps.db, [id])).get(id);
    if (!proof) throw new SolgateError('NOT_FOUND', 'Database Error: RecordNotFound Error: Asset Proof Not Found');
    return proof;
  },
};
