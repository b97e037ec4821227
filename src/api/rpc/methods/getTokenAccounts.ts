/**
 * getTokenAccounts (alias get_token_accounts): open token accounts by owner and/or mint (DAS). Accepts the Helius
 * names `owner`/`mint` and the Metaplex reference's `ownerAddress`/`mintAddress`; zero balances only with
 * `showZeroBalance`; ordered by address, paginated like every DAS list.
 */
import { SolgateError } from '../../../core/errors.js';
import { displayOptions, namedParams, pubkey, type Params } from '../../das/params.js';
import { keysetSql, pageKeys, parsePagination } from '../../das/pagination.js';
import { renderExtensions } from '../../das/mint-extensions.js';
import { queryExtensions, queryTokenAccounts } from '../../../store/token-reads.js';
import { requireCoverage, type RpcMethod } from '../method.js';
import { DAS_PAGINATION, DISPLAY_OPTIONS, PUBKEY, byNameParams, nullable, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({
  owner: nullable({ ...PUBKEY, description: 'token account owner (Helius name; give owner and/or mint)' }),
  ownerAddress: nullable({ ...PUBKEY, description: 'token account owner (Metaplex name of `owner`)' }),
  mint: nullable({ ...PUBKEY, description: 'mint (Helius name)' }),
  mintAddress: nullable({ ...PUBKEY, description: 'mint (Metaplex name of `mint`)' }),
  ...DAS_PAGINATION,
  options: DISPLAY_OPTIONS,
  displayOptions: DISPLAY_OPTIONS,
});

/** One of two spellings of a pubkey param (both given → -32602). */
function either(p: Params, a: string, b: string): string | undefined {
  if (p[a] != null && p[b] != null) throw new SolgateError('INVALID_PARAMS', `Invalid params: give \`${a}\` or \`${b}\`, not both`);
  if (p[a] != null) return pubkey(p[a], a);
  if (p[b] != null) return pubkey(p[b], b);
  return undefined;
}

export const getTokenAccounts: RpcMethod = {
  name: 'getTokenAccounts',
  aliases: ['get_token_accounts'],
  credits: 10,
  paramsSchema,
  async handler(params, deps, ctx) {
    const p = namedParams(params, paramNames(paramsSchema));
    const owner = either(p, 'owner', 'ownerAddress');
    const mint = either(p, 'mint', 'mintAddress');
    if (owner === undefined && mint === undefined) throw new SolgateError('INVALID_ARGUMENT', 'Either `owner` or `mint` must be provided');
    if (owner !== undefined) await requireCoverage(deps, ctx, owner);
    const opts = displayOptions(p);
    const pg = parsePagination(p);
    const sqlParams: unknown[] = [];
    const ks = keysetSql(pg, 'address', (v) => `$${sqlParams.push(v)}`);
    const rows = await queryTokenAccounts(deps.db, { owner, mint, showZeroBalance: opts.showZeroBalance, ...ks, params: sqlParams });
    if (ks.order.endsWith('DESC')) rows.reverse();
    const exts = await queryExtensions(deps.db, rows.map((r) => r.address));
    const items = rows.map((r) => ({
      address: r.address,
      mint: r.mint,
      amount: Number(r.amount),
      owner: r.owner,
      frozen: r.frozen,
      delegate: r.delegate,
      delegated_amount: Number(r.delegatedAmount),
      close_authority: r.closeAuthority,
      extensions: renderExtensions(exts.get(r.address)),
    }));
    const keys = pageKeys(pg, rows.map((r) => r.address), false);
    return { total: items.length, limit: pg.limit, ...(pg.mode === 'page' ? keys : {}), token_accounts: items, ...(pg.mode === 'page' ? {} : keys), errors: [] };
  },
};
