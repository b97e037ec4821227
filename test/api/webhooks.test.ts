/**
 * Webhook management `/v0/webhooks` through `inject`: every route, every validation error, partial edits, the
 * toggle, per-key scoping (another key's webhook is a 404), auth, and the plan's webhook count limit.
 */
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey } from '../../src/store/keys.js';
import { webhookLimit } from '../../src/api/rest/webhooks.js';

const A1 = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
const A2 = '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY';
const A3 = 'So11111111111111111111111111111111111111112';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

type Json = Record<string, unknown>;

let ta: TestApp;
let other: string;
beforeAll(async () => {
  ta = await createTestApp();
  other = (await createApiKey(ta.t.db, { name: 'other' })).key;
});
afterAll(async () => ta?.close());

async function call(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, key: string | null = ta.key, app = ta.app) {
  const r = await app.inject({
    method,
    url: key === null ? url : `${url}${url.includes('?') ? '&' : '?'}api-key=${key}`,
    ...(body !== undefined ? { payload: body as Json } : {}),
  });
  return { status: r.statusCode, body: r.body ? (r.json() as Json & { error?: string; code?: number; details?: string }) : {} };
}

function expectError(r: { status: number; body: Json }, status: number, re?: RegExp) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.code).toBe(status);
  expect(typeof r.body.error).toBe('string');
  if (re) expect(`${r.body.error as string} ${(r.body.details as string | undefined) ?? ''}`).toMatch(re);
}

const valid = (over: Json = {}): Json => ({
  webhookURL: 'https://example.com/hook',
  transactionTypes: ['NFT_SALE'],
  accountAddresses: [A1],
  webhookType: 'enhanced',
  ...over,
});

const randomAddress = () => bs58.encode(randomBytes(32));

describe('/v0/webhooks: routes', () => {
  it('create → get → list → edit → toggle → delete', async () => {
    const c = await call('POST', '/v0/webhooks', valid({ authHeader: 'Bearer s3cret', txnStatus: 'success', encoding: 'json' }));
    expect(c.status).toBe(200);
    const id = c.body.webhookID as string;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(c.body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const { signingSecret: _s, ...wire } = c.body;
    expect(wire).toEqual({
      webhookID: id,
      wallet: expect.any(String),
      project: 'test',
      webhookURL: 'https://example.com/hook',
      transactionTypes: ['NFT_SALE'],
      accountAddresses: [A1],
      webhookType: 'enhanced',
      authHeader: 'Bearer s3cret',
      txnStatus: 'success',
      encoding: 'json',
      active: true,
      deactivatedReason: null,
      deactivatedAt: null,
    });

    const g = await call('GET', `/v0/webhooks/${id}`);
    expect(g.status).toBe(200);
    expect(g.body).toEqual(wire);
    expect(g.body.signingSecret).toBeUndefined();

    const l = await call('GET', '/v0/webhooks');
    expect(l.status).toBe(200);
    expect(l.body).toEqual(expect.arrayContaining([wire]));

    // Partial PUT: only the URL and the types change; everything else is kept.
    const e = await call('PUT', `/v0/webhooks/${id}`, { webhookURL: 'https://example.org/other', transactionTypes: ['ANY'] });
    expect(e.status).toBe(200);
    expect(e.body).toEqual({ ...wire, webhookURL: 'https://example.org/other', transactionTypes: ['ANY'] });

    // PUT with the object read back (unknown fields such as webhookID/wallet are ignored), new addresses.
    const e2 = await call('PUT', `/v0/webhooks/${id}`, { ...e.body, accountAddresses: [A2, A3], authHeader: null });
    expect(e2.status).toBe(200);
    expect(e2.body).toEqual({ ...e.body, accountAddresses: [A2, A3], authHeader: '' });

    const t = await call('PATCH', `/v0/webhooks/${id}`, { active: false });
    expect(t.status).toBe(200);
    expect(t.body).toEqual({ ...e2.body, active: false });
    expect((await call('GET', `/v0/webhooks/${id}`)).body.active).toBe(false);
    expect((await call('PATCH', `/v0/webhooks/${id}`, { active: true })).body.active).toBe(true);

    const d = await call('DELETE', `/v0/webhooks/${id}`);
    expect(d.status).toBe(200);
    expectError(await call('GET', `/v0/webhooks/${id}`), 404, /Webhook not found/);
    expectError(await call('DELETE', `/v0/webhooks/${id}`), 404);
    expect(((await call('GET', '/v0/webhooks')).body as unknown as Json[]).some((w) => w.webhookID === id)).toBe(false);
  });

  it('defaults: enhanced, txnStatus all, encoding jsonParsed, active, no auth header; X-Api-Key header works', async () => {
    const r = await ta.app.inject({
      method: 'POST',
      url: '/v0/webhooks',
      headers: { 'x-api-key': ta.key },
      payload: { webhookURL: 'https://example.com/d', transactionTypes: ['any'], accountAddresses: [A1] },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ webhookType: 'enhanced', transactionTypes: ['ANY'], txnStatus: 'all', encoding: 'jsonParsed', active: true, authHeader: '' });
    await call('DELETE', `/v0/webhooks/${(r.json() as Json).webhookID as string}`);
  });

  it('raw webhooks take no types or ANY; switching a raw webhook to enhanced needs types', async () => {
    const raw = await call('POST', '/v0/webhooks', valid({ webhookType: 'raw', transactionTypes: [] }));
    expect(raw.status).toBe(200);
    expect(raw.body.transactionTypes).toEqual([]);
    const id = raw.body.webhookID as string;
    expectError(await call('PUT', `/v0/webhooks/${id}`, { webhookType: 'enhanced' }), 400, /at least one transaction type/);
    const e = await call('PUT', `/v0/webhooks/${id}`, { webhookType: 'enhancedDevnet', transactionTypes: ['SWAP', 'SWAP', 'TRANSFER'] });
    expect(e.status).toBe(200);
    expect(e.body).toMatchObject({ webhookType: 'enhancedDevnet', transactionTypes: ['SWAP', 'TRANSFER'] });
    // Back to raw without types: the enhanced types are dropped rather than rejected.
    const r2 = await call('PUT', `/v0/webhooks/${id}`, { webhookType: 'rawDevnet' });
    expect(r2.status).toBe(200);
    expect(r2.body.transactionTypes).toEqual([]);
    const anyRaw = await call('POST', '/v0/webhooks', valid({ webhookType: 'raw', transactionTypes: ['ANY'] }));
    expect(anyRaw.status).toBe(200);
    const disc = await call('POST', '/v0/webhooks', valid({ webhookType: 'discord', transactionTypes: ['NFT_SALE'] }));
    expect(disc.status).toBe(200);
    for (const w of [id, anyRaw.body.webhookID, disc.body.webhookID]) await call('DELETE', `/v0/webhooks/${w as string}`);
  });

  it('account addresses are deduplicated, order kept', async () => {
    const r = await call('POST', '/v0/webhooks', valid({ accountAddresses: [A2, A1, A2, A3, A1] }));
    expect(r.status).toBe(200);
    expect(r.body.accountAddresses).toEqual([A2, A1, A3]);
    const id = r.body.webhookID as string;
    expect((await call('GET', `/v0/webhooks/${id}`)).body.accountAddresses).toEqual([A2, A1, A3]);
    const e = await call('PUT', `/v0/webhooks/${id}`, { accountAddresses: [A3, A3, A2] });
    expect(e.body.accountAddresses).toEqual([A3, A2]);
    const { rows } = await ta.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_addresses WHERE webhook_id = $1', [id]);
    expect(rows[0].n).toBe(2);
    await call('DELETE', `/v0/webhooks/${id}`);
  });

  it('100,000 addresses are accepted; 100,001 are not', async () => {
    const many = Array.from({ length: 100_000 }, randomAddress);
    const ok = await call('POST', '/v0/webhooks', valid({ accountAddresses: many }));
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200);
    expect((ok.body.accountAddresses as string[]).length).toBe(100_000);
    const id = ok.body.webhookID as string;
    // A toggle of a large webhook does not rewrite its addresses and still answers them all.
    const t = await call('PATCH', `/v0/webhooks/${id}`, { active: false });
    expect((t.body.accountAddresses as string[]).length).toBe(100_000);
    expectError(await call('POST', '/v0/webhooks', valid({ accountAddresses: [...many, randomAddress()] })), 400, /at most 100000 addresses per webhook, got 100001/);
    expectError(await call('PUT', `/v0/webhooks/${id}`, { accountAddresses: [...many, randomAddress()] }), 400, /Too many accountAddresses/);
    await call('DELETE', `/v0/webhooks/${id}`);
  });
});

describe('/v0/webhooks: validation (400)', () => {
  const cases: [string, Json, RegExp][] = [
    ['missing webhookURL', { ...valid(), webhookURL: undefined }, /Missing required body parameter 'webhookURL'/],
    ['missing accountAddresses', { ...valid(), accountAddresses: undefined }, /Missing required body parameter 'accountAddresses'/],
    ['not a URL', valid({ webhookURL: 'not a url' }), /Invalid webhookURL.*not an absolute URL/],
    ['relative URL', valid({ webhookURL: '/hook' }), /Invalid webhookURL/],
    ['ftp URL', valid({ webhookURL: 'ftp://example.com/x' }), /must use https, got ftp/],
    // Refusals an operator can lift name the variable that lifts them.
    ['http without the operator flag', valid({ webhookURL: 'http://example.com/hook' }), /must use https.*SOLGATE_WEBHOOKS_ALLOW_HTTP=true/],
    ['localhost', valid({ webhookURL: 'https://localhost:3000/hook' }), /localhost is not allowed.*SOLGATE_WEBHOOKS_ALLOW_PRIVATE=true/],
    ['loopback address', valid({ webhookURL: 'https://127.0.0.1/hook' }), /public address; 127\.0\.0\.1.*SOLGATE_WEBHOOKS_ALLOW_PRIVATE=true/],
    ['private address', valid({ webhookURL: 'https://10.1.2.3/hook' }), /public address.*SOLGATE_WEBHOOKS_ALLOW_PRIVATE=true/],
    ['IPv6 loopback', valid({ webhookURL: 'https://[::1]/hook' }), /public address/],
    ['metadata address', valid({ webhookURL: 'https://169.254.169.254/latest' }), /public address/],
    ['too long URL', valid({ webhookURL: `https://example.com/${'a'.repeat(2100)}` }), /at most 2048 characters/],
    ['bad webhookType', valid({ webhookType: 'fancy' }), /Invalid webhookType.*'fancy' is not one of enhanced, raw, discord/],
    ['bad txnStatus', valid({ txnStatus: 'pending' }), /Invalid txnStatus.*all, success, failed/],
    ['bad encoding', valid({ encoding: 'xml' }), /Invalid encoding/],
    ['unknown transaction type', valid({ transactionTypes: ['NFT_SALE', 'NOT_A_TYPE'] }), /'NOT_A_TYPE' at transactionTypes\[1\] is not a known transaction type/],
    ['no types on an enhanced webhook', valid({ transactionTypes: [] }), /at least one transaction type \(ANY matches all\)/],
    ['no types field on an enhanced webhook', { ...valid(), transactionTypes: undefined }, /at least one transaction type/],
    ['specific types on a raw webhook', valid({ webhookType: 'raw', transactionTypes: ['NFT_SALE'] }), /filter only enhanced and discord webhooks/],
    ['ANY plus a type on a raw webhook', valid({ webhookType: 'rawDevnet', transactionTypes: ['ANY', 'SWAP'] }), /filter only enhanced/],
    ['invalid base58 address', valid({ accountAddresses: [A1, 'not-base58-0OIl'] }), /'not-base58-0OIl' at accountAddresses\[1\] is not a valid Solana address/],
    ['base58 of the wrong length', valid({ accountAddresses: ['1111111111111111111111111111111'] }), /not a valid Solana address/],
    ['empty address list', valid({ accountAddresses: [] }), /at least one address/],
    ['addresses not an array', valid({ accountAddresses: A1 }), /accountAddresses.*must be array/],
    ['types not strings', valid({ transactionTypes: [{}] }), /transactionTypes/],
    ['multi-line authHeader', valid({ authHeader: 'Bearer x\r\nX-Evil: 1' }), /authHeader must be one line/],
    ['huge authHeader', valid({ authHeader: 'x'.repeat(5000) }), /at most 4096 characters/],
  ];
  for (const [name, body, re] of cases) {
    it(name, async () => {
      expectError(await call('POST', '/v0/webhooks', body), 400, re);
    });
  }

  it('edits are validated the same way, and a failed edit changes nothing', async () => {
    const c = await call('POST', '/v0/webhooks', valid());
    const id = c.body.webhookID as string;
    expectError(await call('PUT', `/v0/webhooks/${id}`, { webhookURL: 'http://example.com' }), 400, /https/);
    expectError(await call('PUT', `/v0/webhooks/${id}`, { webhookType: 'nope' }), 400, /webhookType/);
    expectError(await call('PUT', `/v0/webhooks/${id}`, { transactionTypes: ['BOGUS'] }), 400, /BOGUS/);
    expectError(await call('PUT', `/v0/webhooks/${id}`, { accountAddresses: ['xyz'] }), 400, /not a valid Solana address/);
    expectError(await call('PUT', `/v0/webhooks/${id}`, { txnStatus: 'maybe' }), 400, /txnStatus/);
    expectError(await call('PUT', `/v0/webhooks/${id}`, { active: 'perhaps' }), 400, /active/);
    const { signingSecret: _s, ...wire } = c.body;
    expect((await call('GET', `/v0/webhooks/${id}`)).body).toEqual(wire);
    await call('DELETE', `/v0/webhooks/${id}`);
  });

  it('toggle needs a boolean active', async () => {
    const c = await call('POST', '/v0/webhooks', valid());
    const id = c.body.webhookID as string;
    expectError(await call('PATCH', `/v0/webhooks/${id}`, {}), 400, /Missing required body parameter 'active'/);
    expectError(await call('PATCH', `/v0/webhooks/${id}`, { active: 'sometimes' }), 400, /active/);
    await call('DELETE', `/v0/webhooks/${id}`);
  });

  it('a malformed JSON body is a 400', async () => {
    const r = await ta.app.inject({ method: 'POST', url: `/v0/webhooks?api-key=${ta.key}`, headers: { 'content-type': 'application/json' }, payload: '{"webhookURL":' });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ code: 400, error: 'Invalid JSON body' });
  });
});

describe('/v0/webhooks: operator flags', () => {
  it('http and private targets are accepted when the operator allows them', async () => {
    const local = await createTestApp({ webhooks: { allowHttp: true, allowPrivate: true } });
    try {
      for (const url of ['http://localhost:3000/hook', 'http://127.0.0.1:8080/x', 'https://10.0.0.5/y', 'http://[::1]:9/z']) {
        const r = await call('POST', '/v0/webhooks', valid({ webhookURL: url }), local.key, local.app);
        expect(r.status, `${url}: ${JSON.stringify(r.body)}`).toBe(200);
        expect(r.body.webhookURL).toBe(url);
      }
      expectError(await call('POST', '/v0/webhooks', valid({ webhookURL: 'ftp://localhost/x' }), local.key, local.app), 400, /https/);
    } finally {
      await local.close();
    }
  });

  it('an edit to an http or private URL is refused naming the variable that allows it', async () => {
    const c = await call('POST', '/v0/webhooks', valid({ webhookURL: 'https://93.184.215.14/hook' }));
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const id = c.body.webhookID as string;
    expectError(await call('PUT', `/v0/webhooks/${id}`, { webhookURL: 'http://93.184.215.14/hook' }), 400, /Invalid webhookURL.*SOLGATE_WEBHOOKS_ALLOW_HTTP=true/);
    expectError(await call('PUT', `/v0/webhooks/${id}`, { webhookURL: 'https://192.168.1.20/hook' }), 400, /Invalid webhookURL.*SOLGATE_WEBHOOKS_ALLOW_PRIVATE=true/);
    await call('DELETE', `/v0/webhooks/${id}`);
  });

  it('a host name resolving to a private address is refused naming SOLGATE_WEBHOOKS_ALLOW_PRIVATE', async () => {
    const internal = await createTestApp({ webhooks: { lookupAll: async () => [{ address: '10.20.30.40', family: 4 }] } });
    try {
      const r = await call('POST', '/v0/webhooks', valid({ webhookURL: 'https://hooks.internal.example/x' }), internal.key, internal.app);
      expectError(r, 400, /hooks\.internal\.example resolves to 10\.20\.30\.40, which is not public.*SOLGATE_WEBHOOKS_ALLOW_PRIVATE=true/);
    } finally {
      await internal.close();
    }
  });

  it('http alone does not open private targets', async () => {
    const httpOnly = await createTestApp({ webhooks: { allowHttp: true } });
    try {
      expect((await call('POST', '/v0/webhooks', valid({ webhookURL: 'http://example.com/hook' }), httpOnly.key, httpOnly.app)).status).toBe(200);
      expectError(await call('POST', '/v0/webhooks', valid({ webhookURL: 'http://localhost/hook' }), httpOnly.key, httpOnly.app), 400, /localhost.*SOLGATE_WEBHOOKS_ALLOW_PRIVATE=true/);
    } finally {
      await httpOnly.close();
    }
  });
});

describe('/v0/webhooks: scope, auth, limits', () => {
  it("another key's webhook is 404 on every route, and its list does not show it", async () => {
    const c = await call('POST', '/v0/webhooks', valid());
    const id = c.body.webhookID as string;
    expectError(await call('GET', `/v0/webhooks/${id}`, undefined, other), 404, /Webhook not found/);
    expectError(await call('PUT', `/v0/webhooks/${id}`, { webhookURL: 'https://evil.example/' }, other), 404);
    expectError(await call('PATCH', `/v0/webhooks/${id}`, { active: false }, other), 404);
    expectError(await call('DELETE', `/v0/webhooks/${id}`, undefined, other), 404);
    expect((await call('GET', '/v0/webhooks', undefined, other)).body).toEqual([]);
    // untouched for its owner
    const g = await call('GET', `/v0/webhooks/${id}`);
    expect(g.body).toMatchObject({ webhookURL: 'https://example.com/hook', active: true });
    await call('DELETE', `/v0/webhooks/${id}`);
  });

  it('unknown and malformed ids are 404 on every route', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      expectError(await call('GET', `/v0/webhooks/${id}`), 404, /Webhook not found/);
      expectError(await call('PUT', `/v0/webhooks/${id}`, { webhookURL: 'https://example.com/' }), 404);
      expectError(await call('PATCH', `/v0/webhooks/${id}`, { active: true }), 404);
      expectError(await call('DELETE', `/v0/webhooks/${id}`), 404);
    }
  });

  it('401 without a key or with a wrong one, on every route', async () => {
    const routes: [('GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'), string, unknown][] = [
      ['GET', '/v0/webhooks', undefined],
      ['POST', '/v0/webhooks', valid()],
      ['GET', `/v0/webhooks/${UNKNOWN_ID}`, undefined],
      ['PUT', `/v0/webhooks/${UNKNOWN_ID}`, {}],
      ['PATCH', `/v0/webhooks/${UNKNOWN_ID}`, { active: true }],
      ['DELETE', `/v0/webhooks/${UNKNOWN_ID}`, undefined],
    ];
    for (const [m, url, body] of routes) {
      expectError(await call(m, url, body, null), 401, /API key required/);
      expectError(await call(m, url, body, 'sg_0000000000000000_' + 'A'.repeat(43)), 401, /Invalid API key/);
    }
  });

  it('documented plan limits (5 Free, 50 Developer/Business/Professional; unknown plans get Free)', () => {
    expect(webhookLimit('free')).toBe(5);
    expect(webhookLimit('developer')).toBe(50);
    expect(webhookLimit('Business')).toBe(50);
    expect(webhookLimit('professional')).toBe(50);
    expect(webhookLimit('mystery')).toBe(5);
  });

  it('a Free key gets 403 at its sixth webhook, and may create again after a delete', async () => {
    const free = (await createApiKey(ta.t.db, { name: 'free', plan: 'free' })).key;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call('POST', '/v0/webhooks', valid({ webhookURL: `https://example.com/${i}` }), free);
      expect(r.status).toBe(200);
      ids.push(r.body.webhookID as string);
    }
    expectError(await call('POST', '/v0/webhooks', valid(), free), 403, /Webhook limit reached.*free plan allows 5 webhooks/);
    expect(((await call('GET', '/v0/webhooks', undefined, free)).body as unknown as Json[]).map((w) => w.webhookID)).toEqual(ids);
    // Concurrent creates cannot pass the limit either.
    await call('DELETE', `/v0/webhooks/${ids[0]}`, undefined, free);
    const burst = await Promise.all(Array.from({ length: 4 }, () => call('POST', '/v0/webhooks', valid(), free)));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(1);
    expect(burst.filter((r) => r.status === 403)).toHaveLength(3);
    // Other keys are not affected by this key's count.
    const c = await call('POST', '/v0/webhooks', valid());
    expect(c.status).toBe(200);
    await call('DELETE', `/v0/webhooks/${c.body.webhookID as string}`);
  });

  it('a custom plan table replaces the defaults', async () => {
    const tiny = await createTestApp({ webhooks: { planLimits: { developer: 1 } } });
    try {
      expect((await call('POST', '/v0/webhooks', valid(), tiny.key, tiny.app)).status).toBe(200);
      expectError(await call('POST', '/v0/webhooks', valid(), tiny.key, tiny.app), 403, /developer plan allows 1 webhooks/);
    } finally {
      await tiny.close();
    }
  });
});

describe('/v0/webhooks: helius-sdk v3 webhook client', () => {
  // The SDK's webhook URLs are hard-coded (https://api-mainnet.helius-rpc.com/v0/webhooks); its fetch is routed to
  // the gateway here, so the SDK's own request and response handling runs unchanged.
  it('create, get, getAll, update, toggle, delete', async () => {
    const { createHelius } = await import('helius-sdk');
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const u = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      expect(u.host).toBe('api-mainnet.helius-rpc.com');
      const r = await ta.app.inject({
        method: (init?.method ?? 'GET') as 'GET',
        url: `${u.pathname}${u.search}`,
        headers: (init?.headers ?? {}) as Record<string, string>,
        ...(init?.body !== undefined ? { payload: init.body as string } : {}),
      });
      return new Response(r.statusCode === 204 ? null : r.body, { status: r.statusCode, headers: r.headers as Record<string, string> });
    }) as typeof fetch;
    try {
      const helius = createHelius({ apiKey: ta.key });
      const created = await helius.webhooks.create({ webhookURL: 'https://example.com/sdk', transactionTypes: ['ANY'], accountAddresses: [A1, A1, A2], webhookType: 'enhanced' });
      expect(created).toMatchObject({ webhookURL: 'https://example.com/sdk', accountAddresses: [A1, A2], active: true });
      const id = created.webhookID;
      expect((await helius.webhooks.get(id)).webhookID).toBe(id);
      expect((await helius.webhooks.getAll()).map((w: { webhookID: string }) => w.webhookID)).toContain(id);
      expect(await helius.webhooks.update(id, { transactionTypes: ['NFT_SALE'] })).toMatchObject({ transactionTypes: ['NFT_SALE'], accountAddresses: [A1, A2] });
      expect((await helius.webhooks.toggle(id, false)).active).toBe(false);
      expect(await helius.webhooks.delete(id)).toBe(true);
      await expect(helius.webhooks.get(id)).rejects.toThrow(/status: 404/);
      await expect(helius.webhooks.create({ webhookURL: 'http://example.com', transactionTypes: ['ANY'], accountAddresses: [A1] })).rejects.toThrow(/status: 400.*https/);
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
