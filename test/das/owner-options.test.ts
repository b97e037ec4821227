/**
 * getAssetsByOwner / searchAssets display options that depend on the owner: `showNativeBalance` (the owner's
 * indexed lamports valued at the registry's SOL price) and `showZeroBalance` (fungible holdings whose token
 * account is empty), on the reference's recorded owner-with-fungible case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, callRpc, expectedOf, loadCases } from './harness.js';
import { writeSolBalances } from '../../src/store/tokens.js';

const CASE = loadCases().find((c) => c.id === 'get_asset_by_owner_with_show_fungible')!;
const OWNER = (CASE.params as { ownerAddress: string }).ownerAddress;
const WSOL = 'So11111111111111111111111111111111111111112';

type List = { items: { id: string; token_info?: { balance: number } }[]; nativeBalance?: unknown };

describe('owner display options', () => {
  let ta: TestApp;
  beforeAll(async () => {
    ta = await createTestApp();
    await applyInputs(ta, CASE.inputs);
  });
  afterAll(async () => ta?.close());

  it('showNativeBalance: lamports of the owner, priced at the registry SOL price; absent without the option', async () => {
    const lamports = 2_500_000_000n;
    await writeSolBalances(ta.t.db, [{ address: OWNER, lamports, pos: 1 }]);
    ta.tokens.set(WSOL, { symbol: 'SOL', name: 'Wrapped SOL', priceUsd: 150 });
    for (const [method, params] of [
      ['getAssetsByOwner', { ownerAddress: OWNER, options: { showFungible: true, showNativeBalance: true } }],
      ['searchAssets', { ownerAddress: OWNER, options: { showNativeBalance: true } }],
    ] as const) {
      const r = (await callRpc(ta, method, params)).result as List;
      expect(r.nativeBalance, method).toEqual({ lamports: 2_500_000_000, price_per_sol: 150, total_price: 375 });
    }
    const plain = (await callRpc(ta, 'getAssetsByOwner', { ownerAddress: OWNER, options: { showFungible: true } })).result as List;
    expect(plain).not.toHaveProperty('nativeBalance');
  });

  it('showZeroBalance: an emptied fungible holding is listed (balance 0) only with the option', async () => {
    // The reference's fungible-by-owner case: an owner holding one fungible token.
    const fcase = loadCases().find((c) => c.id === 'search_asset_with_token_type_fungible')!;
    const owner = (fcase.params as { ownerAddress: string }).ownerAddress;
    const fungible = (expectedOf(fcase) as { items: { id: string }[] }).items[0].id;
    await applyInputs(ta, fcase.inputs);
    const { rows } = await ta.t.db.query<{ address: string }>('SELECT address FROM token_accounts WHERE owner = $1 AND mint = $2', [owner, fungible]);
    expect(rows).toHaveLength(1);
    const byOwner = async (showZeroBalance: boolean) =>
      ((await callRpc(ta, 'getAssetsByOwner', { ownerAddress: owner, options: { showFungible: true, showZeroBalance } })).result as List).items;
    const search = async (showZeroBalance: boolean) =>
      ((await callRpc(ta, 'searchAssets', { ownerAddress: owner, tokenType: 'fungible', options: { showZeroBalance } })).result as List).items.map((i) => i.id);
    expect((await byOwner(false)).map((i) => i.id)).toContain(fungible);
    expect(await search(false)).toEqual([fungible]);
    // The account is emptied (as transferring everything out leaves it).
    await ta.t.db.query('UPDATE token_accounts SET amount = 0 WHERE address = $1', [rows[0].address]);
    expect((await byOwner(false)).map((i) => i.id)).not.toContain(fungible);
    expect(await search(false)).toEqual([]);
    expect((await byOwner(true)).find((i) => i.id === fungible)?.token_info?.balance).toBe(0);
    expect(await search(true)).toEqual([fungible]);
  });
});
