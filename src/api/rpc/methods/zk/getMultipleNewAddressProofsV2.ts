/** getMultipleNewAddressProofsV2: verified non-inclusion proofs of `[{address, tree}]` (up to 1000), any address tree. */
import { loadNewAddressProofs, MAX_ADDRESSES, newAddressProofJson } from '../../../zk/address-proofs.js';
import { withContext } from '../../../zk/context.js';
import { addressWithTree, arrayParams } from '../../../zk/params.js';
import type { RpcMethod } from '../../method.js';
import { ADDRESS_WITH_TREE, listParams } from '../../params-schema.js';

/** Photon's `AddressListWithTrees`: the params are the JSON array of `{address, tree}` itself. */
export const paramsSchema = listParams('addressesWithTrees', ADDRESS_WITH_TREE, MAX_ADDRESSES, 'new addresses with their address trees, one per position (at least one)');

export const getMultipleNewAddressProofsV2: RpcMethod = {
  name: 'getMultipleNewAddressProofsV2',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const items = arrayParams(params).map((a, i) => addressWithTree(a, `[${i}]`));
    return withContext(deps, loadNewAddressProofs(deps.db, items).then((ps) => ps.map(newAddressProofJson)));
  },
};
