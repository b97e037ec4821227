/**
 * Migration 045 (a compressed token account's row carries its account's fields, which the token-account pages read)
 * on a database filled under 044: the copies are filled in from zk_accounts, and a page read after the migration is
 * the same answer as the object reader's, which still joins zk_accounts. Runs on PGlite, and on PostgreSQL with
 * DATABASE_URL. The rows are SYNTHETIC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../src/api/deps.js';
import { tokenAccountsAnswer } from '../../src/api/zk/lists.js';
import { accountV2, tokenData } from '../../src/api/zk/serialize.js';
import { stringifyRpc } from '../../src/api/wire/json.js';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { getTokenAccounts } from '../../src/store/zk/accounts.js';
import { base58ToBytes } from '../../src/core/encoding.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { synth, tokenRowCopies } from '../zk/seed.js';

const OWNER = synth('zk-045:owner');
const PROGRAM = synth('zk-045:program');
const MINT = synth('zk-045:mint');
const TREE = synth('zk-045:tree');
const QUEUE = synth('zk-045:queue');
const b = (s: string) => Buffer.from(base58ToBytes(s));

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb({ migrations: listMigrations().filter((m) => m.version <= 44) });
  for (let i = 0; i < 6; i++) {
    const hash = b(synth(`zk-045:hash:${i}`));
    await t.db.query(
      `INSERT INTO zk_accounts (hash, address, owner, lamports, discriminator, data, data_hash, tree, queue, tree_type, leaf_index,
                                seq, slot_created, in_output_queue)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [hash, i % 2 ? b(synth(`zk-045:address:${i}`)) : null, b(PROGRAM), String(1000 * i), i % 3 ? String(i) : null,
       i % 3 ? Buffer.from([i, 1, 2, 3]) : null, i % 3 ? b(synth(`zk-045:dh:${i}`)) : null, b(TREE), b(QUEUE), i < 3 ? 1 : 3, 10 + i,
       i < 3 ? 20 + i : null, 30 + i, i >= 4],
    );
    await t.db.query(
      `INSERT INTO zk_token_accounts (hash, owner, mint, amount, delegate, state, tlv, spent) VALUES ($1, $2, $3, $4, NULL, 0, NULL, $5)`,
      [hash, b(OWNER), b(MINT), String(7 * i), i === 5],
    );
  }
}, 120_000);
afterAll(async () => t?.drop());

describe('migration 045 (token rows carry their account fields)', () => {
  it('fills the copies from the accounts, and the page read from them is the object answer', async () => {
    expect(await migrate(t.db)).toContain('045_zk_token_account_items.sql');
    const copies = await tokenRowCopies(t.db);
    expect(copies).toEqual({ n: 6, queued: 2, bad: 0 });

    const deps = { db: t.db } as ApiDeps;
    const text = stringifyRpc({ jsonrpc: '2.0', result: await tokenAccountsAnswer(deps, { owner: OWNER }, 'owner', 'v2'), id: 1 });
    const p = await getTokenAccounts(t.db, 'owner', OWNER, { limit: 1000 });
    expect(p.items).toHaveLength(5); // the spent one is not listed
    const want = stringifyRpc({
      jsonrpc: '2.0',
      result: { context: { slot: p.slot ?? 0 }, value: { items: p.items.map((x) => ({ account: accountV2(x.account), tokenData: tokenData(x.token) })), cursor: p.cursor } },
      id: 1,
    });
    expect(text).toBe(want);
    expect(text.match(/"proveByIndex":true/g)).toHaveLength(1);
  });
});
