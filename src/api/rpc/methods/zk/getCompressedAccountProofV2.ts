/**
 * getCompressedAccountProofV2: the verified proof of the account with `hash`, with its tree context; an account
 * still in its V2 output queue gets the proof of its leaf position and `proveByIndex: true`.
 */
import { withContext } from '../../../zk/context.js';
import { hash, objectParams, required } from '../../../zk/params.js';
import { loadStateProofs, proofV2 } from '../../../zk/state-proofs.js';
import type { RpcMethod } from '../../method.js';
import { HASH, byNameParams, paramNames } from '../../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ hash: HASH }, ['hash']);


export const getCompressedAccountProofV2: RpcMethod = {
  name: 'getCompressedAccountProofV2',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = objectParams(params, paramNames(paramsSchema));
    const h = hash(required(p, 'hash'), 'hash');
    const proofs = loadStateProofs(deps.db, [h], { byIndex: true, notFound: () => 'Account not found' });
    return withContext(deps, proofs.then(([proof]) => proofV2(proof)));
  },
};
