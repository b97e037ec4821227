/**
 * getValidityProof: one ZK proof that the accounts `hashes` are in their state trees and the new addresses
 * (`newAddressesWithTrees`, or the deprecated `newAddresses` in the V1 address tree) are not in theirs, from the
 * configured prover (PROVER_URL), with the roots, root indexes, leaf indexes, leaves and trees. Without a prover it
 * answers a clear error.
 */
import { withContext } from '../../../zk/context.js';
import { parseValidityProofParams, VALIDITY_PROOF_PARAMS, validityProofV1 } from '../../../zk/validity-proof.js';
import type { RpcMethod } from '../../method.js';

export const getValidityProof: RpcMethod = {
  name: 'getValidityProof',
  credits: 100,
  paramsSchema: VALIDITY_PROOF_PARAMS,
  async handler(params, deps) {
    const req = parseValidityProofParams(params, false);
    return withContext(deps, validityProofV1(deps, req));
  },
};
