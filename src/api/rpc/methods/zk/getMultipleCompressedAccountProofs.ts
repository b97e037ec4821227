/** getMultipleCompressedAccountProofs: verified proofs of up to 1000 account hashes (params: an array), in order. */
import { withContext } from '../../../zk/context.js';
import { HASH_LIST_PARAMS, hashList } from '../../../zk/params.js';
import { loadStateProofs, proofV1 } from '../../../zk/state-proofs.js';
import type { RpcMethod } from '../../method.js';

export const getMultipleCompressedAccountProofs: RpcMethod = {
  name: 'getMultipleCompressedAccountProofs',
  credits: 10,
  paramsSchema: HASH_LIST_PARAMS,
  async handler(params, deps) {
    const hashes = hashList(params);
    const proofs = loadStateProofs(deps.db, hashes, {
      byIndex: false,
      notFound: (found, expected) => `Leaf nodes not found for hashes. Got ${found} hashes. Expected ${expected}.`,
    });
    return withContext(deps, proofs.then((ps) => ps.map(proofV1)));
  },
};
