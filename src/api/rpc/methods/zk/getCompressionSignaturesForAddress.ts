/**
 * getCompressionSignaturesForAddress: the compression transactions that touched accounts at compressed address `address` (spent ones
 * included), newest first, paged by the slot ‖ signature `cursor` and `limit` (≤ 1000).
 */
import { SIGNATURES_FOR_PARAMS, signaturesFor } from '../../../zk/signatures.js';
import type { RpcMethod } from '../../method.js';

export const getCompressionSignaturesForAddress: RpcMethod = {
  name: 'getCompressionSignaturesForAddress',
  credits: 10,
  paramsSchema: SIGNATURES_FOR_PARAMS.address,
  async handler(params, deps) {
    return signaturesFor(deps, params, 'address', 'address');
  },
};
