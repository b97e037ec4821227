/** getMultipleCompressedAccounts: accounts by `hashes` or by `addresses` (≤ 1000), aligned, null where none. */
import { withContext } from '../../../zk/context.js';
import { MULTIPLE_ACCOUNTS_PARAMS, multipleAccounts } from '../../../zk/multiple-accounts.js';
import { accountV1 } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getMultipleCompressedAccounts: RpcMethod = {
  name: 'getMultipleCompressedAccounts',
  credits: 10,
  paramsSchema: MULTIPLE_ACCOUNTS_PARAMS,
  async handler(params, deps) {
    const accounts = multipleAccounts(deps, params);
    return withContext(deps, accounts.then((as) => ({ items: as.map((a) => (a ? accountV1(a) : null)) })));
  },
};
