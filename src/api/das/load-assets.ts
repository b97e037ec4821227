/**
 * Loads and renders assets by id in a fixed number of queries whatever the count: Core rows, Token Metadata
 * rows (by mint), their edition accounts, mints and holders.
 */
import { getProgramDerivedAddress, type Address } from '@solana/kit';
import type { Queryable } from '../../store/db.js';
import { getAssetAccounts, getMetadataByMint, type StoredAssetAccount } from '../../store/asset-accounts.js';
import { queryExtensions, queryHolders, queryMints } from '../../store/token-reads.js';
import { isExtensionAsset, renderExtensionFungible, withMintParts } from './render-fungible.js';
import { addCollectionMetadata } from './collection-metadata.js';
import { addInscriptions } from './inscription.js';
import { addOffchainContent } from './offchain-content.js';
import { base58ToBytes } from '../../core/encoding.js';
import type { AssetJson, DisplayOptions } from './asset-json.js';
import { coreCollectionOf, coreRowKind, renderCore } from './render-core.js';
import { renderCnft } from './render-cnft.js';
import { getCnftAssets } from '../../store/cnft.js';
import { renderTokenMetadata } from './render-token-metadata.js';

export const TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';

/** The (master) edition PDA of a mint: ["metadata", program, mint, "edition"]. */
export async function editionAddress(mint: string): Promise<string> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM as Address,
    seeds: ['metadata', base58ToBytes(TOKEN_METADATA_PROGRAM), base58ToBytes(mint), 'edition'],
  });
  return pda;
}

/**
 * Rendered assets by id (ids not found are absent).
 * `withOffchain` (default true) fills content files/links/description/attributes from fetched off-chain documents;
 * the list-index refresher turns it off (nothing it derives depends on them).
 */
export async function loadAssets(q: Queryable, ids: string[], opts: DisplayOptions, { withOffchain = true }: { withOffchain?: boolean } = {}): Promise<Map<string, AssetJson>> {
  const out = new Map<string, AssetJson>();
  const unique = [...new Set(ids)];
  const [direct, metas] = await Promise.all([getAssetAccounts(q, unique), getMetadataByMint(q, unique)]);

  // MPL Core (closed accounts render burnt): assets in a collection take their authority from the collection account.
  const core = [...direct.values()].filter((r) => coreRowKind(r) !== null);
  const collectionIds = [...new Set(core.flatMap((r) => coreCollectionOf(r) ?? []))];
  const collections = collectionIds.length ? await getAssetAccounts(q, collectionIds) : new Map<string, StoredAssetAccount>();
  for (const r of core) {
    const c = coreCollectionOf(r);
    out.set(r.address, renderCore(r, c ? collections.get(c) : undefined));
  }

  // Token Metadata.
  const mints = [...metas.keys()].filter((m) => !out.has(m));
  if (mints.length) {
    const editionKeys = await Promise.all(mints.map((m) => editionAddress(m)));
    const [editions, mintInfo, holders, exts] = await Promise.all([getAssetAccounts(q, editionKeys), queryMints(q, mints), queryHolders(q, mints), queryExtensions(q, mints)]);
    mints.forEach((m, i) => {
      const a = renderTokenMetadata({ metadata: metas.get(m)!, edition: editions.get(editionKeys[i]), mint: mintInfo.get(m), holder: holders.get(m) }, opts);
      out.set(m, withMintParts(a, mintInfo.get(m), exts.get(m), opts.showFungible));
    });
  }

  // Compressed NFTs (Bubblegum); a decompressed one is rendered from its Token Metadata accounts above.
  const cnftIds = unique.filter((id) => !out.has(id) && !direct.has(id));
  if (cnftIds.length) {
    for (const [id, a] of await getCnftAssets(q, cnftIds)) {
      const r = renderCnft(a, opts);
      if (r) out.set(id, r);
    }
  }

  // Token-2022 mints without Token Metadata, described by their extensions.
  const bare = unique.filter((id) => !out.has(id) && !direct.has(id));
  if (bare.length) {
    const [mintInfo, exts] = await Promise.all([queryMints(q, bare), queryExtensions(q, bare)]);
    for (const id of bare) if (isExtensionAsset(mintInfo.get(id), exts.get(id))) out.set(id, renderExtensionFungible(mintInfo.get(id)!, exts.get(id), opts.showFungible));
  }
  if (opts.showCollectionMetadata) await addCollectionMetadata(q, out.values());
  if (opts.showInscription) await addInscriptions(q, out);
  if (withOffchain) await addOffchainContent(q, out.values());
  return out;
}
