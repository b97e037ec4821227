/** getMultipleCompressedAccountProofsV2: the V2 proofs (tree context, proveByIndex) of up to 1000 hashes, in order. */
import { withContext } from '../../../zk/context.js';
import { loadStateProofs, proofV2 } from '../../../zk/state-proofs.js';
import { HASH_LIST_PARAMS, hashList } from '../../../zk/params.js';
import type { RpcMethod } from '../../method.js';

export const getMultipleCompressedAccountProofsV2: RpcMethod = {
  name: 'getMultipleCompressedAccountProofsV2',
  credits: 10,
  paramsSchema: HASH_LIST_PARAMS,
  async handler(params, deps) {
    const hashes = hashList(params);
    const proofs = loadStateProofs(deps.db, hashes, { byIndex: true, notFound: () => 'Some accounts not found' });
    return withContext(deps, proofs.then((ps) => ps.map(proofV2)));
  },
};
