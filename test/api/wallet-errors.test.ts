/** Bad input and auth failures on every Wallet endpoint: clear 4xx in the `{error, code, details?}` format. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, revokeApiKey } from '../../src/store/keys.js';

const W = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
const SIG = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
});
afterAll(async () => ta?.close());

async function get(url: string, headers: Record<string, string> = {}) {
  const r = await ta.app.inject({ method: 'GET', url, headers: { 'x-api-key': ta.key, ...headers } });
  return { status: r.statusCode, body: r.json() as { error: string; code: number; details?: string } };
}

function expectError(r: { status: number; body: { error: string; code: number } }, status: number, re?: RegExp) {
  expect(r.status).toBe(status);
  expect(r.body.code).toBe(status);
  expect(typeof r.body.error).toBe('string');
  if (re) expect(r.body.error + ' ' + ((r.body as { details?: string }).details ?? '')).toMatch(re);
}

const ENDPOINTS = ['identity', 'balances', 'history', 'transfers', 'funded-by'];

describe('Wallet REST: bad input', () => {
  for (const ep of ENDPOINTS) {
    it(`${ep}: invalid address → 400`, async () => {
      expectError(await get(`/v1/wallet/not-an-address/${ep}`), 400, /Invalid wallet address/);
      // right alphabet, wrong length of the decoded key
      expectError(await get(`/v1/wallet/1111111111111111111111111111111/${ep}`), 400);
    });
  }
  for (const ep of ['balances', 'history', 'transfers']) {
    for (const limit of ['0', '101', 'x', '-1', '1.5']) {
      it(`${ep}: limit=${limit} → 400 naming the parameter`, async () => {
        expectError(await get(`/v1/wallet/${W}/${ep}?limit=${limit}`), 400, /limit/);
      });
    }
  }
  it('balances: page 0 and bad booleans → 400', async () => {
    expectError(await get(`/v1/wallet/${W}/balances?page=0`), 400, /page/);
    expectError(await get(`/v1/wallet/${W}/balances?showNative=maybe`), 400, /showNative/);
  });
  it('history: unknown and malformed cursors, both directions, bad enums → 400', async () => {
    expectError(await get(`/v1/wallet/${W}/history?before=${SIG}`), 400, /Unknown before cursor/);
    expectError(await get(`/v1/wallet/${W}/history?after=abc`), 400, /Invalid after cursor/);
    expectError(await get(`/v1/wallet/${W}/history?before=${SIG}&after=${SIG}`), 400, /either before or after/);
    expectError(await get(`/v1/wallet/${W}/history?tokenAccounts=some`), 400, /tokenAccounts/);
    expectError(await get(`/v1/wallet/${W}/history?type=NOPE`), 400, /type/);
    expectError(await get(`/v1/wallet/${W}/history?type=UNKNOWN`), 400, /type/);
    // A listed type is a filter (no longer "not supported"): an unknown wallet has no such transactions.
    const swap = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${W}/history?type=SWAP`, headers: { 'x-api-key': ta.key } });
    expect(swap.statusCode).toBe(200);
    expect(swap.json()).toEqual({ data: [], pagination: { hasMore: false, nextCursor: null } });
  });
  it('transfers: garbage cursor → 400', async () => {
    expectError(await get(`/v1/wallet/${W}/transfers?cursor=zzz`), 400, /Invalid cursor/);
    expectError(await get(`/v1/wallet/${W}/transfers?cursor=${Buffer.from('1.2.x.3.i').toString('base64url')}`), 400, /Invalid cursor/);
  });
  it('funded-by and identity of unknown wallets → 404', async () => {
    expectError(await get(`/v1/wallet/${W}/funded-by`), 404, /No funding transaction found/);
    expectError(await get(`/v1/wallet/${W}/identity`), 404, /identity not found/);
  });
  it('batch-identity: 101 entries, empty list, bad JSON, wrong types, bad entries → 400', async () => {
    const post = async (payload: string, headers: Record<string, string> = {}) => {
      const r = await ta.app.inject({ method: 'POST', url: '/v1/wallet/batch-identity', payload, headers: { 'x-api-key': ta.key, 'content-type': 'application/json', ...headers } });
      return { status: r.statusCode, body: r.json() as { error: string; code: number } };
    };
    expectError(await post(JSON.stringify({ addresses: Array(101).fill(W) })), 400, /Too many addresses/);
    expectError(await post(JSON.stringify({ addresses: [] })), 400, /empty/);
    expectError(await post('{"addresses": [', {}), 400, /Invalid JSON/);
    expectError(await post(JSON.stringify({ addresses: 'x' })), 400, /addresses/);
    expectError(await post(JSON.stringify({})), 400, /addresses/);
    expectError(await post(JSON.stringify({ addresses: ['not valid!'] })), 400, /not a valid Solana address/);
    const ok = await post(JSON.stringify({ addresses: [W] }));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([]);
  });
  it('unknown route → 404 in the same format', async () => {
    expectError(await get('/v1/wallet/x/unknown'), 404);
  });
});

describe('Wallet REST: keys', () => {
  it('missing key → 401 with the documented message; wrong key → 401', async () => {
    const r = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${W}/balances` });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toEqual({ error: 'API key required. Pass via ?api-key=xxx or X-Api-Key header', code: 401 });
    const bad = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${W}/balances`, headers: { 'x-api-key': `${ta.key.slice(0, -1)}${ta.key.endsWith('A') ? 'B' : 'A'}` } });
    expect(bad.statusCode).toBe(401);
    const stray = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${W}/balances`, headers: { 'x-api-key': `${ta.key}%` } });
    expect(stray.statusCode).toBe(401);
  });
  it('key in the query string works too', async () => {
    const r = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${W}/balances?api-key=${ta.key}` });
    expect(r.statusCode).toBe(200);
  });
  it('revoked key → 401; expired key → 401', async () => {
    const { key, record } = await createApiKey(ta.t.db, { name: 'tmp' });
    expect((await get(`/v1/wallet/${W}/balances`, { 'x-api-key': key })).status).toBe(200);
    await revokeApiKey(ta.t.db, record.id);
    expectError(await get(`/v1/wallet/${W}/balances`, { 'x-api-key': key }), 401, /revoked/);
    const exp = await createApiKey(ta.t.db, { name: 'old', expiresAt: new Date(Date.now() - 1000) });
    expectError(await get(`/v1/wallet/${W}/balances`, { 'x-api-key': exp.key }), 401, /expired/);
  });
  it('IP allow-lists: IPv4 CIDR, IPv6, IPv4-mapped IPv6 → 200 inside, 403 outside', async () => {
    const v4 = await createApiKey(ta.t.db, { name: 'v4', allowedIps: ['10.1.0.0/16'] });
    const v6 = await createApiKey(ta.t.db, { name: 'v6', allowedIps: ['2001:db8::/32'] });
    const call = (key: string, ip: string) =>
      ta.app.inject({ method: 'GET', url: `/v1/wallet/${W}/balances`, headers: { 'x-api-key': key }, remoteAddress: ip });
    expect((await call(v4.key, '10.1.2.3')).statusCode).toBe(200);
    expect((await call(v4.key, '::ffff:10.1.2.3')).statusCode).toBe(200);
    const denied = await call(v4.key, '10.2.0.1');
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe(403);
    expect((await call(v6.key, '2001:db8::5')).statusCode).toBe(200);
    expect((await call(v6.key, '2001:db9::5')).statusCode).toBe(403);
    expect((await call(v6.key, '10.1.2.3')).statusCode).toBe(403);
  });
  it('keys are stored only as hashes', async () => {
    const { rows } = await ta.t.db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys');
    for (const r of rows) {
      expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.key_hash).not.toContain(ta.key);
    }
  });
});

describe('JSON-RPC envelope', () => {
  it('no key → HTTP 401 with a JSON-RPC error in the REST wording; a wrong key → "invalid api key provided"', async () => {
    const r = await ta.app.inject({ method: 'POST', url: '/', payload: { jsonrpc: '2.0', id: 'a', method: 'getIndexerSlot' } });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toEqual({ jsonrpc: '2.0', error: { code: -32401, message: 'API key required. Pass via ?api-key=xxx or X-Api-Key header' }, id: 'a' });
    const wrong = await ta.app.inject({ method: 'POST', url: '/?api-key=not-a-key', payload: { jsonrpc: '2.0', id: 'b', method: 'getIndexerSlot' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ jsonrpc: '2.0', error: { code: -32401, message: 'invalid api key provided' }, id: 'b' });
  });
  it('valid key → result; unknown method → -32601; bad envelope → -32600; bad JSON → -32700', async () => {
    const call = (payload: unknown) => ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: payload as object });
    const ok = await call({ jsonrpc: '2.0', id: 1, method: 'getIndexerSlot' });
    expect(ok.json()).toEqual({ jsonrpc: '2.0', result: 0, id: 1 });
    expect((await call({ jsonrpc: '2.0', id: 2, method: 'nope' })).json().error.code).toBe(-32601);
    expect((await call({ jsonrpc: '1.0', id: 3, method: 'getIndexerSlot' })).json().error.code).toBe(-32600);
    const batch = await call([{ jsonrpc: '2.0', id: 1, method: 'getIndexerSlot' }, { jsonrpc: '2.0', id: 2, method: 'x' }]);
    expect(batch.json().map((x: { id: number }) => x.id)).toEqual([1, 2]);
    const bad = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: '{"jsonrpc":', headers: { 'content-type': 'application/json' } });
    expect(bad.statusCode).toBeLessThan(500);
    expect(bad.json().error.code).toBe(-32700);
  });
});
