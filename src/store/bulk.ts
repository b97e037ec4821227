/**
 * Multi-row writes: one statement per table per block, rows passed as parallel arrays through `unnest`
 * (one round trip whatever the row count; the same SQL runs on PostgreSQL and PGlite).
 */
import type { Queryable } from './db.js';

/** A column of a bulk insert: its name, its PostgreSQL type, and how to read it from a row. */
export interface BulkColumn<R> {
  name: string;
  type: string;
  get: (row: R) => unknown;
}

/** Converts JS values to what both drivers accept inside array parameters. */
function toParam(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  return v;
}

/**
 * `INSERT INTO table AS t (cols) SELECT cols FROM unnest(...) <conflict>`.
 * `select` may wrap columns (e.g. COALESCE) — by default the unnested columns as they are.
 */
export async function bulkInsert<R>(
  q: Queryable,
  table: string,
  columns: BulkColumn<R>[],
  rows: readonly R[],
  conflict: string,
  select?: string,
): Promise<void> {
  if (rows.length === 0) return;
  const params = columns.map((c) => rows.map((r) => toParam(c.get(r))));
  const unnest = columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
  const names = columns.map((c) => c.name).join(', ');
  const sel = select ?? names;
  await q.query(
    `INSERT INTO ${table} AS t (${names}) SELECT ${sel} FROM unnest(${unnest}) AS u(${names}) ${conflict}`,
    params,
  );
}

/** SQL for "the incoming change at `pos` is at least as new as the stored one". */
export function newer(col: string): string {
  return `(EXCLUDED.${col} IS NOT NULL AND (t.${col} IS NULL OR EXCLUDED.${col} >= t.${col}))`;
}

/** SQL assigning `cols` from EXCLUDED when the group's pos column is newer, else keeping stored values. */
export function guardedSet(posCol: string, cols: string[]): string {
  const cond = newer(posCol);
  return [...cols, posCol]
    .map((c) => `${c} = CASE WHEN ${cond} THEN EXCLUDED.${c} ELSE t.${c} END`)
    .join(',\n  ');
}

/** Keeps one entry per key: for each key, the entry for which `better(candidate, kept)` holds last. */
export function dedupeBy<T>(rows: readonly T[], key: (r: T) => string, better: (a: T, b: T) => boolean): T[] {
  const m = new Map<string, T>();
  for (const r of rows) {
    const k = key(r);
    const cur = m.get(k);
    if (cur === undefined || better(r, cur)) m.set(k, r);
  }
  return [...m.values()];
}
