/**
 * Multi-row writes: one statement per table per block, rows passed as parallel arrays through `unnest`
 * (one round trip whatever the row count; the same SQL runs on PostgreSQL and PGlite).
 */
import type { Queryable } from './db.js';
import { copyPieces, type CopyField } from './copy-text.js';

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

/** An array element as PostgreSQL array-literal text (strings always quoted, so "NULL" stays a string). */
const NEEDS_ESCAPE = /["\\]/;
function quoteElement(s: string): string {
  return NEEDS_ESCAPE.test(s) ? `"${s.replace(/[\\"]/g, '\\$&')}"` : `"${s}"`;
}

/**
 * A column's values as one PostgreSQL array literal (`{"a",NULL,1}`), built directly rather than through the
 * driver's per-element array serialisation (the hottest part of a large write on the Node side). Returns null
 * for values of other types (objects, dates, buffers), which then go through the driver as before.
 */
export function arrayLiteral(values: readonly unknown[]): string | null {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    switch (typeof v) {
      case 'string':
        parts[i] = quoteElement(v);
        break;
      case 'number':
        parts[i] = String(v);
        break;
      case 'bigint':
        parts[i] = v.toString();
        break;
      case 'boolean':
        parts[i] = v ? 't' : 'f';
        break;
      case 'undefined':
        parts[i] = 'NULL';
        break;
      default:
        if (v === null) parts[i] = 'NULL';
        else return null;
    }
  }
  return `{${parts.join(',')}}`;
}

/** One SQL statement and its parameters. */
export interface Statement {
  sql: string;
  params: unknown[];
  /**
   * The same rows as a plain INSERT (no ON CONFLICT clause), with the same parameters: what a write of blocks tried
   * as new rows first runs (src/store/write-block.ts `tryFresh`; a stored key fails it with a unique violation, and
   * `sql` runs instead). Where rows are normally new, the plain insert skips the speculative insertion.
   */
  plainSql?: string;
  /**
   * The rows of the plain form (`plainSql`, or `sql` where that has no ON CONFLICT clause) as COPY text, made when
   * asked: what a write of a batch of new blocks sends by COPY instead (src/store/write-block.ts). Only on append-only
   * tables without foreign keys, whose rows a COPY stores exactly as the plain insert would.
   */
  copy?: () => Copy;
}

/** Rows for `Queryable.copyFrom`: the table, its columns, and the rows as COPY text in pieces (src/store/copy-text.ts). */
export interface Copy {
  table: string;
  columns: string[];
  text: string[];
}

/**
 * `INSERT INTO table AS t (cols) SELECT cols FROM unnest(...) <conflict>` as a statement (null without rows).
 * `select` may wrap columns (e.g. COALESCE) — by default the unnested columns as they are.
 */
export function bulkInsertStatement<R>(
  table: string,
  columns: BulkColumn<R>[],
  rows: readonly R[],
  conflict: string,
  select?: string,
  /** Rows inserted in this order (e.g. the key's: consecutive rows then land on the same index pages). */
  orderBy?: string,
): Statement | null {
  if (rows.length === 0) return null;
  const params = columns.map((c) => {
    const values = rows.map((r) => c.get(r));
    return arrayLiteral(values) ?? values.map(toParam);
  });
  const unnest = columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
  const names = columns.map((c) => c.name).join(', ');
  const sel = select ?? names;
  return {
    sql: `INSERT INTO ${table} AS t (${names}) SELECT ${sel} FROM unnest(${unnest}) AS u(${names}) ${orderBy ? `ORDER BY ${orderBy} ` : ''}${conflict}`,
    params,
  };
}

/**
 * `s` (a plain insert of `rows` into `table`, `columns` as in `bulkInsertStatement`) with its COPY form
 * (`Statement.copy`), for the append-only tables whose new rows a batch of blocks may send by COPY.
 */
export function withCopy<R>(s: Statement | null, table: string, columns: readonly BulkColumn<R>[], rows: readonly R[]): Statement | null {
  if (!s) return null;
  const fields = columns.map((c) => c.get as CopyField<R>);
  return { ...s, copy: () => ({ table, columns: columns.map((c) => c.name), text: copyPieces(rows, fields) }) };
}

/** Runs `bulkInsertStatement` (nothing without rows). */
export async function bulkInsert<R>(
  q: Queryable,
  table: string,
  columns: BulkColumn<R>[],
  rows: readonly R[],
  conflict: string,
  select?: string,
): Promise<void> {
  await run(q, bulkInsertStatement(table, columns, rows, conflict, select));
}

/** Runs a statement (nothing for null). */
export async function run(q: Queryable, s: Statement | null): Promise<void> {
  if (s) await q.query(s.sql, s.params);
}

/**
 * Several data-modifying statements (INSERTs on distinct tables) as ONE statement: each becomes a
 * data-modifying CTE (PostgreSQL runs every one of them to completion), parameters renumbered. One statement is
 * one round trip and, outside a transaction block, one implicit transaction, so all of it commits or none.
 * With `asyncCommit` the statement also turns off `synchronous_commit` for its own transaction (as
 * `SET LOCAL` would inside a block). The statements must not reference the same table twice.
 */
export function combineStatements(stmts: readonly Statement[], opts: { asyncCommit?: boolean } = {}): Statement {
  const params: unknown[] = [];
  const ctes: string[] = [];
  if (opts.asyncCommit) ctes.push(`_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS v)`);
  stmts.forEach((st, i) => {
    const offset = params.length;
    params.push(...st.params);
    const sql = offset === 0 ? st.sql : st.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    ctes.push(`_w${i} AS (${sql})`);
  });
  if (!ctes.length) return { sql: 'SELECT 1', params };
  return { sql: `WITH ${ctes.join(',\n')}\nSELECT ${opts.asyncCommit ? 'v FROM _commit' : '1'}`, params };
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
