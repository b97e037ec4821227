/** getCompressedAccountProof: the verified Merkle proof of the account with `hash` (a leaf of its state tree). */
import { withContext } from '../../../zk/context.js';
import { hash, objectParams, required } from '../../../zk/params.js';
import { loadStateProofs, proofV1 } from '../../../zk/state-proofs.js';
import type { RpcMethod } from '../../method.js';
import { HASH, byNameParams, paramNames } from '../../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ hash: HASH }, ['hash']);


export const getCompressedAccountProof: RpcMethod = {
  name: 'getCompressedAccountProof',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = objectParams(params, paramNames(paramsSchema));
    const h = hash(required(p, 'hash'), 'hash');
    const proofs = loadStateProofs(deps.db, [h], { byIndex: false, notFound: () => 'Account not found' });
    return withContext(deps, proofs.then(([proof]) => proofV1(proof)));
  },
};
