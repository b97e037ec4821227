/** getCompressedAccountV2: getCompressedAccount with the account as AccountV2 (merkleContext, proveByIndex). */
import { ACCOUNT_ID_PARAMS, findAccount, parseAccountId } from '../../../zk/account-id.js';
import { withContext } from '../../../zk/context.js';
import { accountV2 } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedAccountV2: RpcMethod = {
  name: 'getCompressedAccountV2',
  credits: 10,
  paramsSchema: ACCOUNT_ID_PARAMS,
  async handler(params, deps) {
    const id = parseAccountId(params);
    return withContext(deps, findAccount(deps.db, id).then((a) => (a ? accountV2(a) : null)));
  },
};
