/** getAccountInterface: one view of `address`, on chain (hot) or compressed (cold); `value` null when neither exists. */
import { accountInterfaces } from '../../../zk/account-interface.js';
import { withContext } from '../../../zk/context.js';
import { objectParams, pubkey, required } from '../../../zk/params.js';
import type { RpcMethod } from '../../method.js';

export const getAccountInterface: RpcMethod = {
  name: 'getAccountInterface',
  credits: 10,
  async handler(params, deps) {
    const p = objectParams(params, ['address']);
    const address = pubkey(required(p, 'address'), 'address');
    return withContext(deps, accountInterfaces(deps, [address]).then(([v]) => v));
  },
};
