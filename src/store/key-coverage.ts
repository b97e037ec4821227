/**
 * Table family "key coverage": which keys that list assets (a collection, a creator, an authority) had their assets
 * read from the cluster, at which slot, and whether that read is every asset of the key (`partial` = what it may
 * lack). Writes only move forward: a slot only rises. The watch list of such keys lives here too.
 */
import type { KeyNeed } from '../core/coverage.js';
import type { Queryable } from './db.js';

export interface KeyCoverageRow {
  need: KeyNeed;
  key: string;
  /** The slot the key's assets were read at; null when never read. */
  slot: number | null;
  /** null: the read was every asset of the key; else what it may lack. */
  partial: string | null;
  trackedAt: string | null;
  lastError: string | null;
}

interface Raw {
  need: string;
  key: string;
  slot: string | number | null;
  partial: string | null;
  tracked_at: Date | string | null;
  last_error: string | null;
}

const row = (r: Raw): KeyCoverageRow => ({
  need: r.need as KeyNeed,
  key: r.key,
  slot: r.slot === null ? null : Number(r.slot),
  partial: r.partial,
  trackedAt: r.tracked_at === null ? null : new Date(r.tracked_at).toISOString(),
  lastError: r.last_error,
});

/** The coverage row of `key` for `need`, or null when none was ever recorded. */
export async function getKeyCoverage(q: Queryable, need: KeyNeed, key: string): Promise<KeyCoverageRow | null> {
  const { rows } = await q.query<Raw>('SELECT need, key, slot, partial, tracked_at, last_error FROM key_coverage WHERE need = $1 AND key = $2', [need, key]);
  return rows.length ? row(rows[0]) : null;
}

/** Every coverage row of `key` (one per need it was asked or tracked for). */
export async function getKeyCoverageRows(q: Queryable, key: string): Promise<KeyCoverageRow[]> {
  const { rows } = await q.query<Raw>('SELECT need, key, slot, partial, tracked_at, last_error FROM key_coverage WHERE key = $1 ORDER BY need', [key]);
  return rows.map(row);
}

/** Marks `key`'s assets for `need` as read at `slot` (a later slot only) and clears its last error. */
export async function markKeyCovered(q: Queryable, need: KeyNeed, key: string, slot: number, partial: string | null): Promise<void> {
  await q.query(
    `INSERT INTO key_coverage AS t (need, key, slot, read_at, partial) VALUES ($1, $2, $3, now(), $4)
     ON CONFLICT (need, key) DO UPDATE SET slot = GREATEST(t.slot, EXCLUDED.slot), read_at = now(), partial = EXCLUDED.partial,
       last_error = NULL, last_error_at = NULL`,
    [need, key, slot, partial],
  );
}

/** Records a failed read of `key` for `need` (an earlier coverage, if any, stays). */
export async function markKeyFailed(q: Queryable, need: KeyNeed, key: string, error: string): Promise<void> {
  await q.query(
    `INSERT INTO key_coverage AS t (need, key, last_error, last_error_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (need, key) DO UPDATE SET last_error = EXCLUDED.last_error, last_error_at = now()`,
    [need, key, error.slice(0, 500)],
  );
}

/** Puts `keys` on the watch list for `need` (idempotent). */
export async function trackKeys(q: Queryable, need: KeyNeed, keys: string[]): Promise<void> {
  if (!keys.length) return;
  await q.query(
    `INSERT INTO key_coverage AS t (need, key, tracked_at) SELECT $1, unnest($2::text[]), now()
     ON CONFLICT (need, key) DO UPDATE SET tracked_at = COALESCE(t.tracked_at, now())`,
    [need, keys],
  );
}

/** Watched keys never read, oldest first; those that failed within `retryAfterMs` wait. */
export async function dueTrackedKeys(q: Queryable, limit: number, retryAfterMs: number): Promise<{ need: KeyNeed; key: string }[]> {
  const { rows } = await q.query<{ need: string; key: string }>(
    `SELECT need, key FROM key_coverage
      WHERE tracked_at IS NOT NULL AND slot IS NULL
        AND (last_error_at IS NULL OR last_error_at < now() - ($2::int * interval '1 millisecond'))
      ORDER BY tracked_at LIMIT $1`,
    [limit, retryAfterMs],
  );
  return rows.map((r) => ({ need: r.need as KeyNeed, key: r.key }));
}
