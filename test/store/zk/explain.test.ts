/**
 * Query plans of the list reads (with sequential scans, bitmap scans and sorts discouraged, as
 * test/das/lists.test.ts does): every page walks one index in the order it returns rows — no Sort step — with and
 * without filters and cursors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { ownerAccountsQuery, tokenAccountsQuery } from '../../../src/store/zk/accounts.js';
import { mintHoldersQuery, tokenBalancesQuery } from '../../../src/store/zk/balances.js';
import { latestSignaturesQuery, pruneNonCompressionQuery, signatureListQuery } from '../../../src/store/zk/transactions.js';
import { lowElementsQuery } from '../../../src/store/zk/indexed-tree.js';
import { encodeHashCursor, encodeHolderCursor, encodeMintCursor, encodeSignatureCursor, encodeTokenAccountCursor } from '../../../src/store/zk/cursors.js';
import { explain, applySeparately } from './helpers.js';
import { AMT1, BOB, DAVE, history, MINT, TOKEN_PROGRAM, synth } from './scenario.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  await applySeparately(t.db, history());
  await t.db.exec('ANALYZE');
});
afterAll(async () => t?.drop());

const b32 = new Uint8Array(32).fill(7);
const b64 = new Uint8Array(64).fill(9);

async function expectIndexOnly(q: { sql: string; params: unknown[] }, index: string) {
  const plan = await explain(t.db, q);
  expect(plan, plan).toContain(index);
  expect(plan, plan).not.toMatch(/\bSort\b/);
  expect(plan, plan).not.toMatch(/Seq Scan on zk_/);
}

describe('list queries walk one index, no sort', () => {
  it('accounts by owner (getCompressedAccountsByOwner): zk_accounts_owner_idx', async () => {
    await expectIndexOnly(ownerAccountsQuery(TOKEN_PROGRAM, { limit: 10 }), 'zk_accounts_owner_idx');
    await expectIndexOnly(ownerAccountsQuery(TOKEN_PROGRAM, { limit: 10, cursor: encodeHashCursor(b32) }), 'zk_accounts_owner_idx');
    await expectIndexOnly(
      ownerAccountsQuery(TOKEN_PROGRAM, { limit: 10, filters: [{ offset: 1, bytes: new Uint8Array([1, 2]) }], dataSlice: { offset: 0, length: 8 } }),
      'zk_accounts_owner_idx',
    );
  });

  it('token accounts by owner / delegate (getCompressedTokenAccountsBy…): the (owner|delegate, mint, hash) index', async () => {
    for (const opts of [{ limit: 10 }, { limit: 10, mint: MINT }, { limit: 10, cursor: encodeTokenAccountCursor(b32, b32) }, { limit: 10, mint: MINT, cursor: encodeTokenAccountCursor(b32, b32) }]) {
      await expectIndexOnly(tokenAccountsQuery('owner', BOB, opts), 'zk_token_accounts_owner_idx');
      await expectIndexOnly(tokenAccountsQuery('delegate', DAVE, opts), 'zk_token_accounts_delegate_idx');
    }
  });

  it('token balances by owner and holders of a mint: the balance table key and (mint, amount, owner) backwards', async () => {
    await expectIndexOnly(tokenBalancesQuery(BOB, { limit: 10 }), 'zk_token_owner_balances_pkey');
    await expectIndexOnly(tokenBalancesQuery(BOB, { limit: 10, cursor: encodeMintCursor(b32) }), 'zk_token_owner_balances_pkey');
    await expectIndexOnly(mintHoldersQuery(MINT, { limit: 10 }), 'zk_token_owner_balances_mint_idx');
    const plan = await explain(t.db, mintHoldersQuery(MINT, { limit: 10, cursor: encodeHolderCursor(5n, b32) }));
    expect(plan, plan).toMatch(/Index (Only )?Scan Backward using zk_token_owner_balances_mint_idx/);
    expect(plan, plan).not.toMatch(/\bSort\b/);
  });

  it('signature lists by owner / token owner / address and the latest signatures', async () => {
    for (const kind of ['owner', 'tokenOwner', 'address'] as const) {
      await expectIndexOnly(signatureListQuery(kind, BOB, { limit: 10 }), 'zk_signature_index_pkey');
      await expectIndexOnly(signatureListQuery(kind, BOB, { limit: 10, cursor: encodeSignatureCursor(5n, b64) }), 'zk_signature_index_pkey');
    }
    await expectIndexOnly(latestSignaturesQuery({ limit: 10, onlyCompression: true }), 'zk_transactions_compression_idx');
    await expectIndexOnly(latestSignaturesQuery({ limit: 10, onlyCompression: true, cursor: encodeSignatureCursor(5n, b64) }), 'zk_transactions_compression_idx');
    await expectIndexOnly(latestSignaturesQuery({ limit: 10, onlyCompression: false }), 'zk_transactions_order_idx');
  });

  it('low elements: one backward step on (tree, value) per address', async () => {
    const plan = await explain(t.db, lowElementsQuery([{ tree: AMT1, value: synth('x') }, { tree: AMT1, value: synth('y') }]));
    expect(plan, plan).toMatch(/Index (Only )?Scan Backward using zk_indexed_elements_value_idx/);
    expect(plan, plan).not.toMatch(/\bSort\b/);
  });
  it('trimming the non-compression transactions (every ~1000 ingested): the partial index, no sort', async () => {
    const plan = await explain(t.db, pruneNonCompressionQuery(1000));
    expect(plan, plan).toContain('zk_transactions_non_compression_idx');
    expect(plan, plan).not.toMatch(/\bSort\b/);
    expect(plan, plan).not.toMatch(/Seq Scan on zk_/);
  });
});
