/** DAS list pagination (compat-facts §2.4/§2.6): limits, page numbers, exclusive modes, keyset values. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePagination, pageKeys } from '../../src/api/das/pagination.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { callRpc } from './harness.js';

const A = 'CMVuYDS9nTeujfTPJb8ik7CRhAqZv4DfjfdamFLkJgxE';
const B = 'CeviT1DTQLuicEB7yLeFkkAGmam5GnJssbGb7CML4Tgx';
const ONE_MODE = 'Pagination Error. Only one pagination parameter supported per query.';

describe('parsePagination', () => {
  it('defaults to cursor mode with limit 1000', () => {
    expect(parsePagination({})).toEqual({ mode: 'cursor', limit: 1000 });
    expect(parsePagination({ limit: 5, page: 2 })).toEqual({ mode: 'page', limit: 5, page: 2 });
    expect(parsePagination({ before: A, after: B })).toEqual({ mode: 'keyset', limit: 1000, before: A, after: B });
    expect(parsePagination({ cursor: A, limit: 1000 })).toEqual({ mode: 'cursor', limit: 1000, cursor: A });
  });
  it('rejects limits over 1000, page 0 and mixed modes with the reference messages', () => {
    expect(() => parsePagination({ limit: 1001 })).toThrow('Pagination Error. Limit should not be greater than 1000.');
    expect(() => parsePagination({ page: 0 })).toThrow('Pagination Error. No Pagination Method Selected');
    expect(() => parsePagination({ page: 1, cursor: A })).toThrow(ONE_MODE);
    expect(() => parsePagination({ page: 1, before: A })).toThrow(ONE_MODE);
    expect(() => parsePagination({ cursor: A, after: B })).toThrow(ONE_MODE);
    expect(() => parsePagination({ cursor: 'x' })).toThrow('Cursor Validation Err: x is invalid');
    expect(() => parsePagination({ after: 'y' })).toThrow('Pubkey Validation Err: y is invalid');
    expect(() => parsePagination({ cursor: A }, { sortedById: false })).toThrow('Pagination Sorting Error. Only sorting based on id is supported for this pagination option.');
    for (const bad of [{ limit: -1 }, { limit: 1.5 }, { page: '1' }, { cursor: 5 }]) expect(() => parsePagination(bad)).toThrow('Invalid params');
  });
  it('page keys: page number, keyset bounds, or the last key as cursor', () => {
    expect(pageKeys({ mode: 'page', limit: 2, page: 3 }, [A])).toEqual({ page: 3 });
    expect(pageKeys({ mode: 'keyset', limit: 2, after: A }, [B])).toEqual({ after: A });
    expect(pageKeys({ mode: 'cursor', limit: 2 }, [A])).toEqual({ cursor: A });
    expect(pageKeys({ mode: 'cursor', limit: 2 }, [A], false)).toEqual({ cursor: null });
    expect(pageKeys({ mode: 'cursor', limit: 2 }, [A, B], false)).toEqual({ cursor: B });
  });
});

describe('list methods over JSON-RPC', () => {
  let ta: TestApp;
  beforeAll(async () => {
    ta = await createTestApp();
  });
  afterAll(async () => ta?.close());

  it('getTokenAccounts: pagination errors are -32000 with the reference messages', async () => {
    expect((await callRpc(ta, 'getTokenAccounts', { owner: A, limit: 1001 })).error).toEqual({ code: -32000, message: 'Pagination Error. Limit should not be greater than 1000.' });
    expect((await callRpc(ta, 'getTokenAccounts', { owner: A, page: 1, cursor: B })).error).toEqual({ code: -32000, message: ONE_MODE });
    expect((await callRpc(ta, 'getTokenAccounts', { owner: A, page: 0 })).error?.code).toBe(-32000);
    expect((await callRpc(ta, 'getTokenAccounts', { owner: 'bad' })).error).toEqual({ code: -32000, message: 'Pubkey Validation Err: bad is invalid' });
  });
  it('getTokenAccounts: both dialects, empty results, unknown fields and missing owner/mint', async () => {
    expect((await callRpc(ta, 'getTokenAccounts', { owner: A })).result).toEqual({ total: 0, limit: 1000, token_accounts: [], cursor: null, errors: [] });
    expect((await callRpc(ta, 'get_token_accounts', { mintAddress: A, page: 2, limit: 10 })).result).toEqual({ total: 0, limit: 10, page: 2, token_accounts: [], errors: [] });
    expect((await callRpc(ta, 'getTokenAccounts', { owner: A, ownerAddress: A })).error?.code).toBe(-32602);
    expect((await callRpc(ta, 'getTokenAccounts', { owner: A, sortBy: {} })).error?.code).toBe(-32602);
    expect((await callRpc(ta, 'getTokenAccounts', {})).error?.code).toBe(-32000);
  });
  it('getNftEditions: unknown master edition, bad params', async () => {
    expect((await callRpc(ta, 'getNftEditions', { mint: A })).error?.code).toBe(-32000);
    expect((await callRpc(ta, 'getNftEditions', { mintAddress: A, limit: 1001 })).error?.message).toBe('Pagination Error. Limit should not be greater than 1000.');
    expect((await callRpc(ta, 'getNftEditions', { mint: A, cursor: B })).error?.code).toBe(-32602);
    expect((await callRpc(ta, 'getNftEditions', {})).error?.code).toBe(-32602);
  });
});
