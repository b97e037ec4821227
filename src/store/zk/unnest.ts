/**
 * Row sets as `unnest(...)` sources for hand-written statements (the ZK writers need CTEs, joins and NOT EXISTS
 * guards that `bulkInsertStatement` does not express). Each column becomes one array-literal parameter.
 */
import { arrayLiteral } from '../bulk.js';

/** A column of a row set: its name, PostgreSQL element type and how to read it from a row. */
export interface Col<R> {
  name: string;
  type: string;
  get: (row: R) => string | number | bigint | boolean | null;
}

/** `unnest($n::type[], …) AS alias(names)` and its parameters, numbered after `offset` existing ones. */
export function unnestFrom<R>(alias: string, cols: Col<R>[], rows: readonly R[], offset = 0): { sql: string; params: unknown[] } {
  const params = cols.map((c) => {
    const lit = arrayLiteral(rows.map((r) => c.get(r)));
    if (lit === null) throw new TypeError(`column ${c.name}: unsupported value`);
    return lit;
  });
  const args = cols.map((c, i) => `$${offset + i + 1}::${c.type}[]`).join(', ');
  return { sql: `unnest(${args}) AS ${alias}(${cols.map((c) => c.name).join(', ')})`, params };
}

/** Keeps one row per key, merging duplicates with `merge(kept, next)` in input order. */
export function mergeBy<T>(rows: readonly T[], key: (r: T) => string, merge: (kept: T, next: T) => T): T[] {
  const m = new Map<string, T>();
  for (const r of rows) {
    const k = key(r);
    const cur = m.get(k);
    m.set(k, cur === undefined ? r : merge(cur, r));
  }
  return [...m.values()];
}

/** The row with the higher seq; the later one on a tie or when either seq is null (the guarded upsert's rule). */
export function newerSeq<T extends { seq: number | null }>(kept: T, next: T): T {
  if (kept.seq !== null && next.seq !== null && next.seq < kept.seq) return kept;
  if (kept.seq !== null && next.seq === null) return kept;
  return next;
}
