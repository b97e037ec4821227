/**
 * The DAS list index refresher: takes dirty addresses (marked in the same transaction as the rows that
 * changed), resolves them to asset ids, renders those assets from their sources and rewrites their index rows.
 * Each round is one transaction under a database-wide advisory lock, so rounds never interleave (across
 * processes too) and a crash loses nothing: the claimed marks come back with the rollback.
 */
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { assetSourceSlots, claimDirty, resolveAssetIds, writeIndexRows } from '../store/das-index.js';
import { loadAssets } from '../api/das/load-assets.js';
import { defaultDisplayOptions } from '../api/das/asset-json.js';
import { enqueueUris } from '../store/offchain.js';
import { indexRowOf } from './asset-index-row.js';

/** Arbitrary constant naming the refresher's advisory lock. */
const LOCK_ID = 5_470_001;
const INDEX_OPTIONS = { ...defaultDisplayOptions(), showFungible: true, showUnverifiedCollections: true };

/** One refresh round over at most `batch` dirty keys; returns how many keys it took (0 = nothing to do). */
export async function refreshAssetIndex(db: Db, batch = 2000): Promise<number> {
  return db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    const keys = await claimDirty(q, batch);
    if (!keys.length) return 0;
    const ids = await resolveAssetIds(q, keys);
    if (ids.length) {
      const [assets, slots] = await Promise.all([loadAssets(q, ids, INDEX_OPTIONS, { withOffchain: false }), assetSourceSlots(q, ids)]);
      const rows = [...assets.values()].map((a) => indexRowOf(a, slots.get(String(a.id))));
      await writeIndexRows(q, rows, ids.filter((id) => !assets.has(id)));
      // Queue the off-chain documents of (re)indexed assets for the fetcher (known uris are left as they are).
      await enqueueUris(q, rows.flatMap((r) => (r.jsonUri ? [r.jsonUri] : [])));
    }
    return keys.length;
  });
}

/** Refreshes until no dirty key is left. */
export async function drainAssetIndex(db: Db, batch?: number): Promise<void> {
  while ((await refreshAssetIndex(db, batch)) > 0);
}

export interface AssetIndexer {
  /** Asks for a refresh soon (writes call this); never throws. */
  kick(): void;
  /** Resolves once every key marked before the call has been refreshed. */
  settle(): Promise<void>;
}

/**
 * Runs refresh rounds in the background after writes, one drain at a time. A request while a drain runs
 * queues one successor (shared by every request until it starts), so a drain that started after a request
 * always follows it: marks made before `settle()` are never left to a drain that had already passed them.
 */
export function createAssetIndexer(db: Db, logger?: Logger): AssetIndexer {
  let active: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const begin = (): Promise<void> => {
    const p: Promise<void> = drainAssetIndex(db).finally(() => {
      if (active === p) active = null;
    });
    active = p;
    return p;
  };
  const request = (): Promise<void> => {
    if (queued) return queued;
    if (!active) return begin();
    const q = active
      .catch(() => {})
      .then(() => {
        queued = null;
        return begin();
      });
    queued = q;
    return q;
  };
  return {
    kick() {
      request().catch((e) => logger?.error({ err: e }, 'asset index: refresh failed (the marks stay; retried on the next write)'));
    },
    settle: request,
  };
}
