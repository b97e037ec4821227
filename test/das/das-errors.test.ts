/** DAS parameter errors: the reference's codes and messages (compat-facts §2.6), never a 500. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { callRpc } from './harness.js';

const ID = 'CMVuYDS9nTeujfTPJb8ik7CRhAqZv4DfjfdamFLkJgxE';
let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
});
afterAll(async () => ta?.close());

describe('DAS errors', () => {
  it('getAsset: bad pubkey → -32000 Pubkey Validation Err; unknown asset → -32000 not found', async () => {
    expect((await callRpc(ta, 'getAsset', { id: 'nope' })).error).toEqual({ code: -32000, message: 'Pubkey Validation Err: nope is invalid' });
    expect((await callRpc(ta, 'getAsset', { id: ID })).error).toEqual({ code: -32000, message: 'Database Error: RecordNotFound Error: Asset Not Found' });
  });
  it('unknown fields, wrong types, missing id, bad options → -32602', async () => {
    for (const params of [{ id: ID, extra: 1 }, { id: 5 }, {}, { id: ID, options: { showFungible: 'yes' } }, { id: ID, options: { nope: true } }, [ID]]) {
      const r = await callRpc(ta, 'getAsset', params);
      expect(r.error?.code, JSON.stringify(params)).toBe(-32602);
    }
  });
  it('getAssetBatch and its aliases: over 1000 ids → batch size error; bad id → pubkey error; missing → null', async () => {
    const many = Array(1001).fill(ID);
    expect((await callRpc(ta, 'getAssetBatch', { ids: many })).error).toEqual({ code: -32000, message: 'Batch Size Error. Batch size should not be greater than 1000.' });
    expect((await callRpc(ta, 'getAssets', { ids: [ID, 'x'] })).error?.message).toBe('Pubkey Validation Err: x is invalid');
    expect((await callRpc(ta, 'get_asset_batch', { ids: [ID, ID] })).result).toEqual([null]);
    expect((await callRpc(ta, 'getAssetBatch', { ids: ID })).error?.code).toBe(-32602);
  });
  it('options and displayOptions are both accepted, not together', async () => {
    expect((await callRpc(ta, 'getAssetBatch', { ids: [ID], displayOptions: { showFungible: true } })).result).toEqual([null]);
    expect((await callRpc(ta, 'getAssetBatch', { ids: [ID], options: { showUnverifiedCollections: true } })).result).toEqual([null]);
    expect((await callRpc(ta, 'getAssetBatch', { ids: [ID], options: {}, displayOptions: {} })).error?.code).toBe(-32602);
  });
});

describe('DAS methods under hostile params', () => {
  const METHODS = ['getAsset', 'getAssetBatch', 'getAssetProof', 'getAssetProofBatch', 'getAssetsByOwner', 'getAssetsByGroup', 'getAssetsByCreator',
    'getAssetsByAuthority', 'searchAssets', 'getSignaturesForAsset', 'getTokenAccounts', 'getNftEditions', 'getGrouping'];
  const KEYS = ['id', 'ids', 'ownerAddress', 'groupKey', 'groupValue', 'creatorAddress', 'authorityAddress', 'owner', 'mint', 'page', 'limit', 'before', 'after',
    'cursor', 'sortBy', 'options', 'grouping', 'negate', 'conditionType', 'tokenType', 'supply', 'name', 'jsonUri', 'royaltyAmount', 'onlyVerified'];
  let deep: unknown = ID;
  for (let i = 0; i < 200; i++) deep = [deep];
  const VALUES: unknown[] = [null, true, -1, 1.5, 2 ** 64, 1e308, '', "' OR 1=1; DROP TABLE das_assets; --", '%_\\', 'ü'.repeat(5000), ID, [ID, 5], { sortBy: 'id', sortDirection: 'asc', x: 1 },
    { sortBy: { $ne: 1 } }, ['collection', ID], deep, [], {}];

  it('answer every combination with a result or a -32602/-32000 error, never an internal error', async () => {
    let calls = 0;
    for (const method of METHODS) for (const key of KEYS) for (const value of VALUES) {
      const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method, params: { [key]: value } } });
      calls++;
      expect(r.statusCode, `${method} ${key}=${JSON.stringify(value)?.slice(0, 80)}`).toBeLessThan(500);
      const body = r.json() as { result?: unknown; error?: { code: number } };
      if (body.error) expect([-32602, -32000, -32600], `${method} ${key}`).toContain(body.error.code);
    }
    expect(calls).toBe(METHODS.length * KEYS.length * VALUES.length);
    // The tables are all still there.
    expect((await callRpc(ta, 'getAssetsByOwner', { ownerAddress: ID })).result).toMatchObject({ total: 0, items: [] });
  }, 120_000);
});
