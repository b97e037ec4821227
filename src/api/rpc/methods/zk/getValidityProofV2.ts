/**
 * getValidityProofV2: getValidityProof with per-account and per-address proof inputs; accounts waiting in a V2
 * output queue are proven by index (no prover needed when nothing else is asked).
 */
import { withContext } from '../../../zk/context.js';
import { parseValidityProofParams, VALIDITY_PROOF_V2_PARAMS, validityProofV2 } from '../../../zk/validity-proof.js';
import type { RpcMethod } from '../../method.js';

export const getValidityProofV2: RpcMethod = {
  name: 'getValidityProofV2',
  credits: 100,
  paramsSchema: VALIDITY_PROOF_V2_PARAMS,
  async handler(params, deps) {
    const req = parseValidityProofParams(params, true);
    return withContext(deps, validityProofV2(deps, req));
  },
};
