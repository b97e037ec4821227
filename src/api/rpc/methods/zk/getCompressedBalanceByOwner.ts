/** getCompressedBalanceByOwner: the lamports of all unspent compressed accounts of `owner` (0 when none). */
import { withContext } from '../../../zk/context.js';
import { u64 } from '../../../zk/json.js';
import { objectParams, pubkey, required } from '../../../zk/params.js';
import { getOwnerBalance } from '../../../../store/zk/balances.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedBalanceByOwner: RpcMethod = {
  name: 'getCompressedBalanceByOwner',
  credits: 10,
  async handler(params, deps) {
    const p = objectParams(params, ['owner']);
    const owner = pubkey(required(p, 'owner'), 'owner');
    return withContext(deps, getOwnerBalance(deps.db, owner).then(u64));
  },
};
