/**
 * MPL Core assets and collections as DAS Asset objects. Plugin JSON is stored in the DAS wire shape by the
 * decoder; here only the asset-level fields are derived (authority via the collection, royalty, ownership).
 */
import type { StoredAssetAccount } from '../../store/asset-accounts.js';
import { content, royalty, uncompressed, type AssetJson } from './asset-json.js';

interface CoreAuthority {
  type: 'None' | 'Owner' | 'UpdateAuthority' | 'Address';
  address: string | null;
}

interface CoreData {
  address: string;
  owner?: string;
  updateAuthority: { type: string; address: string | null } | string;
  name: string;
  uri: string;
  numMinted?: number;
  currentSize?: number;
  plugins: Record<string, unknown>;
  unknownPlugins: unknown[] | null;
  externalPlugins: unknown[];
  unknownExternalPlugins: unknown[] | null;
  royalty: { basisPoints: number; creators: { address: string; percentage: number }[] } | null;
  frozen: boolean;
  transferDelegate: CoreAuthority | null;
}

/**
 * What a stored row renders as: a live `core.asset` / `core.collection`, or a closed (burnt) Core account whose row
 * kept the last known data (`asset_accounts` merges a closure into it; a collection's update authority is a plain
 * address, an asset's an object). A closure of an account never seen live has no data: nothing to render, as the
 * reference (a burnt asset row without asset data) answers "not found". Null for every other row.
 */
export function coreRowKind(row: StoredAssetAccount): 'asset' | 'collection' | null {
  if (row.kind === 'core.asset') return 'asset';
  if (row.kind === 'core.collection') return 'collection';
  if (row.kind !== 'core.closed') return null;
  const ua = (row.data as Partial<CoreData>).updateAuthority;
  if (typeof ua === 'string') return 'collection';
  return ua && typeof ua === 'object' ? 'asset' : null;
}

/** The collection a Core asset belongs to (from its data, which a closed row keeps; the row column does not). */
export function coreCollectionOf(row: StoredAssetAccount): string | null {
  if (row.collection) return row.collection;
  if (coreRowKind(row) !== 'asset') return null;
  const ua = (row.data as unknown as CoreData).updateAuthority as { type: string; address: string | null };
  return ua.type === 'Collection' ? ua.address : null;
}

/** The update authority of a Core collection account (stored as a plain address), burnt or not. */
function collectionAuthority(c: StoredAssetAccount | undefined): string | null {
  if (!c || coreRowKind(c) !== 'collection') return null;
  const ua = (c.data as unknown as CoreData).updateAuthority;
  return typeof ua === 'string' ? ua : ua.address;
}

/**
 * Renders a Core row (see {@link coreRowKind}); `collection` is the asset's collection row when it has one. A closed
 * account renders its last known state with `burnt: true`, as the reference's burn (`burn_v1_asset`) only sets
 * `burnt` on the asset.
 */
export function renderCore(row: StoredAssetAccount, collection?: StoredAssetAccount): AssetJson {
  const d = row.data as unknown as CoreData;
  const isCollection = coreRowKind(row) === 'collection';
  let authority: string | null;
  let grouping: AssetJson[] = [];
  let mutable = true;
  if (isCollection) authority = typeof d.updateAuthority === 'string' ? d.updateAuthority : d.updateAuthority.address;
  else {
    const ua = d.updateAuthority as { type: string; address: string | null };
    mutable = ua.type !== 'None';
    if (ua.type === 'Collection') {
      grouping = [{ group_key: 'collection', group_value: ua.address }];
      // Unknown until the collection account is indexed: the reference then reports an empty address.
      authority = collectionAuthority(collection) ?? '';
    } else authority = ua.address;
  }
  const owner = isCollection ? authority : (d.owner ?? null);
  const resolve = (a: CoreAuthority | null): string | null => {
    if (!a) return null;
    if (a.type === 'Owner') return owner;
    if (a.type === 'UpdateAuthority') return authority;
    if (a.type === 'Address') return a.address;
    return null;
  };
  const delegate = resolve(d.transferDelegate);
  const out: AssetJson = {
    interface: isCollection ? 'MplCoreCollection' : 'MplCoreAsset',
    id: row.address,
    content: content(d.uri, { name: d.name, symbol: '' }),
    authorities: authority !== null ? [{ address: authority, scopes: ['full'] }] : [],
    compression: uncompressed(),
    grouping,
    royalty: royalty(d.royalty?.basisPoints ?? 0, false),
    // The reference lists the Royalties plugin's creators as verified (the plugin is set by the asset's authority).
    creators: (d.royalty?.creators ?? []).map((c) => ({ address: c.address, share: c.percentage, verified: true })),
    ownership: {
      frozen: d.frozen,
      delegated: delegate !== null,
      delegate,
      ownership_model: 'single',
      owner: owner ?? '',
    },
    mutable,
    burnt: row.kind === 'core.closed',
    plugins: d.plugins,
  };
  if (d.unknownPlugins) out.unknown_plugins = d.unknownPlugins;
  out.mpl_core_info = isCollection
    ? { num_minted: d.numMinted ?? 0, current_size: d.currentSize ?? 0, plugins_json_version: 1 }
    : { plugins_json_version: 1 };
  out.external_plugins = d.externalPlugins;
  if (d.unknownExternalPlugins) out.unknown_external_plugins = d.unknownExternalPlugins;
  return out;
}
