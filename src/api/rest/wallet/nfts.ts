/**
 * The NFT side of GET /v1/wallet/{wallet}/balances, read from the DAS list index (migration 005).
 *
 * `showNfts=true` (compat-facts §1.3: bool, default false, "NFTs, max 100, first page only"; service-interface
 * "balances": "include NFTs; at most 100, first page only", "`nfts` is present only when showNfts is true"):
 * the wallet's NFTs are the assets getAssetsByOwner lists for it without showFungible — single-owner assets
 * it owns (`owner_type = 'single'`: Token Metadata NFTs, MPL Core assets/collections, compressed NFTs), live
 * supply, not burnt — in getAssetsByOwner's default order (asset id bytes, descending). Only the first
 * MAX_NFTS = 100 are returned: the interface caps `nfts` there and defines no field to page further or to say
 * more exist (the response's `pagination` counts tokens only), so a wallet with more NFTs gets its first 100 in
 * that order; getAssetsByOwner pages through all of them. On `page` > 1, `nfts` is an empty array.
 *
 * Each entry (compat-facts §1.3 `Nft`; service-interface "NFT holding"): `mint` (the asset id), `compressed`,
 * and nullable `name` (content.metadata.name), `imageUri` (content.links.image, else the off-chain JSON's
 * `image`), `collectionName` (the verified collection's own on-chain name, as showCollectionMetadata renders
 * it) and `collectionAddress` (the verified collection grouping).
 */
import type { Queryable } from '../../../store/db.js';
import { listAssetIds, ownerAssetsQuery, renderPage } from '../../das/list-assets.js';
import { defaultDisplayOptions, type AssetJson } from '../../das/asset-json.js';
import { cleanText } from './token-metadata.js';

export const MAX_NFTS = 100;

export interface NftItem {
  mint: string;
  compressed: boolean;
  name: string | null;
  imageUri: string | null;
  collectionName: string | null;
  collectionAddress: string | null;
}

/** The wallet's NFTs as rendered DAS assets (first MAX_NFTS, id descending), fixed number of queries. */
export async function walletNftAssets(db: Queryable, wallet: string): Promise<AssetJson[]> {
  const page = await listAssetIds(db, ownerAssetsQuery(wallet), { by: 'id', dir: 'desc' }, { mode: 'page', limit: MAX_NFTS, page: 1 }, false);
  return renderPage(db, page.ids, { ...defaultDisplayOptions(), showCollectionMetadata: true });
}

type Content = { json_uri?: unknown; metadata?: { name?: unknown }; links?: { image?: unknown } };
type Group = { group_key?: unknown; group_value?: unknown; collection_metadata?: { name?: unknown } };

/** The off-chain JSON uri of a rendered asset (null when it has none). */
export function assetJsonUri(a: AssetJson): string | null {
  return cleanText((a.content as Content | undefined)?.json_uri);
}

/** One `nfts[]` entry from a rendered asset; `images` maps off-chain JSON uris to their `image`. */
export function nftItem(a: AssetJson, images: Map<string, string>): NftItem {
  const c = (a.content as Content | undefined) ?? {};
  const uri = assetJsonUri(a);
  const collection = ((a.grouping as Group[] | undefined) ?? []).find((g) => g.group_key === 'collection' && typeof g.group_value === 'string' && g.group_value);
  return {
    mint: String(a.id),
    compressed: (a.compression as { compressed?: unknown } | undefined)?.compressed === true,
    name: cleanText(c.metadata?.name),
    imageUri: cleanText(c.links?.image) ?? (uri ? (images.get(uri) ?? null) : null),
    collectionName: cleanText(collection?.collection_metadata?.name),
    collectionAddress: collection ? String(collection.group_value) : null,
  };
}

/**
 * How the DAS index classifies the given mints (`single` = an NFT, `token` = fungible); mints it has no asset
 * for are absent. One query.
 */
export async function dasOwnerTypes(db: Queryable, mints: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!mints.length) return out;
  const { rows } = await db.query<{ id: string; owner_type: string }>('SELECT id, owner_type FROM das_assets WHERE id = ANY($1::text[])', [mints]);
  for (const r of rows) out.set(r.id, r.owner_type);
  return out;
}
