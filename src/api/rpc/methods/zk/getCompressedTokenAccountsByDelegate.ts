/**
 * getCompressedTokenAccountsByDelegate: unspent compressed token accounts whose token delegate is `delegate` (optionally of one
 * `mint`) as `{account, tokenData}`, in (mint, hash) order, paged by the mint ‖ hash `cursor` and `limit` (≤ 1000).
 */
import { withPageContext } from '../../../zk/context.js';
import { TOKEN_ACCOUNTS_PARAMS, tokenAccountsPage } from '../../../zk/lists.js';
import { accountV1, tokenData } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedTokenAccountsByDelegate: RpcMethod = {
  name: 'getCompressedTokenAccountsByDelegate',
  credits: 10,
  paramsSchema: TOKEN_ACCOUNTS_PARAMS.delegate,
  async handler(params, deps) {
    const page = tokenAccountsPage(deps, params, 'delegate');
    return withPageContext(deps, page, (p) => ({ items: p.items.map((t) => ({ account: accountV1(t.account), tokenData: tokenData(t.token) })), cursor: p.cursor }));
  },
};
