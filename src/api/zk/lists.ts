/**
 * The paged list requests shared by V1 and V2 methods: an owner's compressed accounts (with `filters`,
 * `dataSlice`), token accounts by owner or delegate, token balances by owner. Each page is one store query in
 * Photon's order with Photon's cursor (null when the page holds fewer than `limit` items).
 */
import type { ApiDeps } from '../deps.js';
import { ownerAccountsPageText, tokenAccountsPageText } from '../../store/zk/accounts.js';
import { getTokenBalancesByOwner } from '../../store/zk/balances.js';
import type { ZkPage } from '../../store/zk/types.js';
import { mintCursor, tokenAccountCursor } from './cursors.js';
import { pageAnswer } from './page-text.js';
import type { RawJson } from '../wire/json.js';
import { DATA_SLICE, MAX_FILTERS, MEMCMP_FILTER, parseDataSlice, parseFilters } from './filters.js';
import { limit, optionalHash, optionalPubkey, pubkey, required, schemaParams } from './params.js';
import { HASH, PUBKEY, ZK_LIMIT, byNameParams, nullable, type ObjectParamsSchema } from '../rpc/params-schema.js';

/** A list cursor: the base58 key of the last item of the previous page (layout per method). */
const cursorOf = (layout: string) => nullable({ type: 'string', description: `the cursor of the previous page (base58 of ${layout})` });

/** getCompressedAccountsByOwner(V2) params. */
export const OWNER_ACCOUNTS_PARAMS = byNameParams(
  {
    owner: PUBKEY,
    filters: nullable({ type: 'array', items: MEMCMP_FILTER, maxItems: MAX_FILTERS, description: 'memcmp filters on the account data (all must match)' }),
    dataSlice: nullable(DATA_SLICE),
    cursor: nullable({ ...HASH, description: 'the cursor of the previous page (the last account hash)' }),
    limit: ZK_LIMIT,
  },
  ['owner'],
);

/** getCompressedTokenAccountsBy{Owner,Delegate}(V2) params (`owner` or `delegate`). */
export const TOKEN_ACCOUNTS_PARAMS: Record<'owner' | 'delegate', ObjectParamsSchema> = {
  owner: tokenAccountsParams('owner', 'the token owner'),
  delegate: tokenAccountsParams('delegate', 'the token delegate'),
};

function tokenAccountsParams(by: 'owner' | 'delegate', what: string): ObjectParamsSchema {
  return byNameParams(
    { [by]: { ...PUBKEY, description: what }, mint: nullable({ ...PUBKEY, description: 'only token accounts of this mint' }), cursor: cursorOf('mint ‖ hash, 64 bytes'), limit: ZK_LIMIT },
    [by],
  );
}

/** getCompressedTokenBalancesByOwner(V2) params. */
export const TOKEN_BALANCES_PARAMS = byNameParams(
  { owner: PUBKEY, mint: nullable({ ...PUBKEY, description: 'only this mint' }), cursor: cursorOf('the last mint, 32 bytes'), limit: ZK_LIMIT },
  ['owner'],
);

/**
 * The answer of getCompressedAccountsByOwner(V2) as JSON text (`{context, value: {items, cursor}}`): one statement
 * with kept plans returns the page written by the database and the indexed slot of its snapshot (./page-text.ts).
 * The items are those of the store's `getAccountsByOwner` (test/zk/page-text.test.ts compares the bytes).
 */
export async function ownerAccountsAnswer(deps: ApiDeps, params: unknown, version: 'v1' | 'v2'): Promise<RawJson> {
  const p = schemaParams(params, OWNER_ACCOUNTS_PARAMS);
  const owner = pubkey(required(p, 'owner'), 'owner');
  const filters = parseFilters(p.filters);
  const dataSlice = parseDataSlice(p.dataSlice);
  const cursor = optionalHash(p.cursor, 'cursor');
  return pageAnswer(await ownerAccountsPageText(deps.db, owner, { cursor, limit: limit(p.limit), filters, dataSlice }, version));
}

/**
 * The answer of getCompressedTokenAccountsBy{Owner,Delegate}(V2) as JSON text (`{context, value: {items, cursor}}`):
 * one statement with kept plans returns the page written by the database and the indexed slot of its snapshot
 * (./page-text.ts). The items are those of the store's `getTokenAccounts` (test/zk/page-text.test.ts compares the bytes).
 */
export async function tokenAccountsAnswer(deps: ApiDeps, params: unknown, by: 'owner' | 'delegate', version: 'v1' | 'v2'): Promise<RawJson> {
  const p = schemaParams(params, TOKEN_ACCOUNTS_PARAMS[by]);
  const key = pubkey(required(p, by), by);
  const mint = optionalPubkey(p.mint, 'mint');
  const cursor = tokenAccountCursor(p.cursor);
  return pageAnswer(await tokenAccountsPageText(deps.db, by, key, { mint, cursor, limit: limit(p.limit) }, version));
}

/** getCompressedTokenBalancesByOwner(V2): `{owner, mint?, cursor? (mint), limit?}`. */
export async function tokenBalancesPage(deps: ApiDeps, params: unknown): Promise<ZkPage<{ mint: string; balance: bigint }>> {
  const p = schemaParams(params, TOKEN_BALANCES_PARAMS);
  const owner = pubkey(required(p, 'owner'), 'owner');
  const mint = optionalPubkey(p.mint, 'mint');
  const cursor = mintCursor(p.cursor);
  return getTokenBalancesByOwner(deps.db, owner, { mint, cursor, limit: limit(p.limit) });
}
