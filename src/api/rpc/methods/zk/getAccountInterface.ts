/** getAccountInterface: one view of `address`, on chain (hot) or compressed (cold); `value` null when neither exists. */
import { accountInterfaces } from '../../../zk/account-interface.js';
import { withContext } from '../../../zk/context.js';
import { objectParams, pubkey, required } from '../../../zk/params.js';
import type { RpcMethod } from '../../method.js';
import { PUBKEY, byNameParams, paramNames } from '../../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ address: PUBKEY }, ['address']);


export const getAccountInterface: RpcMethod = {
  name: 'getAccountInterface',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = objectParams(params, paramNames(paramsSchema));
    const address = pubkey(required(p, 'address'), 'address');
    return withContext(deps, accountInterfaces(deps, [address]).then(([v]) => v));
  },
};
