/** getMultipleNewAddressProofsV2: verified non-inclusion proofs of `[{address, tree}]` (up to 1000), any address tree. */
import { loadNewAddressProofs, newAddressProofJson } from '../../../zk/address-proofs.js';
import { withContext } from '../../../zk/context.js';
import { addressWithTree, arrayParams } from '../../../zk/params.js';
import type { RpcMethod } from '../../method.js';

export const getMultipleNewAddressProofsV2: RpcMethod = {
  name: 'getMultipleNewAddressProofsV2',
  credits: 10,
  async handler(params, deps) {
    const items = arrayParams(params).map((a, i) => addressWithTree(a, `[${i}]`));
    return withContext(deps, loadNewAddressProofs(deps.db, items).then((ps) => ps.map(newAddressProofJson)));
  },
};
