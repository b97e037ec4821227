/**
 * The DAS Asset object as the reference serialises it (field order matters only for humans; clients compare
 * by key). Shared builders for the parts every asset family renders the same way.
 */
export type AssetJson = Record<string, unknown>;

export const METADATA_SCHEMA = 'https://schema.metaplex.com/nft1.0.json';

/** `content` without off-chain data (files/links come from the off-chain fetcher). */
export function content(jsonUri: string, metadata: Record<string, unknown>): AssetJson {
  return { $schema: METADATA_SCHEMA, json_uri: jsonUri, files: [], metadata, links: {} };
}

/** `compression` of an asset that is not (or no longer) compressed. */
export function uncompressed(): AssetJson {
  return { eligible: false, compressed: false, data_hash: '', creator_hash: '', asset_hash: '', tree: '', seq: 0, leaf_id: 0 };
}

export function royalty(basisPoints: number, primarySaleHappened: boolean): AssetJson {
  return {
    royalty_model: 'creators',
    target: null,
    percent: basisPoints / 10_000,
    basis_points: basisPoints,
    primary_sale_happened: primarySaleHappened,
    locked: false,
  };
}

export interface DisplayOptions {
  showUnverifiedCollections: boolean;
  showCollectionMetadata: boolean;
  showFungible: boolean;
  showInscription: boolean;
  showZeroBalance: boolean;
  showNativeBalance: boolean;
  showGrandTotal: boolean;
}

export const defaultDisplayOptions = (): DisplayOptions => ({
  showUnverifiedCollections: false,
  showCollectionMetadata: false,
  showFungible: false,
  showInscription: false,
  showZeroBalance: false,
  showNativeBalance: false,
  showGrandTotal: false,
});
