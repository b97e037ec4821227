/** getCompressedAccountBalance (alias getCompressedBalance): lamports of the account at `address` or `hash`; 0 when none. */
import { ACCOUNT_ID_PARAMS, findAccount, parseAccountId } from '../../../zk/account-id.js';
import { withContext } from '../../../zk/context.js';
import { u64 } from '../../../zk/json.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedAccountBalance: RpcMethod = {
  name: 'getCompressedAccountBalance',
  aliases: ['getCompressedBalance'],
  credits: 10,
  paramsSchema: ACCOUNT_ID_PARAMS,
  async handler(params, deps) {
    const id = parseAccountId(params);
    return withContext(deps, findAccount(deps.db, id).then((a) => u64(a?.lamports ?? 0n)));
  },
};
