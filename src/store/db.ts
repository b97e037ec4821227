/**
 * The database handle: PostgreSQL through a `pg` pool when `DATABASE_URL` is set, otherwise embedded PostgreSQL
 * (PGlite) in a data directory. Both run the same SQL. Only `src/store` uses this module.
 *
 * Value conventions (identical on both drivers): `bigint`/int8 columns come back as JS numbers (slots, indexes,
 * fees, times — all far below 2^53); u64 token amounts are stored as NUMERIC and come back as strings.
 */
import pg from 'pg';
import { mkdirSync } from 'node:fs';

export interface QueryResult<T> {
  rows: T[];
}

/** Something that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs `fn` in one SQL transaction: committed when it resolves, rolled back when it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Runs several statements separated by `;` (migrations). No parameters. */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

// int8 → number (see conventions above); numeric stays a string.
pg.types.setTypeParser(20, (v: string) => Number(v));

export interface OpenDbOptions {
  databaseUrl?: string;
  dataDir?: string;
  poolSize?: number;
  /** PGlite only: keep everything in memory (tests). */
  inMemory?: boolean;
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openPglite(opts.inMemory ? undefined : (opts.dataDir ?? './.data'));
}

function openPostgres(url: string, max: number): Db {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      const r = await pool.query(sql, params as unknown[]);
      return { rows: r.rows as T[] };
    },
    async tx<T>(fn: (q: Queryable) => Promise<T>) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // One connection runs one statement at a time: concurrent calls inside the transaction (Promise.all)
        // are chained here in call order rather than left to pg's deprecated implicit queue.
        let tail: Promise<unknown> = Promise.resolve();
        const q: Queryable = {
          query<R>(sql: string, params?: unknown[]) {
            const run = tail.then(() => client.query(sql, params as unknown[]));
            tail = run.catch(() => {});
            return run.then((r) => ({ rows: r.rows as R[] }));
          },
        };
        const out = await fn(q);
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async close() {
      await pool.end();
    },
  };
}

async function openPglite(dataDir: string | undefined): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  return {
    kind: 'pglite',
    async query<T>(sql: string, params?: unknown[]) {
      const r = await db.query<T>(sql, params as unknown[]);
      return { rows: r.rows };
    },
    async tx<T>(fn: (q: Queryable) => Promise<T>) {
      return db.transaction(async (t) =>
        fn({
          async query<R>(sql: string, params?: unknown[]) {
            const r = await t.query<R>(sql, params as unknown[]);
            return { rows: r.rows };
          },
        }),
      );
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
    async close() {
      await db.close();
    },
  };
}
