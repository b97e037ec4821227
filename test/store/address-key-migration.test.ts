/**
 * Migration 040 (address_transactions keyed by (address, slot, tx_index)) on a database filled under 039: transactions
 * whose position was not known were stored at position 0, so several can share (slot, 0); they move to the negative
 * position derived from their signature (the same value the ingest fold now writes) in every history table, every
 * row is kept, and a later write of the same transaction lands on the same key. Runs on PGlite, and on PostgreSQL
 * with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { writeAddressLinks } from '../../src/store/address-links.js';
import { queryHistory } from '../../src/store/chain-reads.js';
import { unknownTxIndex } from '../../src/core/tx-position.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
// Real-shaped signatures (base58, 88 characters).
const sig = (c: string) => c.repeat(88);
const SHARED = [sig('A'), sig('B'), sig('C')]; // three transactions at (200, 0)
const ALONE = sig('D'); // (201, 0), the only one there

async function positions(table: string): Promise<Record<string, number[]>> {
  const { rows } = await t.db.query<{ signature: string; tx_index: number }>(`SELECT signature, tx_index FROM ${table} ORDER BY signature, tx_index`);
  const out: Record<string, number[]> = {};
  for (const r of rows) (out[r.signature[0]] ??= []).push(r.tx_index);
  return out;
}

beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 39) });
  const q = (sql: string, p: unknown[] = []) => t.db.query(sql, p);
  for (const [signature, slot] of [...SHARED.map((s) => [s, 200] as const), [ALONE, 201] as const]) {
    await q(`INSERT INTO transactions (signature, slot, tx_index, block_time, fee, fee_payer, err, has_meta, enhanced_type, memo)
             VALUES ($1, $2, 0, 1700000000, 5000, 'payer', NULL, true, 'TRANSFER', NULL)`, [signature, slot]);
    for (const address of ['wallet', 'other'])
      await q(`INSERT INTO address_transactions (address, slot, tx_index, signature, relation, changes, enhanced_type, writable)
               VALUES ($1, $2, 0, $3, 1, NULL, 'TRANSFER', true)`, [address, slot, signature]);
    await q(`INSERT INTO wallet_transfers (wallet, slot, tx_index, signature, ord, direction, counterparty, mint, amount, decimals, block_time)
             VALUES ('wallet', $1, 0, $2, 0, 'o', 'other', 'm', 5, 9, 1700000000)`, [slot, signature]);
  }
  await q(`INSERT INTO ingest_checkpoint (id, slot) VALUES ('chain', 300)`);
}, 120_000);

afterAll(async () => {
  await t?.drop();
});

describe('migration 040 (address links keyed by position)', () => {
  it('moves transactions that shared a position to their derived negative one, in every history table, keeping every row', async () => {
    expect(await migrate(t.db, listMigrations().filter((m) => m.version <= 40))).toContain('040_address_tx_narrow_key.sql');
    const want = { A: [unknownTxIndex(SHARED[0])], B: [unknownTxIndex(SHARED[1])], C: [unknownTxIndex(SHARED[2])], D: [0] };
    for (const w of Object.values(want)) expect(w[0]).toBeLessThanOrEqual(0);
    expect(await positions('transactions')).toEqual(want);
    expect(await positions('wallet_transfers')).toEqual(want);
    const links = await positions('address_transactions');
    const linked = Object.fromEntries(Object.entries(want).map(([k, v]) => [k, [v[0], v[0]]]));
    expect(links).toEqual(linked);
    // Migration 044 drops the links' signature: each link still names its transaction, by position.
    expect(await migrate(t.db)).toContain('044_address_tx_no_signature.sql');
    expect(await positions('address_transactions a JOIN transactions t USING (slot, tx_index)')).toEqual(linked);
  });

  it('keys the links by position: a row per (address, slot) and typed entries by (address, type, slot, tx_index)', async () => {
    // Migration 046 grouped the links (address_transactions is their view since).
    const key = async (table: string) => (await t.db.query<{ def: string }>(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`, [table])).rows[0].def;
    expect(await key('address_slots')).toBe('PRIMARY KEY (address, slot)');
    expect(await key('address_typed')).toBe('PRIMARY KEY (address, enhanced_type, slot, tx_index)');
  });

  it('lists all four in the history, and a later write of a moved transaction lands on its key', async () => {
    const page = () => queryHistory(t.db, { address: 'wallet', maxRelation: 3, limit: 100, from: null, ascending: false, maxSlot: 1000 });
    const before = await page();
    expect(before.map((r) => r.signature).sort()).toEqual([...SHARED, ALONE].sort());
    // The ingest fold writes a transaction without a known position at unknownTxIndex(signature): the same key.
    await writeAddressLinks(t.db, [{ address: 'wallet', slot: 200, txIndex: unknownTxIndex(SHARED[1]), relation: 1, changes: null, enhancedType: 'TRANSFER', writable: true }]);
    expect(await page()).toEqual(before);
    // Keyset pages over negative positions: one row at a time reaches every row once.
    const seen: string[] = [];
    let from = null as null | { slot: number; txIndex: number; signature: string };
    for (;;) {
      const rows = await queryHistory(t.db, { address: 'wallet', maxRelation: 3, limit: 1, from, ascending: false, maxSlot: 1000 });
      if (!rows.length) break;
      seen.push(rows[0].signature);
      from = { slot: rows[0].slot, txIndex: rows[0].txIndex, signature: rows[0].signature };
    }
    expect(seen).toEqual(before.map((r) => r.signature));
  });
});

describe('unknownTxIndex', () => {
  it('is negative, within int4, and the same for the same signature', () => {
    for (const s of [...SHARED, ALONE, '5'.repeat(87)]) {
      const v = unknownTxIndex(s);
      expect(v).toBeLessThan(0);
      expect(v).toBeGreaterThanOrEqual(-2147483646);
      expect(unknownTxIndex(s)).toBe(v);
    }
  });
});
