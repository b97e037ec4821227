/**
 * Loads and renders assets by id in a fixed number of queries whatever the count: Core rows, Token Metadata
 * rows (by mint) and their edition links in one statement, then mints and holders.
 */
import type { Queryable } from '../../store/db.js';
import { getAssetAccounts, getAssetSources, type StoredAssetAccount } from '../../store/asset-accounts.js';
import { editionPda } from '../../store/editions.js';
import { queryExtensions, queryHolders, queryMints } from '../../store/token-reads.js';
import { isExtensionAsset, renderExtensionFungible, withMintParts } from './render-fungible.js';
import { addCollectionMetadata } from './collection-metadata.js';
import { addInscriptions } from './inscription.js';
import { addOffchainContent } from './offchain-content.js';
import type { AssetJson, DisplayOptions } from './asset-json.js';
import { coreCollectionOf, coreRowKind, renderCore } from './render-core.js';
import { renderCnft } from './render-cnft.js';
import { getCnftAssets } from '../../store/cnft.js';
import { renderTokenMetadata } from './render-token-metadata.js';

/**
 * The (master) edition account of each mint: through the stored edition → mint links, deriving the PDA only for
 * mints never seen as mint accounts (replayed metadata without its mint).
 */
async function editionAccounts(q: Queryable, mints: string[], linked: Map<string, StoredAssetAccount | null>): Promise<Map<string, StoredAssetAccount | undefined>> {
  const out = new Map<string, StoredAssetAccount | undefined>([...linked].map(([m, a]) => [m, a ?? undefined]));
  const rest = mints.filter((m) => !linked.has(m));
  if (rest.length) {
    const pdas = await Promise.all(rest.map((m) => editionPda(m)));
    const found = await getAssetAccounts(q, pdas);
    rest.forEach((m, i) => out.set(m, found.get(pdas[i])));
  }
  return out;
}

/**
 * Rendered assets by id (ids not found are absent).
 * `withOffchain` (default true) fills content files/links/description/attributes from fetched off-chain documents;
 * the list-index refresher turns it off (nothing it derives depends on them).
 */
export async function loadAssets(q: Queryable, ids: string[], opts: DisplayOptions, { withOffchain = true }: { withOffchain?: boolean } = {}): Promise<Map<string, AssetJson>> {
  const out = new Map<string, AssetJson>();
  const unique = [...new Set(ids)];
  const { direct, metas, editions: linked } = await getAssetSources(q, unique);

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
    const [editions, mintInfo, holders, exts] = await Promise.all([editionAccounts(q, mints, linked), queryMints(q, mints), queryHolders(q, mints), queryExtensions(q, mints)]);
    mints.forEach((m) => {
      const a = renderTokenMetadata({ metadata: metas.get(m)!, edition: editions.get(m), mint: mintInfo.get(m), holder: holders.get(m) }, opts);
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
