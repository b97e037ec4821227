/**
 * getCompressedAccountsByOwner: the owner's unspent compressed accounts in hash order, `filters` (memcmp, ≤ 5) and
 * `dataSlice` applied, paged by `cursor` (the last hash) and `limit` (≤ 1000).
 */
import { withContext } from '../../../zk/context.js';
import { OWNER_ACCOUNTS_PARAMS, ownerAccountsPage } from '../../../zk/lists.js';
import { accountV1 } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedAccountsByOwner: RpcMethod = {
  name: 'getCompressedAccountsByOwner',
  credits: 10,
  paramsSchema: OWNER_ACCOUNTS_PARAMS,
  async handler(params, deps) {
    const page = ownerAccountsPage(deps, params);
    return withContext(deps, page.then((p) => ({ items: p.items.map((a) => accountV1(a)), cursor: p.cursor })));
  },
};
