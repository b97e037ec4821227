/** getCompressedTokenBalancesByOwnerV2: getCompressedTokenBalancesByOwner with the list under `items`. */
import { withContext } from '../../../zk/context.js';
import { u64 } from '../../../zk/json.js';
import { TOKEN_BALANCES_PARAMS, tokenBalancesPage } from '../../../zk/lists.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedTokenBalancesByOwnerV2: RpcMethod = {
  name: 'getCompressedTokenBalancesByOwnerV2',
  credits: 10,
  paramsSchema: TOKEN_BALANCES_PARAMS,
  async handler(params, deps) {
    const page = tokenBalancesPage(deps, params);
    return withContext(deps, page.then((p) => ({ items: p.items.map((b) => ({ mint: b.mint, balance: u64(b.balance) })), cursor: p.cursor })));
  },
};
