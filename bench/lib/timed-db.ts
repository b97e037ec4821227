/**
 * A `Db` wrapper that times every statement the ingester runs, grouped by statement kind and table
 * (`INSERT address_transactions`, `SELECT token_accounts`, …), plus the transaction overhead (connect, BEGIN,
 * COMMIT). It only observes: statements and results pass through unchanged.
 */
import type { Db, Queryable } from '../../src/store/db.js';

/** Accumulated time of one statement kind. */
export interface StatementTime {
  calls: number;
  ms: number;
}

/** The wrapped database and what it measured. */
export interface TimedDb {
  db: Db;
  statements: Map<string, StatementTime>;
  /** When the most recent `tx()` was entered (performance.now()). */
  lastTxStart: number;
  reset(): void;
}

/** Label of the ingester's one-statement batch write (all tables as data-modifying CTEs). */
export const COMBINED_WRITE = 'INSERT all tables (one statement)';

/** Short label of a SQL statement: verb and main table. */
export function statementLabel(sql: string): string {
  const s = sql.trim();
  // The ingester writes a batch as one statement of data-modifying CTEs (store/bulk.ts combineStatements).
  if (/^WITH\b/i.test(s) && /\bINSERT INTO\b/i.test(s)) return COMBINED_WRITE;
  const ins = /^INSERT INTO\s+(\w+)/i.exec(s);
  if (ins) return `INSERT ${ins[1]}`;
  const sel = /^SELECT[\s\S]*?\bFROM\s+(\w+)/i.exec(s);
  if (sel) return `SELECT ${sel[1]}`;
  return s.split(/\s+/).slice(0, 2).join(' ');
}

export function timeDb(inner: Db): TimedDb {
  const statements = new Map<string, StatementTime>();
  const add = (label: string, ms: number) => {
    const cur = statements.get(label);
    if (cur) (cur.calls++, (cur.ms += ms));
    else statements.set(label, { calls: 1, ms });
  };
  const timed = (q: Queryable, isOuter = false): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const t0 = performance.now();
      // A one-statement write outside tx() is a write transaction of its own.
      if (isOuter && statementLabel(sql) === COMBINED_WRITE) result.lastTxStart = t0;
      try {
        return await q.query<T>(sql, params);
      } finally {
        add(statementLabel(sql), performance.now() - t0);
      }
    },
    // COPY where the wrapped transaction has it (PostgreSQL), timed as `COPY <table>`.
    ...(q.copyFrom
      ? {
          async copyFrom(table: string, columns: readonly string[], text: string) {
            const t0 = performance.now();
            try {
              await q.copyFrom?.(table, columns, text);
            } finally {
              add(`COPY ${table}`, performance.now() - t0);
            }
          },
        }
      : {}),
  });
  const outer = timed(inner, true);
  const result: TimedDb = {
    statements,
    lastTxStart: 0,
    reset: () => statements.clear(),
    db: {
      kind: inner.kind,
      query: outer.query,
      listen: (channel, onNotify) => inner.listen(channel, onNotify),
      async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
        const t0 = performance.now();
        result.lastTxStart = t0;
        let t1 = t0;
        let t2 = t0;
        const out = await inner.tx(async (q) => {
          t1 = performance.now();
          try {
            return await fn(timed(q));
          } finally {
            t2 = performance.now();
          }
        });
        add('(connect, BEGIN, COMMIT)', t1 - t0 + (performance.now() - t2));
        return out;
      },
      exec: (sql) => inner.exec(sql),
      close: () => inner.close(),
    },
  };
  return result;
}
