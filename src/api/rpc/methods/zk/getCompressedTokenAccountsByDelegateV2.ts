/** getCompressedTokenAccountsByDelegateV2: getCompressedTokenAccountsByDelegate with AccountV2 accounts. */
import { TOKEN_ACCOUNTS_PARAMS, tokenAccountsAnswer } from '../../../zk/lists.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedTokenAccountsByDelegateV2: RpcMethod = {
  name: 'getCompressedTokenAccountsByDelegateV2',
  credits: 10,
  paramsSchema: TOKEN_ACCOUNTS_PARAMS.delegate,
  async handler(params, deps) {
    return tokenAccountsAnswer(deps, params, 'delegate', 'v2');
  },
};
