/**
 * Compressed NFTs (Bubblegum V1 and V2 leaves) as DAS Asset objects, from the `cnft_assets` row. The shape is the
 * reference's: interface V1_NFT, `compression` with the leaf hashes (V2 leaves add collection_hash,
 * asset_data_hash and flags), single ownership (V2 adds non_transferable; frozen comes from the V2 flags), the
 * metadata's creators, royalty and collection, and an empty print supply.
 */
import type { StoredCnft } from '../../store/cnft.js';
import { content, royalty, type AssetJson, type DisplayOptions } from './asset-json.js';

interface CnftMetadataJson {
  name: string;
  symbol: string;
  uri: string;
  sellerFeeBasisPoints: number;
  primarySaleHappened: boolean;
  isMutable: boolean;
  editionNonce: number | null;
  collection: { key: string; verified: boolean } | null;
  creators: { address: string; verified: boolean; share: number }[];
}

/** V2 leaf flag bits: frozen by owner/delegate, frozen by the permanent freeze delegate, non-transferable. */
const FROZEN_BITS = 0b011;
const NON_TRANSFERABLE_BIT = 0b100;

/** The strings the reference trims trailing NULs from (names and symbols are fixed-width on chain in V1). */
const clean = (s: string) => s.replace(/\0+$/g, '');

/**
 * Renders a compressed asset, or returns null when its mint has not been indexed (no metadata yet). An asset
 * redeemed (and perhaps decompressed) stays compressed with the zeroed hashes of its redeem until its Token
 * Metadata accounts are indexed; `load-assets.ts` then renders it from those instead, as the DAS reference does.
 */
export function renderCnft(a: StoredCnft, opts: DisplayOptions): AssetJson | null {
  const m = a.metadata as unknown as CnftMetadataJson | null;
  if (!m) return null;
  const v2 = a.leafSchema === 2 || a.flags !== null;
  const flags = a.flags ?? 0;
  const compression: AssetJson = {
    eligible: false,
    compressed: true,
    data_hash: a.dataHash ?? '',
    creator_hash: a.creatorHash ?? '',
    ...(v2 ? { collection_hash: a.collectionHash ?? '', asset_data_hash: a.assetDataHash ?? '', flags } : {}),
    asset_hash: a.leafHash ?? '',
    tree: a.tree ?? '',
    seq: a.seq ?? 0,
    leaf_id: a.leafIndex ?? 0,
  };
  const c = m.collection;
  const grouping = c && (c.verified || opts.showUnverifiedCollections)
    ? [{ group_key: 'collection', group_value: c.key, ...(c.verified ? {} : { verified: false }) }]
    : [];
  const ownership: AssetJson = { frozen: v2 ? (flags & FROZEN_BITS) !== 0 : false };
  if (v2) ownership.non_transferable = (flags & NON_TRANSFERABLE_BIT) !== 0;
  Object.assign(ownership, {
    delegated: a.delegate !== null,
    delegate: a.delegate,
    ownership_model: 'single',
    owner: a.owner ?? '',
  });
  return {
    interface: 'V1_NFT',
    id: a.assetId,
    content: content(m.uri.replace(/\0/g, ''), { name: clean(m.name), symbol: clean(m.symbol), token_standard: 'NonFungible' }),
    authorities: a.authority ? [{ address: a.authority, scopes: ['full'] }] : [],
    compression,
    grouping,
    royalty: royalty(m.sellerFeeBasisPoints, m.primarySaleHappened),
    creators: (m.creators ?? []).map((cr) => ({ address: cr.address, share: cr.share, verified: cr.verified })),
    ownership,
    supply: { print_max_supply: 0, print_current_supply: 0, edition_nonce: m.editionNonce ?? null },
    mutable: m.isMutable,
    burnt: a.burnt,
  };
}
