/** getMultipleCompressedAccountsV2: getMultipleCompressedAccounts with AccountV2 items. */
import { withContext } from '../../../zk/context.js';
import { MULTIPLE_ACCOUNTS_PARAMS, multipleAccounts } from '../../../zk/multiple-accounts.js';
import { accountV2 } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getMultipleCompressedAccountsV2: RpcMethod = {
  name: 'getMultipleCompressedAccountsV2',
  credits: 10,
  paramsSchema: MULTIPLE_ACCOUNTS_PARAMS,
  async handler(params, deps) {
    const accounts = multipleAccounts(deps, params);
    return withContext(deps, accounts.then((as) => ({ items: as.map((a) => (a ? accountV2(a) : null)) })));
  },
};
