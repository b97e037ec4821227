/**
 * The DAS benchmark's database on the PostgreSQL server of DATABASE_URL: a fresh migrated database per run
 * (dropped afterwards), or with `keep` a database named after the dataset (`solgate_bench_das_<assets>_s<seed>`)
 * that is kept after the run and reused by the next one when it holds a dataset of the same config: a complete one
 * (generated and indexed) is used as is; a generated but not yet indexed one resumes at the index refresh.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface DasBenchDb {
  db: Db;
  /** Connection string of the benchmark database. */
  url: string;
  name: string;
  /** PostgreSQL server version. */
  serverVersion: string;
  /** What a kept database already holds: 'complete' (generated and indexed), 'generated', or nothing ('new'). */
  stage: 'new' | 'generated' | 'complete';
  /** The stored description of that stage (null when new). */
  stored: Record<string, unknown> | null;
  /** Records a stage (what a later run compares to reuse the database). */
  mark(stage: 'generated' | 'complete', info: Record<string, unknown>): Promise<void>;
  /** Drops the database unless it is kept. */
  close(): Promise<void>;
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
 * Opens the benchmark database. `want` is the dataset identity: with `keep`, a kept database whose stored identity
 * equals it is reused (unless `fresh`); anything else is (re)created empty and migrated.
 */
export async function openDasBenchDb(opts: { keep: boolean; fresh: boolean; stableName: string; want: Record<string, unknown>; poolSize: number }): Promise<DasBenchDb> {
  const base = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const name = opts.keep ? opts.stableName : `solgate_bench_das_${randomBytes(5).toString('hex')}`;
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const { version, exists } = await admin(base, async (c) => ({
    version: (await c.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version'])).rows[0].v,
    exists: (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rows.length > 0,
  }));

  let stage: DasBenchDb['stage'] = 'new';
  let stored: Record<string, unknown> | null = null;
  if (exists && opts.keep && !opts.fresh) {
    const probe = await openDb({ databaseUrl: url, poolSize: 1 });
    try {
      const { rows } = await probe.query<{ key: string; value: Record<string, unknown> }>('SELECT key, value FROM bench_das_meta');
      const byKey = new Map(rows.filter((r) => canonical(r.value.identity) === canonical(opts.want)).map((r) => [r.key, r.value]));
      if (byKey.has('complete')) [stage, stored] = ['complete', byKey.get('complete')!];
      else if (byKey.has('generated')) [stage, stored] = ['generated', byKey.get('generated')!];
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
  if (stage === 'new') {
    await migrate(db);
    await db.exec('CREATE TABLE bench_das_meta (key TEXT PRIMARY KEY, value JSONB NOT NULL)');
  }
  return {
    db,
    url,
    name,
    serverVersion: version,
    stage,
    stored,
    async mark(key, info) {
      await db.query('INSERT INTO bench_das_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [
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
