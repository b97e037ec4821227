/**
 * The ZK benchmark's database on the PostgreSQL server of DATABASE_URL: a fresh migrated database per run
 * (`solgate_bench_zk_<random>`, dropped afterwards), or with `keep` a database named after the dataset
 * (`solgate_bench_zk_<accounts>_s<seed>`) that is kept after the run and reused as is by the next run when it holds
 * a complete dataset of the same config (anything else — no dataset, another config, an interrupted generation — is
 * recreated). Same approach as bench/gen/das-db.ts, with one stage ('complete') and the zk name prefix.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { DEFAULT_DATABASE_URL } from './das-db.js';

export interface ZkBenchDb {
  db: Db;
  /** Connection string of the benchmark database. */
  url: string;
  name: string;
  /** PostgreSQL server version. */
  serverVersion: string;
  /** True when a kept database already holds the complete dataset. */
  reused: boolean;
  /** What the run that built it recorded (null when new). */
  stored: Record<string, unknown> | null;
  /** Records the complete dataset (what a later run compares to reuse the database). */
  markComplete(info: Record<string, unknown>): Promise<void>;
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
export async function openZkBenchDb(opts: { keep: boolean; fresh: boolean; stableName: string; want: Record<string, unknown>; poolSize: number }): Promise<ZkBenchDb> {
  if (!opts.stableName.startsWith('solgate_bench_zk')) throw new Error(`zk: database name must start with solgate_bench_zk (${opts.stableName})`);
  const base = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const name = opts.keep ? opts.stableName : `solgate_bench_zk_${randomBytes(5).toString('hex')}`;
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const { version, exists } = await admin(base, async (c) => ({
    version: (await c.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version'])).rows[0].v,
    exists: (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rows.length > 0,
  }));

  let stored: Record<string, unknown> | null = null;
  if (exists && opts.keep && !opts.fresh) {
    const probe = await openDb({ databaseUrl: url, poolSize: 1 });
    try {
      const { rows } = await probe.query<{ value: Record<string, unknown> }>("SELECT value FROM bench_zk_meta WHERE key = 'complete'");
      if (rows.length && canonical(rows[0].value.identity) === canonical(opts.want)) stored = rows[0].value;
    } catch {
      // no meta table: an interrupted generation
    } finally {
      await probe.close();
    }
  }
  if (!stored) {
    await admin(base, async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${name}`);
    });
  }
  const db = await openDb({ databaseUrl: url, poolSize: opts.poolSize });
  if (!stored) {
    await migrate(db);
    await db.exec('CREATE TABLE bench_zk_meta (key TEXT PRIMARY KEY, value JSONB NOT NULL)');
  }
  return {
    db,
    url,
    name,
    serverVersion: version,
    reused: stored !== null,
    stored,
    async markComplete(info) {
      await db.query("INSERT INTO bench_zk_meta (key, value) VALUES ('complete', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [
        JSON.stringify({ ...info, identity: opts.want }),
      ]);
    },
    async close() {
      await db.close();
      if (!opts.keep) await admin(base, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
