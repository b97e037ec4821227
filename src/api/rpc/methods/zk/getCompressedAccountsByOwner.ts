/**
 * getCompressedAccountsByOwner: the owner's unspent compressed accounts in hash order, `filters` (memcmp, ≤ 5) and
 * `dataSlice` applied, paged by `cursor` (the last hash) and `limit` (≤ 1000).
 */
import { OWNER_ACCOUNTS_PARAMS, ownerAccountsAnswer } from '../../../zk/lists.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedAccountsByOwner: RpcMethod = {
  name: 'getCompressedAccountsByOwner',
  credits: 10,
  paramsSchema: OWNER_ACCOUNTS_PARAMS,
  async handler(params, deps) {
    return ownerAccountsAnswer(deps, params, 'v1');
  },
};
