/**
 * Token Metadata print editions (DAS getNftEditions): the edition-account → mint links (tm_edition_mints,
 * migration 004) written with every 0-decimals mint, and the read of a master edition's prints.
 */
import { getProgramDerivedAddress, type Address } from '../vendor/solana-kit.js';
import { base58ToBytes } from '../core/encoding.js';
import type { Queryable } from './db.js';
import type { MintPatch } from './block-update.js';
import { bulkInsertStatement, type Statement } from './bulk.js';

const TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
const TM_BYTES = base58ToBytes(TOKEN_METADATA_PROGRAM);

/** The (master) edition PDA of a mint: ["metadata", program, mint, "edition"]. */
export async function editionPda(mint: string): Promise<string> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM as Address,
    seeds: ['metadata', TM_BYTES, base58ToBytes(mint), 'edition'],
  });
  return pda;
}

/** The link rows of the NFT-like (0-decimals) mints among `patches`, as one guarded insert (null when none). */
export async function editionMintsStatement(patches: MintPatch[]): Promise<Statement | null> {
  const mints = [...new Set(patches.filter((p) => p.decimals === 0).map((p) => p.address))];
  if (!mints.length) return null;
  const rows = await Promise.all(mints.map(async (mint) => ({ edition: await editionPda(mint), mint })));
  return bulkInsertStatement(
    'tm_edition_mints',
    [
      { name: 'edition', type: 'text', get: (r: { edition: string; mint: string }) => r.edition },
      { name: 'mint', type: 'text', get: (r) => r.mint },
    ],
    rows,
    'ON CONFLICT (edition) DO NOTHING',
  );
}

/** A print edition of a master edition. */
export interface PrintEdition {
  editionAddress: string;
  edition: bigint;
  /** Null until the print's mint account is indexed. */
  mint: string | null;
}

/** Prints of `masterEdition` by edition number, one page. */
export async function queryPrintEditions(q: Queryable, masterEdition: string, limit: number, offset: number): Promise<PrintEdition[]> {
  const { rows } = await q.query<{ address: string; edition: string; mint: string | null }>(
    `SELECT e.address, e.data->>'edition' AS edition, l.mint
       FROM asset_accounts e LEFT JOIN tm_edition_mints l ON l.edition = e.address
      WHERE e.kind = 'tm.edition' AND e.data->>'parent' = $1
      ORDER BY (e.data->>'edition')::numeric, e.address LIMIT $2 OFFSET $3`,
    [masterEdition, limit, offset],
  );
  return rows.map((r) => ({ editionAddress: r.address, edition: BigInt(r.edition), mint: r.mint }));
}
