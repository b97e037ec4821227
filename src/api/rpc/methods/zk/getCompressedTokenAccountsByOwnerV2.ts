/** getCompressedTokenAccountsByOwnerV2: getCompressedTokenAccountsByOwner with AccountV2 accounts. */
import { withPageContext } from '../../../zk/context.js';
import { TOKEN_ACCOUNTS_PARAMS, tokenAccountsPage } from '../../../zk/lists.js';
import { accountV2, tokenData } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedTokenAccountsByOwnerV2: RpcMethod = {
  name: 'getCompressedTokenAccountsByOwnerV2',
  credits: 10,
  paramsSchema: TOKEN_ACCOUNTS_PARAMS.owner,
  async handler(params, deps) {
    const page = tokenAccountsPage(deps, params, 'owner');
    return withPageContext(deps, page, (p) => ({ items: p.items.map((t) => ({ account: accountV2(t.account), tokenData: tokenData(t.token) })), cursor: p.cursor }));
  },
};
