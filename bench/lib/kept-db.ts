/**
 * A benchmark's database on the PostgreSQL server of DATABASE_URL: a fresh migrated database per run
 * (`solgate_bench_<prefix>_<random>`, dropped afterwards), or with `keep` a database named after the dataset
 * (e.g. `solgate_bench_das_<assets>_s<seed>`) that is kept after the run and reused by the next one when it holds a
 * dataset of the same config. What a kept database holds is recorded as stages in `bench_<prefix>_meta` (key = stage,
 * value = what the run recorded plus the dataset identity): a run reuses the most advanced stage recorded for the
 * same identity (the benchmark decides what each stage means: as is, or resume after it); a database with no such
 * stage (no dataset, another config, an interrupted generation) is recreated.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface KeptBenchDb<S extends string> {
  db: Db;
  /** Connection string of the benchmark database. */
  url: string;
  name: string;
  /** PostgreSQL server version. */
  serverVersion: string;
  /** The most advanced stage a kept database already holds, or 'new'. */
  stage: S | 'new';
  /** The stored description of that stage (null when new). */
  stored: Record<string, unknown> | null;
  /** Records a stage (what a later run compares to reuse the database). */
  mark(stage: S, info: Record<string, unknown>): Promise<void>;
  /** Drops the database unless it is kept. */
  close(): Promise<void>;
}

export interface KeptBenchDbOptions<S extends string> {
  /** Names the databases (`solgate_bench_<prefix>_…`) and the meta table (`bench_<prefix>_meta`). */
  prefix: string;
  /** The stages a run records, most advanced first. */
  stages: readonly S[];
  keep: boolean;
  fresh: boolean;
  /** Name of the kept database (used with `keep`); must start with `solgate_bench_<prefix>`. */
  stableName: string;
  /** The dataset identity. */
  want: Record<string, unknown>;
  poolSize: number;
}

/** JSON with sorted keys (jsonb does not keep key order). */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

async function admin<T>(base: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Opens the benchmark database. `want` is the dataset identity: with `keep`, a kept database holding a stage
 * recorded for that identity is reused (unless `fresh`) and brought to the current schema; anything else is (re)created
 * empty and migrated.
 */
export async function openKeptBenchDb<S extends string>(opts: KeptBenchDbOptions<S>): Promise<KeptBenchDb<S>> {
  const dbPrefix = `solgate_bench_${opts.prefix}`;
  if (opts.keep && !opts.stableName.startsWith(dbPrefix)) throw new Error(`${opts.prefix}: database name must start with ${dbPrefix} (${opts.stableName})`);
  const meta = `bench_${opts.prefix}_meta`;
  const base = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const name = opts.keep ? opts.stableName : `${dbPrefix}_${randomBytes(5).toString('hex')}`;
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const { version, exists } = await admin(base, async (c) => ({
    version: (await c.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version'])).rows[0].v,
    exists: (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rows.length > 0,
  }));

  let stage: S | 'new' = 'new';
  let stored: Record<string, unknown> | null = null;
  if (exists && opts.keep && !opts.fresh) {
    const probe = await openDb({ databaseUrl: url, poolSize: 1 });
    try {
      const { rows } = await probe.query<{ key: string; value: Record<string, unknown> }>(`SELECT key, value FROM ${meta}`);
      const byKey = new Map(rows.filter((r) => canonical(r.value.identity) === canonical(opts.want)).map((r) => [r.key, r.value]));
      const found = opts.stages.find((s) => byKey.has(s));
      if (found !== undefined) [stage, stored] = [found, byKey.get(found)!];
    } catch {
      // no meta table: an interrupted generation
    } finally {
      await probe.close();
    }
  }
  if (stage === 'new') {
    await admin(base, async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${name}`);
    });
  }
  const db = await openDb({ databaseUrl: url, poolSize: opts.poolSize });
  // a kept database gets the migrations added since it was made (the code measured may need them)
  await migrate(db);
  if (stage === 'new') await db.exec(`CREATE TABLE ${meta} (key TEXT PRIMARY KEY, value JSONB NOT NULL)`);
  return {
    db,
    url,
    name,
    serverVersion: version,
    stage,
    stored,
    async mark(key, info) {
      await db.query(`INSERT INTO ${meta} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [
        key,
        JSON.stringify({ ...info, identity: opts.want }),
      ]);
    },
    async close() {
      await db.close();
      if (!opts.keep) await admin(base, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Rows of `tables` (planner estimates: exact counts of the big tables would take a while; VACUUM ANALYZE made them accurate), size and shared_buffers of the database. */
export async function databaseFacts(db: Db, tables: readonly string[]): Promise<{ rows: Record<string, number>; sizeGB: number; sharedBuffers: string }> {
  const rows: Record<string, number> = {};
  for (const t of tables) {
    rows[t] = Number((await db.query<{ n: string }>('SELECT reltuples::bigint::text AS n FROM pg_class WHERE relname = $1', [t])).rows[0]?.n ?? 0);
  }
  const sizeGB = Number((await db.query<{ n: string }>('SELECT pg_database_size(current_database())::text AS n')).rows[0].n) / 1e9;
  const sharedBuffers = (await db.query<{ v: string }>("SELECT current_setting('shared_buffers') AS v")).rows[0].v;
  return { rows, sizeGB, sharedBuffers };
}
