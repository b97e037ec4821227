/** getNftEditions / getTokenAccounts in the Helius dialect and across pages, on the reference cases' inputs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { resetChainTables } from '../helpers/db.js';
import { applyInputs, callRpc, loadCases } from './harness.js';

let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
});
afterAll(async () => ta?.close());

async function seed(id: string): Promise<void> {
  await resetChainTables(ta.t.db);
  await applyInputs(ta, loadCases().find((c) => c.id === id)!.inputs);
}

describe('DAS lists', () => {
  it('getNftEditions with Helius names answers with Helius item names; pages', async () => {
    await seed('get_nft_editions');
    const mint = 'Ey2Qb8kLctbchQsMnhZs5DjY32To2QtPuXNwWvk4NosL';
    const r = (await callRpc(ta, 'getNftEditions', { mint, page: 2, limit: 1 })).result as Record<string, unknown>;
    expect(r).toEqual({
      total: 1, limit: 1, page: 2, master_edition_address: '8SHfqzJYABeGfiG1apwiEYt6TvfGQiL1pdwEjvTKsyiZ', supply: 60, max_supply: 69,
      editions: [{ mint: '9yQecKKYSHxez7fFjJkUvkz42TLmkoXzhyZxEf2pw8pz', edition_address: 'giWoA4jqHFkodPJgtbRYRcYtiXbsVytnxnEao3QT2gg', edition: 2 }],
    });
  });
  it('getTokenAccounts: owner filter, zero balances hidden by default, cursor/after paging by address', async () => {
    await seed('show_zero_balance_filter_being_enabled');
    const owner = '2oerfxddTpK5hWAmCMYB6fr9WvNrjEH54CHCWK8sAq7g';
    const plain = (await callRpc(ta, 'getTokenAccounts', { owner })).result as { token_accounts: { address: string }[] };
    expect(plain.token_accounts.map((t) => t.address)).toEqual(['CyqarC6hyNYvb3EDueyeYrnGeAUjCDtMvWrbtdAnA53a']);
    const p1 = (await callRpc(ta, 'getTokenAccounts', { owner, limit: 1, options: { showZeroBalance: true } })).result as { cursor: string; token_accounts: { address: string }[] };
    expect(p1.cursor).toBe('BE1CkzRjLTXAWcSVCaqzycwXsZ18Yuk3jMDMnPUoHjjS');
    const p2 = (await callRpc(ta, 'getTokenAccounts', { owner, limit: 1, cursor: p1.cursor, options: { showZeroBalance: true } })).result as { token_accounts: { address: string }[] };
    expect(p2.token_accounts.map((t) => t.address)).toEqual(['CyqarC6hyNYvb3EDueyeYrnGeAUjCDtMvWrbtdAnA53a']);
    const before = (await callRpc(ta, 'getTokenAccounts', { owner, before: 'CyqarC6hyNYvb3EDueyeYrnGeAUjCDtMvWrbtdAnA53a', displayOptions: { showZeroBalance: true } })).result as Record<string, unknown>;
    expect(before).toMatchObject({ total: 1, before: 'CyqarC6hyNYvb3EDueyeYrnGeAUjCDtMvWrbtdAnA53a' });
    const byMint = (await callRpc(ta, 'getTokenAccounts', { mint: '7Y5WQ2e3FummR2DebrqP8caC64QvXzpnhSTNWjNabxWn' })).result as { token_accounts: { owner: string }[] };
    expect(byMint.token_accounts.map((t) => t.owner)).toEqual([owner]);
  });
});
