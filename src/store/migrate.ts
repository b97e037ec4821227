/**
 * Forward-only migrations: numbered `src/migrations/NNN_name.sql` files, each applied once, in order, inside
 * its own transaction, recorded in `schema_migrations`. A migration that fails leaves nothing behind.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations');
/** Arbitrary constant for pg_advisory_xact_lock: one migrator at a time across processes. */
const LOCK_ID = 7_011_990;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}

/** Applies pending migrations; returns the names applied now. */
export async function migrate(db: Db, migrations = listMigrations()): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INT PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
  const applied: string[] = [];
  for (const m of migrations) {
    const done = await db.tx(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
      const { rows } = await q.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]);
      if (rows.length) return false;
      for (const stmt of splitSql(m.sql)) await q.query(stmt);
      await q.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.name);
  }
  return applied;
}

/**
 * Splits a migration file into statements at `;` outside `$$ … $$` bodies (DO blocks; no `;` inside strings in our
 * migrations).
 */
export function splitSql(sql: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inBody = false;
  for (const part of sql.replace(/--[^\n]*/g, '').split(/(\$\$)/)) {
    if (part === '$$') inBody = !inBody;
    if (part === '$$' || inBody) {
      cur += part;
      continue;
    }
    const pieces = part.split(';');
    cur += pieces[0];
    for (const p of pieces.slice(1)) {
      out.push(cur);
      cur = p;
    }
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}
