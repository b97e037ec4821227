/**
 * Migration 032 on a populated database: a database filled under migration 031 (history rows, transfers, webhook
 * attempts, usage) converts to the partitioned tables with every row kept as it was, the writers' conflict targets
 * match the new keys (re-writing a row changes nothing), the attempts' id sequence continues, and partitions created
 * afterwards take new rows. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate, splitSql } from '../../src/store/migrate.js';
import { writeTransactions } from '../../src/store/chain.js';
import { writeAddressLinks } from '../../src/store/address-links.js';
import { getTxPosition, queryHistory } from '../../src/store/chain-reads.js';
import { createPartitionsAhead, family, listPartitions } from '../../src/store/partitions.js';
import { createTestDb, tableDigests, type TestDb } from '../helpers/db.js';

const TABLES = ['transactions', 'address_transactions', 'wallet_transfers', 'webhook_attempts', 'usage_daily'];
const WEBHOOK = '00000000-0000-4000-8000-000000000001';
let t: TestDb;

beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 31) });
  const q = (sql: string, p: unknown[] = []) => t.db.query(sql, p);
  for (let i = 0; i < 40; i++) {
    const slot = 100 + i * 7;
    await q(`INSERT INTO transactions (signature, slot, tx_index, block_time, fee, fee_payer, err, has_meta, enhanced_type, memo)
             VALUES ($1, $2, $3, 1700000000, 5000, 'payer', NULL, true, 'TRANSFER', NULL)`, [`sig${i}`, slot, i % 3]);
    await q(`INSERT INTO address_transactions (address, slot, tx_index, signature, relation, changes, enhanced_type, writable)
             VALUES ('wallet', $1, $2, $3, 1, '[{"mint":"m","amount":"-5","decimals":9}]', 'TRANSFER', true)`, [slot, i % 3, `sig${i}`]);
    await q(`INSERT INTO wallet_transfers (wallet, slot, tx_index, signature, ord, direction, counterparty, mint, amount, decimals, block_time)
             VALUES ('wallet', $1, $2, $3, 0, 'o', 'other', 'm', 5, 9, 1700000000)`, [slot, i % 3, `sig${i}`]);
  }
  await q(`INSERT INTO ingest_checkpoint (id, slot) VALUES ('chain', 500)`);
  await q(`INSERT INTO api_keys (id, name, key_hash) VALUES ('k1', 'test', 'h')`);
  await q(`INSERT INTO usage_daily (key_id, day, method, calls, credits) VALUES ('k1', '2026-01-05', 'getAsset', 3, 30), ('k1', current_date, 'getAsset', 1, 10)`);
  await q(`INSERT INTO webhooks (id, key_id, url, webhook_type, secret) VALUES ($1, 'k1', 'https://example.com/h', 'raw', 's')`, [WEBHOOK]);
  await q(`INSERT INTO webhook_events (webhook_id, signature, slot, position) VALUES ($1, 'sig1', 107, 107000001)`, [WEBHOOK]);
  for (let a = 1; a <= 3; a++)
    await q(`INSERT INTO webhook_attempts (event_id, webhook_id, attempt, at, ok, status, latency_ms)
             SELECT id, $1, $2::int, now() - make_interval(days => $2::int), false, 500, 12 FROM webhook_events`, [WEBHOOK, a]);
}, 120_000);

afterAll(async () => {
  await t?.drop();
});

describe('migration 032 (partitioned append-only tables)', () => {
  it('is split into statements with its DO block whole', () => {
    expect(splitSql('CREATE TABLE a (x INT); -- a; comment\nDO $$\nBEGIN\n  PERFORM 1;\n  PERFORM 2;\nEND\n$$;\nDROP TABLE a;')).toEqual([
      'CREATE TABLE a (x INT)', 'DO $$\nBEGIN\n  PERFORM 1;\n  PERFORM 2;\nEND\n$$', 'DROP TABLE a',
    ]);
  });

  it('keeps every row of a database populated under migration 031', async () => {
    const before = await tableDigests(t.db, TABLES);
    expect(before.transactions.rows).toBe(40);
    expect(await migrate(t.db, listMigrations().filter((m) => m.version <= 32))).toContain('032_partitions.sql');
    expect(await tableDigests(t.db, TABLES)).toEqual(before);
    const { rows } = await t.db.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE relname = 'transactions'`);
    expect(rows[0].relkind).toBe('p');
    // The migrations after it (044 drops the address links' signature column) for the writers of the tests below.
    await migrate(t.db);
  });

  it('lays the history out as the old rows, then a DEFAULT partition', async () => {
    const parts = await listPartitions(t.db, family('history'));
    expect(parts).toEqual([
      { name: 'transactions_p_old', lo: null, hi: 501, isDefault: false },
      { name: 'transactions_default', lo: null, hi: null, isDefault: true },
    ]);
    // address_slots and address_typed (migration 046) took the address links' partitions.
    for (const table of ['address_slots', 'address_typed', 'wallet_transfers']) expect((await listPartitions(t.db, family('history'), table)).length).toBe(2);
  });

  it('takes the writers\' upserts on the new keys: re-writing changes nothing, new rows are added', async () => {
    const row = { signature: 'sig3', slot: 121, txIndex: 0, blockTime: 1700000000, fee: 5000n, feePayer: 'payer', err: null, hasMeta: true, enhancedType: 'TRANSFER', memo: null };
    await writeTransactions(t.db, [row, { ...row, signature: 'new1', slot: 520 }]);
    await writeAddressLinks(t.db, [{ address: 'wallet', slot: 520, txIndex: 0, relation: 1, changes: null, enhancedType: 'TRANSFER', writable: true }]);
    const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM transactions');
    expect(rows[0].n).toBe(41);
    expect(await getTxPosition(t.db, 'sig3')).toEqual({ slot: 121, txIndex: 0, signature: 'sig3' });
    const page = await queryHistory(t.db, { address: 'wallet', maxRelation: 3, limit: 100, from: null, ascending: false, maxSlot: 10_000 });
    expect(page.length).toBe(41);
    expect(page[0].signature).toBe('new1');
    expect(new Set(page.map((p) => p.signature)).size).toBe(41);
  });

  it('continues the webhook attempts\' id sequence', async () => {
    const { rows } = await t.db.query<{ id: number }>(
      `INSERT INTO webhook_attempts (event_id, webhook_id, attempt, ok, status, latency_ms) SELECT id, $1, 4, true, 200, 5 FROM webhook_events RETURNING id`,
      [WEBHOOK],
    );
    expect(rows[0].id).toBe(4);
  });

  it('creates the next partitions ahead, moving rows the DEFAULT partition held in their range', async () => {
    // 520 went to the DEFAULT partition (nothing covered it yet).
    const created = await createPartitionsAhead(t.db, family('history'), { now: 520, width: 100, ahead: 2, lockTimeoutMs: 1000, lockedMargin: 100 });
    expect(created).toBe(3); // [501, 600), [600, 700), [700, 800)
    const parts = await listPartitions(t.db, family('history'), 'address_slots');
    expect(parts.map((p) => [p.name, p.lo, p.hi])).toEqual([
      ['address_slots_p_old', null, 501],
      ['address_slots_p501', 501, 600],
      ['address_slots_p600', 600, 700],
      ['address_slots_p700', 700, 800],
      ['address_slots_default', null, null],
    ]);
    const { rows: slotRows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM address_slots_p501');
    expect(slotRows[0].n).toBe(1);
    expect((await listPartitions(t.db, family('history'), 'address_typed')).map((p) => p.name)).toContain('address_typed_p501');
    const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM transactions_p501');
    expect(rows[0].n).toBe(1);
    const { rows: d } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM transactions_default');
    expect(d[0].n).toBe(0);
    const days = await createPartitionsAhead(t.db, family('webhook_attempts'), { now: Math.floor(Date.now() / 86_400_000), width: 1, ahead: 2, lockTimeoutMs: 1000, lockedMargin: 1 });
    expect(days).toBeGreaterThanOrEqual(2);
  });
});
