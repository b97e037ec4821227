/**
 * Migration 047: webhook payloads written from then on are compressed with LZ4 where the server has it (PostgreSQL
 * built with lz4), pglz otherwise (PGlite), and read back as written either way — also those stored before it.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { outboxStatements } from '../../src/store/webhook-events.js';
import type { Matches } from '../../src/core/webhook-types.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
// Real payload text: a recorded mainnet transaction's JSON (tens of KB: compressed out of line).
const block = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'photon-blocks', 'index_block_metadata', '254170887'), 'utf8')) as { transactions: unknown[] };
const text = (i: number) => JSON.stringify(block.transactions.slice(i, i + 4));

async function store(signature: string, i: number): Promise<void> {
  const m: Matches = { payloads: [{ signature, slot: 1, raw: text(i), enhanced: text(i + 4) }], events: [] };
  m.events.push({ webhookId: '00000000-0000-4000-8000-000000000001', signature, slot: 1, position: 1_000_000 });
  // The payload statement alone (the event's would need the webhook).
  const [payloads] = outboxStatements(m);
  await t.db.query(payloads.sql, payloads.params);
}

const compression = async (signature: string) =>
  (await t.db.query<{ raw: string; enhanced: string }>('SELECT pg_column_compression(raw) AS raw, pg_column_compression(enhanced) AS enhanced FROM webhook_payloads WHERE signature = $1', [signature])).rows[0];

beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 46) });
  await store('before', 0);
}, 120_000);

afterAll(async () => t?.drop());

describe('migration 047 (webhook payloads compressed with LZ4 where available)', () => {
  it('compresses new payloads with LZ4 when the server has it, pglz otherwise; every payload reads back as written', async () => {
    expect(await compression('before')).toEqual({ raw: 'pglz', enhanced: 'pglz' });
    expect(await migrate(t.db, listMigrations().filter((m) => m.version === 47))).toEqual(['047_webhook_payloads_lz4.sql']);
    await store('after', 8);
    const lz4 = (await t.db.query<{ ok: boolean }>(`SELECT 'lz4' = ANY (enumvals) AS ok FROM pg_settings WHERE name = 'default_toast_compression'`)).rows[0].ok;
    const method = lz4 ? 'lz4' : 'pglz';
    expect(await compression('after')).toEqual({ raw: method, enhanced: method });
    const { rows } = await t.db.query<{ signature: string; raw: string; enhanced: string }>('SELECT signature, raw, enhanced FROM webhook_payloads ORDER BY signature');
    expect(rows).toEqual([
      { signature: 'after', raw: text(8), enhanced: text(12) },
      { signature: 'before', raw: text(0), enhanced: text(4) },
    ]);
  });
});
