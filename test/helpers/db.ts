/**
 * Test databases: a fresh, migrated database per call — a new database on the real PostgreSQL server when
 * DATABASE_URL is set (CI), otherwise an in-memory PGlite.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db } from '../../src/store/db.js';
import { migrate, type Migration } from '../../src/store/migrate.js';

export interface TestDb {
  db: Db;
  /** Connection string of the test database (PostgreSQL only). */
  url?: string;
  drop(): Promise<void>;
}

/** `migrations`: apply only these (a database as an older version left it); default all. */
export async function createTestDb(opts: { migrations?: Migration[] } = {}): Promise<TestDb> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const db = await openDb({ inMemory: true });
    await migrate(db, opts.migrations);
    return { db, drop: () => db.close() };
  }
  const name = `solgate_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = await openDb({ databaseUrl: url, poolSize: 4 });
  await migrate(db, opts.migrations);
  return {
    db,
    url,
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** The tables ingestion writes, for digests. */
export const CHAIN_TABLES = [
  'blocks', 'transactions', 'address_slots', 'address_typed', 'sol_balances', 'mints', 'mint_supply_changes',
  'token_accounts', 'token_extensions', 'wallet_transfers', 'wallet_funding', 'name_records', 'ingest_checkpoint',
  'asset_accounts', 'tm_edition_mints',
  'cnft_assets', 'cnft_nodes', 'cnft_signatures',
  'das_assets', 'das_asset_creators', 'das_asset_authorities', 'das_asset_groups', 'das_dirty',
  'pyth_prices', 'swap_prices',
];

/** The ZK Compression tables ingestion writes. */
export const ZK_TABLES = [
  'zk_trees', 'zk_accounts', 'zk_token_accounts', 'zk_owner_balances', 'zk_token_owner_balances', 'zk_state_nodes',
  'zk_indexed_elements', 'zk_address_queue', 'zk_batch_events', 'zk_transactions', 'zk_account_transactions', 'zk_signature_index',
];

/**
 * Removes the address links of the transaction at (slot, txIndex) — what a test does to make the index lose one: the
 * position leaves its slot rows (migration 046; a row of that link alone goes) and its typed entries.
 */
export async function deleteTxLinks(db: Db, slot: number | string, txIndex: number): Promise<void> {
  await db.query('DELETE FROM address_slots WHERE slot = $1 AND tx_index = ARRAY[$2::int]', [slot, txIndex]);
  await db.query(
    `UPDATE address_slots a SET (tx_index, relation, changes, writable) =
       (SELECT array_agg(l.i ORDER BY l.i), array_agg(l.r ORDER BY l.i),
               CASE WHEN bool_or(NULLIF(l.c, 'null'::jsonb) IS NOT NULL) THEN jsonb_agg(l.c ORDER BY l.i) END,
               CASE WHEN bool_or(l.w IS NOT NULL) THEN array_agg(l.w ORDER BY l.i) END
          FROM ROWS FROM (unnest(a.tx_index), unnest(a.relation), jsonb_array_elements(a.changes), unnest(a.writable)) AS l(i, r, c, w)
         WHERE l.i <> $2)
      WHERE a.slot = $1 AND $2 = ANY(a.tx_index)`,
    [slot, txIndex],
  );
  await db.query('DELETE FROM address_typed WHERE slot = $1 AND tx_index = $2', [slot, txIndex]);
}

/** Empties every table ingestion writes (keys and identities stay). */
export async function resetChainTables(db: Db): Promise<void> {
  await db.exec(`TRUNCATE ${CHAIN_TABLES.join(', ')}`);
}

/** Row-for-row digest of each table (order-independent), excluding wall-clock columns. */
export async function tableDigests(db: Db, tables: readonly string[] = CHAIN_TABLES): Promise<Record<string, { rows: number; md5: string }>> {
  const out: Record<string, { rows: number; md5: string }> = {};
  for (const t of tables) {
    const cols = t === 'ingest_checkpoint' ? 'id, slot' : '*';
    const { rows } = await db.query<{ n: number; h: string | null }>(
      `SELECT count(*)::int AS n, md5(COALESCE(string_agg(r, '|' ORDER BY r), '')) AS h FROM (SELECT (x.*)::text AS r FROM (SELECT ${cols} FROM ${t}) x) s`,
    );
    out[t] = { rows: rows[0].n, md5: rows[0].h ?? '' };
  }
  return out;
}

/** Loads the Light tree metadata Photon's tests pre-seed (for tests that ingest the recorded Light transactions). */
export async function seedLightTrees(db: Db): Promise<void> {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { parseTreeMetadataConfig, upsertTrees } = await import('../../src/store/zk/trees.js');
  const file = join(import.meta.dirname, '..', 'fixtures', 'photon-snapshots', 'tree-metadata.json');
  await upsertTrees(db, parseTreeMetadataConfig(JSON.parse(readFileSync(file, 'utf8'))));
}
