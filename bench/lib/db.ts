/**
 * Throwaway databases for benchmarks (same approach as test/helpers/db.ts): a fresh, migrated database on the
 * PostgreSQL server of DATABASE_URL, dropped afterwards; or, when DATABASE_URL is unset, an in-memory PGlite
 * (much slower, single-threaded WASM — figures are then not comparable to a real server).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';

/** A benchmark database and how to get rid of it. */
export interface BenchDb {
  db: Db;
  /** What the benchmark ran against, for the report (server version or "PGlite in memory"). */
  description: string;
  kind: 'postgres' | 'pglite';
  /** Connection string of the throwaway database (PostgreSQL only), for a child process to use. */
  url?: string;
  drop(): Promise<void>;
}

/**
 * Creates a throwaway database (`solgate_bench_<random>`; `drop()` removes it), migrated with this checkout's
 * migrations unless `migrate` is false (a benchmark that runs another checkout's CLI against it lets that CLI apply
 * its own: see bench/replay.ts).
 */
export async function createBenchDb(opts: { poolSize?: number; migrate?: boolean } = {}): Promise<BenchDb> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const db = await openDb({ inMemory: true });
    await migrate(db);
    return { db, kind: 'pglite', description: 'PGlite in memory (DATABASE_URL unset)', drop: () => db.close() };
  }
  const name = `solgate_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const { rows } = await admin.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version']);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  const db = await openDb({ databaseUrl: u.toString(), poolSize: opts.poolSize ?? 4 });
  if (opts.migrate !== false) await migrate(db);
  const shown = new URL(u.toString());
  shown.password = shown.password ? '***' : '';
  return {
    db,
    kind: 'postgres',
    url: u.toString(),
    description: `PostgreSQL ${rows[0].v} at ${shown.host} (throwaway database ${name})`,
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Row counts of `tables`. */
export async function countRows(db: Db, tables: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) {
    // A table the database does not have (a baseline checkout from before its migration) is left out.
    const { rows: has } = await db.query<{ ok: boolean }>('SELECT to_regclass($1) IS NOT NULL AS ok', [t]);
    if (!has[0].ok) continue;
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`);
    out[t] = rows[0].n;
  }
  return out;
}
