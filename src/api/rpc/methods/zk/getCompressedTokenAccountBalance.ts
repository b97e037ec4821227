/**
 * getCompressedTokenAccountBalance: `{amount}` of the unspent token account with `hash`, or — Photon's quirk for
 * `address` — of the first unspent token account (mint, hash order) whose token owner is that address; 0 when none.
 */
import { ACCOUNT_ID_PARAMS, parseAccountId } from '../../../zk/account-id.js';
import { withContext } from '../../../zk/context.js';
import { u64 } from '../../../zk/json.js';
import { getTokenAccountBalance } from '../../../../store/zk/accounts.js';
import type { RpcMethod } from '../../method.js';
import { byNameParams } from '../../params-schema.js';

/** `{address?, hash?}` as for getCompressedAccount, with `address` taken as the token owner (Photon's quirk). */
export const paramsSchema = {
  ...byNameParams(
    {
      address: { ...ACCOUNT_ID_PARAMS.properties.address, description: 'a token owner: the balance of its first token account (mint, hash order); wins over hash' },
      hash: ACCOUNT_ID_PARAMS.properties.hash,
    },
    [],
    false,
  ),
  description: ACCOUNT_ID_PARAMS.description,
};

export const getCompressedTokenAccountBalance: RpcMethod = {
  name: 'getCompressedTokenAccountBalance',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const id = parseAccountId(params, paramsSchema);
    const amount = getTokenAccountBalance(deps.db, id.kind === 'hash' ? { hash: id.hash } : { owner: id.address });
    return withContext(deps, amount.then((a) => ({ amount: u64(a ?? 0n) })));
  },
};
