/**
 * getCompressedTokenAccountBalance: `{amount}` of the unspent token account with `hash`, or — Photon's quirk for
 * `address` — of the first unspent token account (mint, hash order) whose token owner is that address; 0 when none.
 */
import { parseAccountId } from '../../../zk/account-id.js';
import { withContext } from '../../../zk/context.js';
import { u64 } from '../../../zk/json.js';
import { getTokenAccountBalance } from '../../../../store/zk/accounts.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedTokenAccountBalance: RpcMethod = {
  name: 'getCompressedTokenAccountBalance',
  credits: 10,
  async handler(params, deps) {
    const id = parseAccountId(params);
    const amount = getTokenAccountBalance(deps.db, id.kind === 'hash' ? { hash: id.hash } : { owner: id.address });
    return withContext(deps, amount.then((a) => ({ amount: u64(a ?? 0n) })));
  },
};
