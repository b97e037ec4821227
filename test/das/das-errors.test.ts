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
