/**
 * getCompressionSignaturesForTokenOwner: the compression transactions that touched token accounts whose token owner is `owner` (spent ones
 * included), newest first, paged by the slot ‖ signature `cursor` and `limit` (≤ 1000).
 */
import { SIGNATURES_FOR_PARAMS, signaturesFor } from '../../../zk/signatures.js';
import type { RpcMethod } from '../../method.js';

export const getCompressionSignaturesForTokenOwner: RpcMethod = {
  name: 'getCompressionSignaturesForTokenOwner',
  credits: 10,
  paramsSchema: SIGNATURES_FOR_PARAMS.owner,
  async handler(params, deps) {
    return signaturesFor(deps, params, 'tokenOwner', 'owner');
  },
};
