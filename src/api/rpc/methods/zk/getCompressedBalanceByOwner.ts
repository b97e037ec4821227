/** getCompressedBalanceByOwner: the lamports of all unspent compressed accounts of `owner` (0 when none). */
import { withContext } from '../../../zk/context.js';
import { u64 } from '../../../zk/json.js';
import { objectParams, pubkey, required } from '../../../zk/params.js';
import { getOwnerBalance } from '../../../../store/zk/balances.js';
import type { RpcMethod } from '../../method.js';
import { PUBKEY, byNameParams, paramNames } from '../../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ owner: PUBKEY }, ['owner']);


export const getCompressedBalanceByOwner: RpcMethod = {
  name: 'getCompressedBalanceByOwner',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = objectParams(params, paramNames(paramsSchema));
    const owner = pubkey(required(p, 'owner'), 'owner');
    return withContext(deps, getOwnerBalance(deps.db, owner).then(u64));
  },
};
