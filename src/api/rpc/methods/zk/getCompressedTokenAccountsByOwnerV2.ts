/** getCompressedTokenAccountsByOwnerV2: getCompressedTokenAccountsByOwner with AccountV2 accounts. */
import { TOKEN_ACCOUNTS_PARAMS, tokenAccountsAnswer } from '../../../zk/lists.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedTokenAccountsByOwnerV2: RpcMethod = {
  name: 'getCompressedTokenAccountsByOwnerV2',
  credits: 10,
  paramsSchema: TOKEN_ACCOUNTS_PARAMS.owner,
  async handler(params, deps) {
    return tokenAccountsAnswer(deps, params, 'owner', 'v2');
  },
};
