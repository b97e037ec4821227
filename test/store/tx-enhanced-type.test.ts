/**
 * The stored enhanced type (migration 015): guarded, idempotent writes of `transactions.enhanced_type` and of the
 * typed link entries (`address_typed`, migration 046), and the history filter reading them by their key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTransactions } from '../../src/store/chain.js';
import { writeAddressLinks } from '../../src/store/address-links.js';
import { queryHistory } from '../../src/store/chain-reads.js';
import type { AddressLinkRow, TxRow } from '../../src/store/block-update.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const W = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
const sig = (i: number) => `${i}`.padStart(3, '0') + '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjK'.slice(3);

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.drop());

const tx = (i: number, over: Partial<TxRow> = {}): TxRow => ({
  signature: sig(i), slot: i, txIndex: 0, blockTime: 1000 + i, fee: 5000n, feePayer: W, err: null, hasMeta: true, enhancedType: 'TRANSFER', memo: null, ...over,
});
const link = (i: number, over: Partial<AddressLinkRow> = {}): AddressLinkRow => ({
  address: W, slot: i, txIndex: 0, relation: 1, changes: null, enhancedType: 'TRANSFER', writable: true, ...over,
});
async function stored(i: number) {
  const { rows } = await t.db.query<{ fee: string | null; has_meta: boolean; enhanced_type: string | null }>(
    'SELECT fee::text AS fee, has_meta, enhanced_type FROM transactions WHERE signature = $1',
    [sig(i)],
  );
  return rows[0];
}
const history = (type?: string) => queryHistory(t.db, { address: W, maxRelation: 3, limit: 100, from: null, ascending: false, maxSlot: 1_000, type }).then((r) => r.map((x) => x.slot));

describe('enhanced type writes', () => {
  it('a record with meta replaces the type of a meta-less one; the first write with meta stays', async () => {
    await writeTransactions(t.db, [tx(1, { hasMeta: false, fee: null, enhancedType: 'TRANSFER' })]);
    expect(await stored(1)).toEqual({ fee: null, has_meta: false, enhanced_type: 'TRANSFER' });
    await writeTransactions(t.db, [tx(1, { err: { InstructionError: [0, 'Custom'] }, enhancedType: 'UNKNOWN' })]);
    expect(await stored(1)).toEqual({ fee: '5000', has_meta: true, enhanced_type: 'UNKNOWN' });
    // Later records (with or without meta) change nothing, re-writes are idempotent.
    await writeTransactions(t.db, [tx(1, { hasMeta: false, fee: null, enhancedType: 'TRANSFER' })]);
    await writeTransactions(t.db, [tx(1, { fee: 1n, enhancedType: 'BURN' })]);
    expect(await stored(1)).toEqual({ fee: '5000', has_meta: true, enhanced_type: 'UNKNOWN' });
  });

  it('a row without a type (written before the migration) takes the type of a re-ingested record, keeping its facts', async () => {
    await writeTransactions(t.db, [tx(2, { enhancedType: null })]);
    expect(await stored(2)).toEqual({ fee: '5000', has_meta: true, enhanced_type: null });
    // A meta-less record does not fill in a row that has meta.
    await writeTransactions(t.db, [tx(2, { hasMeta: false, fee: null, enhancedType: 'BURN' })]);
    expect(await stored(2)).toEqual({ fee: '5000', has_meta: true, enhanced_type: null });
    await writeTransactions(t.db, [tx(2, { fee: 7n, enhancedType: 'BURN' })]);
    expect(await stored(2)).toEqual({ fee: '5000', has_meta: true, enhanced_type: 'BURN' });
  });

  it('a row whose memo is not known (\'\', written before migration 028) takes the re-ingested record\'s; a known memo or none stays', async () => {
    const memo = async (i: number) => (await t.db.query<{ memo: string | null }>('SELECT memo FROM transactions WHERE signature = $1', [sig(i)])).rows[0].memo;
    await writeTransactions(t.db, [tx(3, { memo: '[2] hi' }), tx(4), tx(5)]);
    expect([await memo(3), await memo(4)]).toEqual(['[2] hi', null]);
    await t.db.query("UPDATE transactions SET memo = '' WHERE signature = $1", [sig(5)]);
    await writeTransactions(t.db, [tx(3, { memo: '[3] bye' }), tx(4, { memo: '[1] x' }), tx(5, { memo: '[5] hello' })]);
    expect([await memo(3), await memo(4), await memo(5)]).toEqual(['[2] hi', null, '[5] hello']);
    expect(await stored(5)).toEqual({ fee: '5000', has_meta: true, enhanced_type: 'TRANSFER' });
  });

  it('typed links are indexed by their type; re-writes keep relation rules and never erase an entry', async () => {
    await writeTransactions(t.db, [tx(13, { enhancedType: 'TOKEN_MINT' }), tx(14, { enhancedType: 'TRANSFER' }), tx(15, { enhancedType: 'BURN' })]);
    await writeAddressLinks(t.db, [link(13, { relation: 3, enhancedType: 'TOKEN_MINT' }), link(14), link(15, { enhancedType: null })]);
    await writeAddressLinks(t.db, [link(13, { relation: 1, enhancedType: null }), link(15, { enhancedType: 'BURN' })]);
    // The links one per row (the view of migration 046): the type is the transaction's.
    const { rows } = await t.db.query<{ slot: string; relation: number; enhanced_type: string | null }>(
      'SELECT slot::text AS slot, relation, enhanced_type FROM address_transactions WHERE address = $1 ORDER BY slot',
      [W],
    );
    expect(rows.map((r) => [Number(r.slot), r.relation, r.enhanced_type])).toEqual([
      [13, 1, 'TOKEN_MINT'],
      [14, 1, 'TRANSFER'],
      [15, 1, 'BURN'],
    ]);
    const { rows: typed } = await t.db.query<{ slot: string; enhanced_type: string }>(
      'SELECT slot::text AS slot, enhanced_type FROM address_typed WHERE address = $1 ORDER BY slot',
      [W],
    );
    expect(typed.map((r) => [Number(r.slot), r.enhanced_type])).toEqual([[13, 'TOKEN_MINT'], [14, 'TRANSFER'], [15, 'BURN']]);
  });
});

describe('history by type', () => {
  it('filters on the transaction type, newest first; UNKNOWN is refused', async () => {
    await writeTransactions(t.db, [tx(16, { enhancedType: 'UNKNOWN' }), tx(17, { enhancedType: null })]);
    await writeAddressLinks(t.db, [link(16, { enhancedType: 'UNKNOWN' }), link(17, { enhancedType: null })]);
    expect(await history()).toEqual([17, 16, 15, 14, 13]);
    expect(await history('TRANSFER')).toEqual([14]);
    expect(await history('BURN')).toEqual([15]);
    expect(await history('TOKEN_MINT')).toEqual([13]);
    expect(await history('SWAP')).toEqual([]);
    await expect(history('UNKNOWN')).rejects.toThrow(/UNKNOWN/);
  });

  it('a typed entry whose transaction holds another type does not match', async () => {
    // Slot 14's transaction is a TRANSFER; a link written with another type leaves an entry the filter must not trust.
    await writeAddressLinks(t.db, [link(14, { enhancedType: 'SWAP' })]);
    expect(await history('SWAP')).toEqual([]);
    expect(await history('TRANSFER')).toEqual([14]);
  });

  it('the filtered query reads the typed entries by their key', async () => {
    const sql: { text: string; params: unknown[] }[] = [];
    const spy = { query: (text: string, params: unknown[] = []) => (sql.push({ text, params }), t.db.query(text, params)) } as unknown as typeof t.db;
    await queryHistory(spy, { address: W, maxRelation: 2, limit: 10, from: { slot: 15, txIndex: 0, signature: sig(15) }, ascending: false, maxSlot: 1_000, type: 'BURN' });
    const plan = await t.db.tx(async (c) => {
      await c.query('SET LOCAL enable_seqscan = off');
      await c.query('SET LOCAL enable_bitmapscan = off');
      const { rows } = await c.query<Record<string, string>>(`EXPLAIN ${sql[0].text}`, sql[0].params);
      return rows.map((r) => Object.values(r)[0]).join('\n');
    });
    // The table is partitioned (migration 032): the plan names the partitions' copies of the key.
    expect(plan).toMatch(/address_typed_\w*pkey/);
  });
});
