/**
 * Migration 050: the slot rows of the address links (address_slots) written from then on are compressed with LZ4
 * where the server has it, pglz otherwise (PGlite) — in the partitions that existed at the migration and in those
 * created later (which copy the parent's setting) — and a wallet's history reads every row back as written, also the
 * ones stored before. Only a busy address's slot row (hundreds of links) is large enough to be compressed at all.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { writeAddressLinks } from '../../src/store/address-links.js';
import { writeTransactions } from '../../src/store/chain.js';
import { queryHistory } from '../../src/store/chain-reads.js';
import { createPartitionsAhead, family, listPartitions } from '../../src/store/partitions.js';
import type { AddressLinkRow, BalanceChange, TxRow } from '../../src/store/block-update.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const BUSY = 'Busy1111111111111111111111111111111111111111';
const LINKS = 300;
let t: TestDb;

const changesOf = (slot: number, i: number): BalanceChange[] => [{ mint: 'So11111111111111111111111111111111111111112', amount: `-${slot * 1000 + i}.${i}`, decimals: 9 }];

/** A slot where the busy address is in LINKS swaps (each with its own balance change), as a pool is. */
async function busySlot(slot: number): Promise<void> {
  const txs: TxRow[] = [];
  const links: AddressLinkRow[] = [];
  for (let i = 0; i < LINKS; i++) {
    txs.push({ signature: `sig-${slot}-${i}`, slot, txIndex: i, blockTime: 1_700_000_000 + slot, fee: 5000n, feePayer: 'payer', err: null, hasMeta: true, enhancedType: 'SWAP', memo: null });
    links.push({ address: BUSY, slot, txIndex: i, relation: 1, changes: changesOf(slot, i), enhancedType: 'SWAP', writable: true });
  }
  await writeTransactions(t.db, txs);
  await writeAddressLinks(t.db, links);
}

const compression = async (slot: number) =>
  (await t.db.query<{ c: string | null }>('SELECT pg_column_compression(changes) AS c FROM address_slots WHERE address = $1 AND slot = $2', [BUSY, slot])).rows[0].c;

beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 49) });
  await busySlot(10);
}, 120_000);

afterAll(async () => t?.drop());

describe('migration 050 (address slot rows compressed with LZ4 where available)', () => {
  it('compresses new slot rows with LZ4 when the server has it, in existing and new partitions; history reads every row as written', async () => {
    expect(await compression(10)).toBe('pglz');
    expect(await migrate(t.db, listMigrations().filter((m) => m.version === 50))).toEqual(['050_address_slots_lz4.sql']);
    const lz4 = (await t.db.query<{ ok: boolean }>(`SELECT 'lz4' = ANY (enumvals) AS ok FROM pg_settings WHERE name = 'default_toast_compression'`)).rows[0].ok;
    const method = lz4 ? 'lz4' : 'pglz';
    await busySlot(20);
    expect(await compression(20)).toBe(method);
    // A partition made after the migration, by the retention job's code: [100, 200) holds slot 150.
    await createPartitionsAhead(t.db, family('history'), { now: 150, width: 100, ahead: 1, lockTimeoutMs: 1000, lockedMargin: 100 });
    expect((await listPartitions(t.db, family('history'), 'address_slots')).map((p) => p.name)).toContain('address_slots_p100');
    await busySlot(150);
    expect(await compression(150)).toBe(method);
    // The two rows moved out of the DEFAULT partition keep what they were written with.
    expect(await compression(10)).toBe('pglz');
    expect(await compression(20)).toBe(method);

    const page = await queryHistory(t.db, { address: BUSY, maxRelation: 3, limit: 1000, from: null, ascending: false, maxSlot: 1000, type: 'SWAP' });
    expect(page.length).toBe(3 * LINKS);
    for (const r of page) expect(r.changes).toEqual(changesOf(r.slot, r.txIndex));
    const all = await queryHistory(t.db, { address: BUSY, maxRelation: 3, limit: 1000, from: null, ascending: true, maxSlot: 1000 });
    expect(all.map((r) => `${r.slot}:${r.txIndex}`)).toEqual([10, 20, 150].flatMap((s) => Array.from({ length: LINKS }, (_, i) => `${s}:${i}`)));
    for (const r of all) expect(r.changes).toEqual(changesOf(r.slot, r.txIndex));
  });
});
