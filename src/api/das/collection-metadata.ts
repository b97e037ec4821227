/**
 * showCollectionMetadata: `grouping[].collection_metadata` from the collection's own on-chain data (name and
 * symbol of its Token Metadata account or MPL Core collection); `{}` while the collection is not indexed.
 */
import type { Queryable } from '../../store/db.js';
import { getAssetAccounts, getMetadataByMint } from '../../store/asset-accounts.js';
import type { AssetJson } from './asset-json.js';

type Group = { group_key: string; group_value: string; collection_metadata?: Record<string, unknown> };

/** Adds `collection_metadata` to every collection grouping of the given rendered assets (in place). */
export async function addCollectionMetadata(q: Queryable, assets: Iterable<AssetJson>): Promise<void> {
  const groups = [...assets].flatMap((a) => ((a.grouping as Group[] | undefined) ?? []).filter((g) => g.group_key === 'collection' && g.group_value));
  if (!groups.length) return;
  const keys = [...new Set(groups.map((g) => g.group_value))];
  const [metas, direct] = await Promise.all([getMetadataByMint(q, keys), getAssetAccounts(q, keys)]);
  for (const g of groups) {
    const tm = metas.get(g.group_value);
    const core = direct.get(g.group_value);
    const d = (tm && tm.kind === 'tm.metadata' ? tm.data : core?.kind === 'core.collection' ? core.data : undefined) as { name?: string; symbol?: string } | undefined;
    g.collection_metadata = d ? { name: (d.name ?? '').trim(), symbol: (d.symbol ?? '').trim() } : {};
  }
}
