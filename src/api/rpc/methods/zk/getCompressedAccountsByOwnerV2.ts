/** getCompressedAccountsByOwnerV2: getCompressedAccountsByOwner with AccountV2 items. */
import { withContext } from '../../../zk/context.js';
import { OWNER_ACCOUNTS_PARAMS, ownerAccountsPage } from '../../../zk/lists.js';
import { accountV2 } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedAccountsByOwnerV2: RpcMethod = {
  name: 'getCompressedAccountsByOwnerV2',
  credits: 10,
  paramsSchema: OWNER_ACCOUNTS_PARAMS,
  async handler(params, deps) {
    const page = ownerAccountsPage(deps, params);
    return withContext(deps, page.then((p) => ({ items: p.items.map((a) => accountV2(a)), cursor: p.cursor })));
  },
};
