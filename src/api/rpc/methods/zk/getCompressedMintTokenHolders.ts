/**
 * getCompressedMintTokenHolders: the token owners of `mint` with their compressed balances, balance desc then owner
 * desc, paged by the balance (u64 LE) ‖ owner `cursor` and `limit` (≤ 1000).
 */
import { withContext } from '../../../zk/context.js';
import { holderCursor } from '../../../zk/cursors.js';
import { u64 } from '../../../zk/json.js';
import { limit, objectParams, pubkey, required } from '../../../zk/params.js';
import { getMintTokenHolders } from '../../../../store/zk/balances.js';
import type { RpcMethod } from '../../method.js';

export const getCompressedMintTokenHolders: RpcMethod = {
  name: 'getCompressedMintTokenHolders',
  credits: 10,
  async handler(params, deps) {
    const p = objectParams(params, ['mint', 'cursor', 'limit']);
    const mint = pubkey(required(p, 'mint'), 'mint');
    const cursor = holderCursor(p.cursor);
    const page = getMintTokenHolders(deps.db, mint, { cursor, limit: limit(p.limit) });
    return withContext(deps, page.then((pg) => ({ items: pg.items.map((h) => ({ owner: h.owner, balance: u64(h.balance) })), cursor: pg.cursor })));
  },
};
