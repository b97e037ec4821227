/**
 * Migration 046 (the address links as one row per address and slot) on a database filled under 045, and the guarded
 * writer's merge of a slot row written again: every link comes back through the `address_transactions` view as it was
 * (relation, balance changes, written flag, the transaction's type), the typed links are indexed, and a second write
 * of a slot merges as the one-row-per-link table's ON CONFLICT clause did. Runs on PGlite, and on PostgreSQL with
 * DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { writeAddressLinks } from '../../src/store/address-links.js';
import { queryHistory, writtenBetween } from '../../src/store/chain-reads.js';
import type { AddressLinkRow } from '../../src/store/block-update.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
const sig = (slot: number, i: number) => `${slot}x${i}`.padEnd(88, 'S');
const CHANGES = '[{"mint":"So11111111111111111111111111111111111111112","amount":"-5","decimals":9}]';

interface Link { address: string; slot: number; tx_index: number; relation: number; changes: string | null; enhanced_type: string | null; writable: boolean | null }

/** The links written under 045: several per slot for one address, positions out of order, negative ones, gaps. */
const LINKS: Link[] = [
  { address: 'wallet', slot: 10, tx_index: 3, relation: 1, changes: null, enhanced_type: 'TRANSFER', writable: true },
  { address: 'wallet', slot: 10, tx_index: -7, relation: 2, changes: CHANGES, enhanced_type: 'SWAP', writable: null },
  { address: 'wallet', slot: 10, tx_index: 0, relation: 3, changes: null, enhanced_type: 'UNKNOWN', writable: null },
  { address: 'wallet', slot: 11, tx_index: 1, relation: 1, changes: CHANGES, enhanced_type: null, writable: false },
  { address: 'other', slot: 10, tx_index: 3, relation: 1, changes: null, enhanced_type: 'TRANSFER', writable: null },
];

const viewRows = async () =>
  (await t.db.query<Link>(`SELECT address, slot::int AS slot, tx_index, relation, changes::text AS changes, enhanced_type, writable
                             FROM address_transactions ORDER BY address, slot, tx_index`)).rows;

beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 45) });
  for (const l of LINKS) {
    await t.db.query(
      `INSERT INTO transactions (signature, slot, tx_index, block_time, fee, fee_payer, err, has_meta, enhanced_type, memo)
       VALUES ($1, $2, $3, 1700000000, 5000, 'payer', NULL, true, $4, NULL) ON CONFLICT DO NOTHING`,
      [sig(l.slot, l.tx_index), l.slot, l.tx_index, l.enhanced_type],
    );
    await t.db.query(
      `INSERT INTO address_transactions (address, slot, tx_index, relation, changes, enhanced_type, writable) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [l.address, l.slot, l.tx_index, l.relation, l.changes, l.enhanced_type, l.writable],
    );
  }
  await t.db.query(`INSERT INTO ingest_checkpoint (id, slot) VALUES ('chain', 100)`);
}, 120_000);

afterAll(async () => {
  await t?.drop();
});

describe('migration 046 (address links per address and slot)', () => {
  it('keeps every link: the view gives the rows of the table it replaces', async () => {
    const norm = (l: Link) => ({ ...l, changes: l.changes && JSON.stringify(JSON.parse(l.changes)) });
    const before = (await t.db.query<Link>(`SELECT address, slot::int AS slot, tx_index, relation, changes::text AS changes, enhanced_type, writable
                                              FROM address_transactions ORDER BY address, slot, tx_index`)).rows.map(norm);
    expect(before).toHaveLength(LINKS.length);
    expect(await migrate(t.db)).toContain('046_address_slots.sql');
    expect((await viewRows()).map(norm)).toEqual(before);
    const { rows } = await t.db.query<{ address: string; slot: number; tx_index: number[]; relation: number[]; writable: (boolean | null)[] | null; has_changes: boolean }>(
      `SELECT address, slot::int AS slot, tx_index, relation, writable, changes IS NOT NULL AS has_changes FROM address_slots ORDER BY address, slot`);
    expect(rows).toEqual([
      { address: 'other', slot: 10, tx_index: [3], relation: [1], writable: null, has_changes: false },
      { address: 'wallet', slot: 10, tx_index: [-7, 0, 3], relation: [2, 3, 1], writable: [null, null, true], has_changes: true },
      { address: 'wallet', slot: 11, tx_index: [1], relation: [1], writable: [false], has_changes: true },
    ]);
    const { rows: typed } = await t.db.query(`SELECT address, enhanced_type, slot::int AS slot, tx_index FROM address_typed ORDER BY address, enhanced_type, slot, tx_index`);
    expect(typed).toEqual([
      { address: 'other', enhanced_type: 'TRANSFER', slot: 10, tx_index: 3 },
      { address: 'wallet', enhanced_type: 'SWAP', slot: 10, tx_index: -7 },
      { address: 'wallet', enhanced_type: 'TRANSFER', slot: 10, tx_index: 3 },
    ]);
  });

  it('answers the history from the rows: order, relations, changes, keyset bounds and the type filter', async () => {
    const page = (over: Partial<Parameters<typeof queryHistory>[1]> = {}) =>
      queryHistory(t.db, { address: 'wallet', maxRelation: 3, limit: 100, from: null, ascending: false, maxSlot: 100, ...over });
    expect((await page()).map((r) => [r.slot, r.txIndex])).toEqual([[11, 1], [10, 3], [10, 0], [10, -7]]);
    expect((await page({ maxRelation: 2 })).map((r) => r.txIndex)).toEqual([1, 3, -7]);
    expect((await page({ ascending: true })).map((r) => r.txIndex)).toEqual([-7, 0, 3, 1]);
    expect((await page({ from: { slot: 10, txIndex: 3, signature: sig(10, 3) } })).map((r) => r.txIndex)).toEqual([0, -7]);
    expect((await page({ from: { slot: 10, txIndex: 0, signature: sig(10, 0) }, ascending: true })).map((r) => [r.slot, r.txIndex])).toEqual([[10, 3], [11, 1]]);
    const rows = await page();
    expect(rows[0].changes).toEqual(JSON.parse(CHANGES));
    expect(rows[1].changes).toEqual([]);
    expect(rows[0].signature).toBe(sig(11, 1));
    expect((await page({ type: 'SWAP' })).map((r) => [r.slot, r.txIndex, r.changes.length])).toEqual([[10, -7, 1]]);
    expect((await page({ type: 'SWAP', maxRelation: 1 })).length).toBe(0);
  });

  it('merges a slot row written again: the union by position, the least relation, the latest known changes and flag', async () => {
    const link = (txIndex: number, over: Partial<AddressLinkRow> = {}): AddressLinkRow =>
      ({ address: 'wallet', slot: 10, txIndex, relation: 1, changes: null, enhancedType: null, writable: null, ...over });
    await writeAddressLinks(t.db, [
      link(0, { relation: 1, writable: false }),
      link(3, { relation: 2, changes: [{ mint: 'M', amount: '1', decimals: 0 }] }),
      link(5, { relation: 3 }),
    ]);
    const rows = (await viewRows()).filter((r) => r.address === 'wallet' && r.slot === 10);
    expect(rows.map((r) => [r.tx_index, r.relation, r.changes && JSON.parse(r.changes), r.writable])).toEqual([
      [-7, 2, JSON.parse(CHANGES), null],
      [0, 1, null, false],
      [3, 1, [{ mint: 'M', amount: '1', decimals: 0 }], true],
      [5, 3, null, null],
    ]);
    // Written again as it is now: nothing changes.
    const before = await viewRows();
    await writeAddressLinks(t.db, [link(0, { relation: 1, writable: false })]);
    expect(await viewRows()).toEqual(before);
  });

  it('two writers of one slot row at once: both sets of positions are kept', async () => {
    const link = (txIndex: number): AddressLinkRow => ({ address: 'busy', slot: 20, txIndex, relation: 1, changes: null, enhancedType: 'SWAP', writable: true });
    // Interleaved positions, written concurrently (on PostgreSQL two connections: the second waits for the first's row
    // and merges into it), several rounds.
    for (let round = 0; round < 5; round++) {
      const base = round * 100;
      await Promise.all([
        t.db.tx((q) => writeAddressLinks(q, [0, 2, 4, 6].map((i) => link(base + i)))),
        t.db.tx((q) => writeAddressLinks(q, [1, 3, 5, 7].map((i) => link(base + i)))),
      ]);
    }
    const { rows } = await t.db.query<{ tx_index: number[] }>(`SELECT tx_index FROM address_slots WHERE address = 'busy' AND slot = 20`);
    expect(rows).toHaveLength(1);
    expect(rows[0].tx_index).toEqual([0, 100, 200, 300, 400].flatMap((b) => [0, 1, 2, 3, 4, 5, 6, 7].map((i) => b + i)));
    const { rows: typed } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM address_typed WHERE address = 'busy'`);
    expect(typed[0].n).toBe(40);
  });

  it('knows which addresses a slot range wrote (relation 1, flag not false)', async () => {
    expect([...(await writtenBetween(t.db, ['wallet', 'other', 'nobody'], 10, 10))].sort()).toEqual(['other', 'wallet']);
    // Slot 11: wallet's only link there is not written.
    expect([...(await writtenBetween(t.db, ['wallet', 'other'], 11, 11))]).toEqual([]);
  });
});
