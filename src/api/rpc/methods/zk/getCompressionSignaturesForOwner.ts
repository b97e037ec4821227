/**
 * getCompressionSignaturesForOwner: the compression transactions that touched accounts owned by `owner` (spent ones
 * included), newest first, paged by the slot ‖ signature `cursor` and `limit` (≤ 1000).
 */
import { SIGNATURES_FOR_PARAMS, signaturesFor } from '../../../zk/signatures.js';
import type { RpcMethod } from '../../method.js';

export const getCompressionSignaturesForOwner: RpcMethod = {
  name: 'getCompressionSignaturesForOwner',
  credits: 10,
  paramsSchema: SIGNATURES_FOR_PARAMS.owner,
  async handler(params, deps) {
    return signaturesFor(deps, params, 'owner', 'owner');
  },
};
