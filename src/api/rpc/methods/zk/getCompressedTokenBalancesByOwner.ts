/**
 * getCompressedTokenBalancesByOwner: the owner's compressed token balance per mint, in mint order, paged by the mint
 * `cursor`. The V1 list key is Photon's snake_case `token_balances` (V2 uses `items`).
 */
import { withContext } from '../../../zk/context.js';
import { u64 } from '../../../zk/json.js';
import { TOKEN_BALANCES_PARAMS, tokenBalancesPage } from '../../../zk/lists.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedTokenBalancesByOwner: RpcMethod = {
  name: 'getCompressedTokenBalancesByOwner',
  credits: 10,
  paramsSchema: TOKEN_BALANCES_PARAMS,
  async handler(params, deps) {
    const page = tokenBalancesPage(deps, params);
    return withContext(deps, page.then((p) => ({ token_balances: p.items.map((b) => ({ mint: b.mint, balance: u64(b.balance) })), cursor: p.cursor })));
  },
};
