/**
 * getNftEditions (alias get_nft_editions): the print editions of a master edition NFT (DAS). The Helius names
 * (`mint`; items `mint`/`edition`) and the Metaplex reference's (`mintAddress`; items `mint_address`/
 * `edition_number`) are both accepted; the answer uses the dialect of the request.
 */
import { SolgateError } from '../../../core/errors.js';
import { namedParams, pubkey } from '../../das/params.js';
import { parsePagination } from '../../das/pagination.js';
import { getAssetAccounts } from '../../../store/asset-accounts.js';
import { editionPda, queryPrintEditions } from '../../../store/editions.js';
import type { RpcMethod } from '../method.js';
import { DAS_PAGINATION, PUBKEY, byNameParams, nullable, paramNames } from '../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({
  mint: nullable({ ...PUBKEY, description: 'master edition mint (Helius name; `mint` or `mintAddress` is required)' }),
  mintAddress: nullable({ ...PUBKEY, description: 'master edition mint (Metaplex name)' }),
  page: DAS_PAGINATION.page,
  limit: DAS_PAGINATION.limit,
});

export const getNftEditions: RpcMethod = {
  name: 'getNftEditions',
  aliases: ['get_nft_editions'],
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = namedParams(params, paramNames(paramsSchema));
    if (p.mint != null && p.mintAddress != null) throw new SolgateError('INVALID_PARAMS', 'Invalid params: give `mint` or `mintAddress`, not both');
    const helius = p.mint != null;
    const raw = helius ? p.mint : p.mintAddress;
    if (raw == null) throw new SolgateError('INVALID_PARAMS', 'Invalid params: missing field `mint`');
    const mint = pubkey(raw, helius ? 'mint' : 'mintAddress');
    const pg = parsePagination(p);
    const page = pg.mode === 'page' ? pg.page : 1;
    const master = await editionPda(mint);
    const row = (await getAssetAccounts(deps.db, [master])).get(master);
    if (!row || row.kind !== 'tm.masterEdition') throw new SolgateError('NOT_FOUND', 'Database Error: RecordNotFound Error: Master Edition Not Found');
    const d = row.data as { supply?: string; maxSupply?: string | null };
    const prints = await queryPrintEditions(deps.db, master, pg.limit, (page - 1) * pg.limit);
    const editions = prints.map((e) =>
      helius
        ? { mint: e.mint, edition_address: e.editionAddress, edition: Number(e.edition) }
        : { mint_address: e.mint, edition_address: e.editionAddress, edition_number: Number(e.edition) },
    );
    return {
      total: editions.length,
      limit: pg.limit,
      ...(pg.mode === 'page' ? { page } : {}),
      master_edition_address: master,
      supply: Number(d.supply ?? 0),
      max_supply: d.maxSupply == null ? null : Number(d.maxSupply),
      editions,
    };
  },
};
