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
import { PUBKEY, ZK_LIMIT, byNameParams, nullable, paramNames } from '../../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ mint: PUBKEY, cursor: nullable({ type: 'string', description: 'the cursor of the previous page' }), limit: ZK_LIMIT }, ['mint']);


export const getCompressedMintTokenHolders: RpcMethod = {
  name: 'getCompressedMintTokenHolders',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = objectParams(params, paramNames(paramsSchema));
    const mint = pubkey(required(p, 'mint'), 'mint');
    const cursor = holderCursor(p.cursor);
    const page = getMintTokenHolders(deps.db, mint, { cursor, limit: limit(p.limit) });
    return withContext(deps, page.then((pg) => ({ items: pg.items.map((h) => ({ owner: h.owner, balance: u64(h.balance) })), cursor: pg.cursor })));
  },
};
