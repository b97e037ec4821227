/**
 * getCompressedTokenAccountsByOwner: unspent compressed token accounts whose token owner is `owner` (optionally of one
 * `mint`) as `{account, tokenData}`, in (mint, hash) order, paged by the mint ‖ hash `cursor` and `limit` (≤ 1000).
 */
import { TOKEN_ACCOUNTS_PARAMS, tokenAccountsAnswer } from '../../../zk/lists.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedTokenAccountsByOwner: RpcMethod = {
  name: 'getCompressedTokenAccountsByOwner',
  credits: 10,
  paramsSchema: TOKEN_ACCOUNTS_PARAMS.owner,
  async handler(params, deps) {
    return tokenAccountsAnswer(deps, params, 'owner', 'v1');
  },
};
