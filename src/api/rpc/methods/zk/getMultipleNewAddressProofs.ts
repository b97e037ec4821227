/**
 * getMultipleNewAddressProofs: verified non-inclusion proofs of new addresses (params: an array of up to 1000
 * addresses) in the V1 address tree amt1…; an address tree nothing was indexed into answers the fresh tree's proof.
 */
import { loadNewAddressProofs, MAX_ADDRESSES, newAddressProofJson, V1_ADDRESS_TREE } from '../../../zk/address-proofs.js';
import { withContext } from '../../../zk/context.js';
import { arrayParams, pubkey } from '../../../zk/params.js';
import type { RpcMethod } from '../../method.js';
import { PUBKEY, listParams } from '../../params-schema.js';

/** Photon's `AddressList`: the params are the JSON array of new addresses itself. */
export const paramsSchema = listParams('addresses', PUBKEY, MAX_ADDRESSES, 'new addresses in the V1 address tree, one per position (at least one)');

export const getMultipleNewAddressProofs: RpcMethod = {
  name: 'getMultipleNewAddressProofs',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const items = arrayParams(params).map((a, i) => ({ address: pubkey(a, `[${i}]`), tree: V1_ADDRESS_TREE }));
    return withContext(deps, loadNewAddressProofs(deps.db, items).then((ps) => ps.map(newAddressProofJson)));
  },
};
