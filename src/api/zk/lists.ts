/**
 * The paged list requests shared by V1 and V2 methods: an owner's compressed accounts (with `filters`,
 * `dataSlice`), token accounts by owner or delegate, token balances by owner. Each page is one store query in
 * Photon's order with Photon's cursor (null when the page holds fewer than `limit` items).
 */
import type { ApiDeps } from '../deps.js';
import { getAccountsByOwner, getTokenAccounts } from '../../store/zk/accounts.js';
import { getTokenBalancesByOwner } from '../../store/zk/balances.js';
import type { ZkAccount, ZkPage, ZkTokenAccount } from '../../store/zk/types.js';
import { mintCursor, tokenAccountCursor } from './cursors.js';
import { parseDataSlice, parseFilters } from './filters.js';
import { limit, objectParams, optionalHash, optionalPubkey, pubkey, required } from './params.js';

/** getCompressedAccountsByOwner(V2): `{owner, filters?, dataSlice?, cursor? (Hash), limit?}`. */
export async function ownerAccountsPage(deps: ApiDeps, params: unknown): Promise<ZkPage<ZkAccount>> {
  const p = objectParams(params, ['owner', 'filters', 'dataSlice', 'cursor', 'limit']);
  const owner = pubkey(required(p, 'owner'), 'owner');
  const filters = parseFilters(p.filters);
  const dataSlice = parseDataSlice(p.dataSlice);
  const cursor = optionalHash(p.cursor, 'cursor');
  return getAccountsByOwner(deps.db, owner, { cursor, limit: limit(p.limit), filters, dataSlice });
}

/** getCompressedTokenAccountsBy{Owner,Delegate}(V2): `{owner | delegate, mint?, cursor? (mint ‖ hash), limit?}`. */
export async function tokenAccountsPage(deps: ApiDeps, params: unknown, by: 'owner' | 'delegate'): Promise<ZkPage<ZkTokenAccount>> {
  const p = objectParams(params, [by, 'mint', 'cursor', 'limit']);
  const key = pubkey(required(p, by), by);
  const mint = optionalPubkey(p.mint, 'mint');
  const cursor = tokenAccountCursor(p.cursor);
  return getTokenAccounts(deps.db, by, key, { mint, cursor, limit: limit(p.limit) });
}

/** getCompressedTokenBalancesByOwner(V2): `{owner, mint?, cursor? (mint), limit?}`. */
export async function tokenBalancesPage(deps: ApiDeps, params: unknown): Promise<ZkPage<{ mint: string; balance: bigint }>> {
  const p = objectParams(params, ['owner', 'mint', 'cursor', 'limit']);
  const owner = pubkey(required(p, 'owner'), 'owner');
  const mint = optionalPubkey(p.mint, 'mint');
  const cursor = mintCursor(p.cursor);
  return getTokenBalancesByOwner(deps.db, owner, { mint, cursor, limit: limit(p.limit) });
}
