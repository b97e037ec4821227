/** getCompressedAccountsByOwnerV2: getCompressedAccountsByOwner with AccountV2 items. */
import { OWNER_ACCOUNTS_PARAMS, ownerAccountsAnswer } from '../../../zk/lists.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedAccountsByOwnerV2: RpcMethod = {
  name: 'getCompressedAccountsByOwnerV2',
  credits: 10,
  paramsSchema: OWNER_ACCOUNTS_PARAMS,
  async handler(params, deps) {
    return ownerAccountsAnswer(deps, params, 'v2');
  },
};
