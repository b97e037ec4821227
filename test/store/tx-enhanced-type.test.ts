/**
 * The stored enhanced type (migration 015): guarded, idempotent writes of `transactions.enhanced_type` and of the
 * copy on `address_transactions`, and the history filter reading it through the partial type index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAddressLinks, writeTransactions } from '../../src/store/chain.js';
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

  it('links carry the type; re-writes keep relation rules and never erase a type', async () => {
    await writeTransactions(t.db, [tx(3, { enhancedType: 'TOKEN_MINT' }), tx(4, { enhancedType: 'TRANSFER' }), tx(5, { enhancedType: 'BURN' })]);
    await writeAddressLinks(t.db, [link(3, { relation: 3, enhancedType: 'TOKEN_MINT' }), link(4), link(5, { enhancedType: null })]);
    await writeAddressLinks(t.db, [link(3, { relation: 1, enhancedType: null }), link(5, { enhancedType: 'BURN' })]);
    const { rows } = await t.db.query<{ slot: string; relation: number; enhanced_type: string | null }>(
      'SELECT slot::text AS slot, relation, enhanced_type FROM address_transactions WHERE address = $1 ORDER BY slot',
      [W],
    );
    expect(rows.map((r) => [Number(r.slot), r.relation, r.enhanced_type])).toEqual([
      [3, 1, 'TOKEN_MINT'],
      [4, 1, 'TRANSFER'],
      [5, 1, 'BURN'],
    ]);
  });
});

describe('history by type', () => {
  it('filters on the link type, newest first; UNKNOWN is refused', async () => {
    await writeTransactions(t.db, [tx(6, { enhancedType: 'UNKNOWN' }), tx(7, { enhancedType: null })]);
    await writeAddressLinks(t.db, [link(6, { enhancedType: 'UNKNOWN' }), link(7, { enhancedType: null })]);
    expect(await history()).toEqual([7, 6, 5, 4, 3]);
    expect(await history('TRANSFER')).toEqual([4]);
    expect(await history('BURN')).toEqual([5]);
    expect(await history('TOKEN_MINT')).toEqual([3]);
    expect(await history('SWAP')).toEqual([]);
    await expect(history('UNKNOWN')).rejects.toThrow(/UNKNOWN/);
  });

  it('the filtered query can use the partial type index', async () => {
    const q = `SELECT t.signature FROM address_transactions a JOIN transactions t ON t.slot = a.slot AND t.tx_index = a.tx_index
      WHERE a.address = $1 AND a.relation <= 2 AND a.slot <= 1000 AND a.enhanced_type = $2 AND a.enhanced_type <> 'UNKNOWN'
      ORDER BY a.slot DESC, a.tx_index DESC LIMIT 10`;
    const plan = await t.db.tx(async (c) => {
      await c.query('SET LOCAL enable_seqscan = off');
      await c.query('SET LOCAL enable_bitmapscan = off');
      const { rows } = await c.query<Record<string, string>>(`EXPLAIN ${q.replace('$1', `'${W}'`).replace('$2', `'BURN'`)}`);
      return rows.map((r) => Object.values(r)[0]).join('\n');
    });
    // The table is partitioned (migration 032): the plan names the partitions' copies of the index.
    expect(plan).toMatch(/address_transactions_\w*address_enhanced_type_\w*idx/);
  });
});
