/**
 * getCompressedTokenAccountsByDelegate: unspent compressed token accounts whose token delegate is `delegate` (optionally of one
 * `mint`) as `{account, tokenData}`, in (mint, hash) order, paged by the mint ‖ hash `cursor` and `limit` (≤ 1000).
 */
import { TOKEN_ACCOUNTS_PARAMS, tokenAccountsAnswer } from '../../../zk/lists.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedTokenAccountsByDelegate: RpcMethod = {
  name: 'getCompressedTokenAccountsByDelegate',
  credits: 10,
  paramsSchema: TOKEN_ACCOUNTS_PARAMS.delegate,
  async handler(params, deps) {
    return tokenAccountsAnswer(deps, params, 'delegate', 'v1');
  },
};
