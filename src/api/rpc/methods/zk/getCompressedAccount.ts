/** getCompressedAccount: the unspent compressed account at `address` (wins) or with `hash`; `value` null when none. */
import { ACCOUNT_ID_PARAMS, findAccount, parseAccountId } from '../../../zk/account-id.js';
import { withContext } from '../../../zk/context.js';
import { accountV1 } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedAccount: RpcMethod = {
  name: 'getCompressedAccount',
  credits: 10,
  paramsSchema: ACCOUNT_ID_PARAMS,
  async handler(params, deps) {
    const id = parseAccountId(params);
    return withContext(deps, findAccount(deps.db, id).then((a) => (a ? accountV1(a) : null)));
  },
};
