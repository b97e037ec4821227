/**
 * The HTTP interfaces at their edges, as browser apps and SDKs meet them:
 *  - CORS: preflights (no key) to JSON-RPC `/`, Wallet REST `/v1`, `/v0` and the Sender are answered so a browser
 *    lets the call through (checked with the Fetch standard's CORS check below, over a real socket too); actual
 *    answers, 401 and 429 included, carry the origin and expose the rate-limit headers; the admin API, the
 *    dashboard and the operations endpoints answer no cross-origin request; SOLGATE_CORS_ORIGINS lists or closes.
 *  - `Content-Type: application/json` with an empty body on DELETE / body-less POST is accepted (was a 400).
 *  - `/fast` and `/ping` without a Sender upstream: 503 naming the variables to set (was a 404).
 *  - JSON-RPC without a key: the REST wording ("API key required …"); a wrong key: "invalid api key provided".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey } from '../../src/store/keys.js';
import { createMeter } from '../../src/accounts/meter.js';
import { createUsageRecorder, type UsageRecorder } from '../../src/accounts/usage.js';
import { mergePlanTable } from '../../src/accounts/plans.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import type { SenderDeps } from '../../src/sender/routes.js';

const WALLET = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
const ASSET = '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY';
const ADMIN_TOKEN = 'edges-test-admin-token-0123456789';
const ORIGIN = 'https://wallet-app.example';
const KEY_REQUIRED = 'API key required. Pass via ?api-key=xxx or X-Api-Key header';

type Headers = Record<string, string | string[] | number | undefined>;
const h = (headers: Headers, name: string): string | undefined => {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v === undefined ? undefined : String(v);
};
const list = (v: string | undefined) => (v ?? '').split(',').map((x) => x.trim().toLowerCase()).filter(Boolean);

/** Request headers a browser sends without asking (CORS-safelisted), as the Fetch standard lists them. */
const SAFELISTED = new Set(['accept', 'accept-language', 'content-language']);
const SAFELISTED_RESPONSE = new Set(['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma']);

/**
 * The Fetch standard's CORS-preflight check (no credentials): what makes a browser send the actual request. Returns
 * the reasons it would refuse (empty = allowed).
 */
function preflightRefusals(res: { statusCode: number; headers: Headers }, origin: string, method: string, requestHeaders: string[]): string[] {
  const out: string[] = [];
  if (res.statusCode < 200 || res.statusCode > 299) out.push(`preflight status ${res.statusCode}`);
  const allowOrigin = h(res.headers, 'access-control-allow-origin');
  if (allowOrigin !== '*' && allowOrigin !== origin) out.push(`Access-Control-Allow-Origin ${allowOrigin}`);
  const methods = list(h(res.headers, 'access-control-allow-methods'));
  if (!['GET', 'HEAD', 'POST'].includes(method) && !methods.includes(method.toLowerCase()) && !methods.includes('*')) out.push(`method ${method} not allowed`);
  const allowed = list(h(res.headers, 'access-control-allow-headers'));
  for (const name of requestHeaders.map((x) => x.toLowerCase())) {
    if (SAFELISTED.has(name)) continue;
    // `*` never covers Authorization.
    if (allowed.includes(name) || (allowed.includes('*') && name !== 'authorization')) continue;
    out.push(`header ${name} not allowed`);
  }
  return out;
}

/** The response headers a page's script can read (Fetch standard: safelisted + Access-Control-Expose-Headers). */
function readable(res: { headers: Headers }, origin: string): Set<string> | null {
  const allowOrigin = h(res.headers, 'access-control-allow-origin');
  if (allowOrigin !== '*' && allowOrigin !== origin) return null; // the browser hides the whole answer
  const exposed = list(h(res.headers, 'access-control-expose-headers'));
  return new Set(Object.keys(res.headers).filter((k) => SAFELISTED_RESPONSE.has(k) || exposed.includes(k) || exposed.includes('*')));
}

/** What the clients send: fetch with a key header, @solana/kit's transport, helius-sdk, a tracing SDK. */
const CLIENT_HEADERS = ['content-type', 'x-api-key', 'authorization', 'solana-client', 'user-agent', 'x-helius-client', 'sentry-trace', 'baggage'];

let ta: TestApp;
let usage: UsageRecorder;
let tiny: string;

beforeAll(async () => {
  ta = await createTestApp((db) => {
    usage = createUsageRecorder(db, { flushMs: 60_000 });
    const plans = mergePlanTable({ plans: { tiny: { perSecond: { das: 1, wallet: 1, rpc: 1 }, burstFactor: 0, monthlyCredits: 1_000_000 } } });
    return {
      meter: createMeter({ db, plans, usage }),
      admin: { token: ADMIN_TOKEN },
      // A Sender whose router is never reached here (rate limit and admission come first).
      sender: { router: {} as SenderDeps['router'], policy: {} as SenderDeps['policy'], rateLimitPerSecond: 1 },
    };
  });
  tiny = (await createApiKey(ta.t.db, { name: 'tiny', plan: 'tiny' })).key;
});
afterAll(async () => {
  await usage?.close();
  await ta?.close();
});

const preflight = (url: string, method: string, headers: string[] = CLIENT_HEADERS, app = ta.app, origin = ORIGIN) =>
  app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers.join(',') } });

describe('CORS: preflights', () => {
  const cases: [string, string, string][] = [
    ['JSON-RPC', 'POST', '/'],
    ['JSON-RPC with ?api-key', 'POST', '/?api-key=whatever'],
    ['Wallet REST', 'GET', `/v1/wallet/${WALLET}/balances?api-key=x`],
    ['Wallet REST batch', 'POST', '/v1/wallet/batch-identity'],
    ['webhooks create', 'POST', '/v0/webhooks'],
    ['webhooks edit', 'PUT', '/v0/webhooks/00000000-0000-4000-8000-000000000000'],
    ['webhooks toggle', 'PATCH', '/v0/webhooks/00000000-0000-4000-8000-000000000000'],
    ['webhooks delete', 'DELETE', '/v0/webhooks/00000000-0000-4000-8000-000000000000'],
    ['token metadata', 'POST', '/v0/token-metadata'],
    ['enhanced transactions', 'POST', '/v0/transactions'],
    ['Sender', 'POST', '/fast?swqos_only=true'],
    ['Sender ping', 'GET', '/ping'],
    ['OpenAPI document', 'GET', '/docs/openapi.json'],
  ];
  for (const [name, method, url] of cases)
    it(`${name}: ${method} ${url.split('?')[0]} is allowed from a browser origin without a key`, async () => {
      const r = await preflight(url, method);
      expect(preflightRefusals(r, ORIGIN, method, CLIENT_HEADERS)).toEqual([]);
      expect(r.statusCode).toBe(204);
      expect(r.body).toBe('');
      expect(Number(h(r.headers, 'access-control-max-age'))).toBeGreaterThanOrEqual(600);
      // A preflight is never charged nor refused for its missing key.
      expect(h(r.headers, 'x-ratelimit-limit')).toBeUndefined();
    });

  it('an OPTIONS without the preflight headers is a 204 too, not an error', async () => {
    const r = await ta.app.inject({ method: 'OPTIONS', url: '/' });
    expect(r.statusCode).toBe(204);
  });

  it('over a real socket (what a browser talks to)', async () => {
    const address = await ta.app.listen({ port: 0, host: '127.0.0.1' });
    const r = await request(`${address}/v1/wallet/${WALLET}/balances`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    await r.body.text();
    const headers = r.headers as Headers;
    expect(preflightRefusals({ statusCode: r.statusCode, headers }, 'http://localhost:5173', 'GET', ['x-api-key'])).toEqual([]);
    // Safari waits for a body on a 204 without Content-Length: 0.
    expect(h(headers, 'content-length')).toBe('0');
  });
});

describe('CORS: actual answers carry the origin and expose the rate-limit headers', () => {
  const get = (url: string, headers: Record<string, string> = {}) => ta.app.inject({ method: 'GET', url, headers: { origin: ORIGIN, ...headers } });
  const post = (url: string, payload: unknown) => ta.app.inject({ method: 'POST', url, headers: { origin: ORIGIN }, payload: payload as object });
  const rpcCall = (key: string, id: number) => post(`/?api-key=${key}`, { jsonrpc: '2.0', id, method: 'getAsset', params: { id: ASSET } });

  it('200 on Wallet REST, with x-ratelimit-* readable', async () => {
    const r = await get(`/v1/wallet/${WALLET}/balances`, { 'x-api-key': ta.key });
    expect(r.statusCode).toBe(200);
    const seen = readable(r, ORIGIN);
    expect(seen).not.toBeNull();
    // The slot of the index the answer was read from, to pass as minContextSlot next, is readable too.
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-solgate-context-slot']) expect(seen!.has(name), name).toBe(true);
    expect(list(h(r.headers, 'access-control-expose-headers'))).toEqual(expect.arrayContaining(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'x-solgate-context-slot']));
  });

  it('401 without a key on Wallet REST, JSON-RPC and /v0 is readable by the page', async () => {
    const wallet = await get(`/v1/wallet/${WALLET}/balances`);
    expect(wallet.statusCode).toBe(401);
    expect(readable(wallet, ORIGIN)).not.toBeNull();
    expect(wallet.json()).toEqual({ error: KEY_REQUIRED, code: 401 });
    const rpc = await post('/', { jsonrpc: '2.0', id: 1, method: 'getAsset', params: { id: ASSET } });
    expect(rpc.statusCode).toBe(401);
    expect(readable(rpc, ORIGIN)).not.toBeNull();
    const hooks = await get('/v0/webhooks');
    expect(hooks.statusCode).toBe(401);
    expect(readable(hooks, ORIGIN)).not.toBeNull();
  });

  it('429 on JSON-RPC and Wallet REST: Retry-After and x-ratelimit-* readable', async () => {
    let last;
    for (let i = 0; i < 3 && last?.statusCode !== 429; i++) last = await rpcCall(tiny, i);
    expect(last!.statusCode).toBe(429);
    let seen = readable(last!, ORIGIN);
    expect(seen && [...seen].sort()).toEqual(expect.arrayContaining(['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']));
    let wallet;
    for (let i = 0; i < 3 && wallet?.statusCode !== 429; i++) wallet = await get(`/v1/wallet/${WALLET}/balances?api-key=${tiny}`);
    expect(wallet!.statusCode).toBe(429);
    seen = readable(wallet!, ORIGIN);
    expect(seen && [...seen]).toEqual(expect.arrayContaining(['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining']));
  });

  it('Sender: /ping, and /fast up to its 429', async () => {
    const ping = await get('/ping');
    expect(ping.statusCode).toBe(200);
    expect(ping.body).toBe('ok');
    expect(readable(ping, ORIGIN)).not.toBeNull();
    const statuses: number[] = [];
    let r;
    for (let i = 0; i < 3; i++) {
      r = await post('/fast', { jsonrpc: '2.0', id: i, method: 'sendTransaction', params: [] });
      statuses.push(r.statusCode);
      expect(readable(r, ORIGIN)).not.toBeNull();
    }
    expect(statuses).toContain(429);
    expect(readable(r!, ORIGIN)!.has('retry-after')).toBe(true);
  });

  it('404s under the keyed interfaces and the /docs documents carry it too', async () => {
    expect(readable(await get(`/v1/wallet/${WALLET}/nope`), ORIGIN)).not.toBeNull();
    expect(readable(await get('/docs/openapi.json'), ORIGIN)).not.toBeNull();
    expect(readable(await get('/docs/openrpc.json'), ORIGIN)).not.toBeNull();
  });
});

describe('CORS: the admin API, the dashboard and the operations endpoints stay same-origin', () => {
  for (const url of ['/admin/api/keys', '/admin/api/plans', '/dashboard', '/dashboard/assets/dashboard.js', '/health', '/metrics', '/%61dmin/api/keys'])
    it(url, async () => {
      const pre = await preflight(url, 'GET', ['authorization']);
      expect(pre.statusCode).toBe(404);
      expect(h(pre.headers, 'access-control-allow-origin')).toBeUndefined();
      expect(h(pre.headers, 'access-control-allow-methods')).toBeUndefined();
      const r = await ta.app.inject({ url, headers: { origin: ORIGIN, authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(r.statusCode, r.body).toBeLessThan(400);
      expect(h(r.headers, 'access-control-allow-origin')).toBeUndefined();
      expect(readable(r, ORIGIN)).toBeNull();
    });
});

describe('CORS: SOLGATE_CORS_ORIGINS', () => {
  let listed: TestApp;
  let closed: TestApp;
  beforeAll(async () => {
    const { corsOrigins } = loadConfig({ SOLGATE_CORS_ORIGINS: 'https://app.example.com, https://*.preview.example.com' });
    listed = await createTestApp({ corsOrigins });
    closed = await createTestApp({ corsOrigins: loadConfig({ SOLGATE_CORS_ORIGINS: 'none' }).corsOrigins });
  });
  afterAll(async () => {
    await listed?.close();
    await closed?.close();
  });

  it('a listed origin (or a subdomain of a *. entry) is allowed, with Vary: Origin; another is not', async () => {
    for (const origin of ['https://app.example.com', 'https://pr-12.preview.example.com', 'https://a.b.preview.example.com']) {
      const pre = await preflight('/', 'POST', ['content-type'], listed.app, origin);
      expect(preflightRefusals(pre, origin, 'POST', ['content-type']), origin).toEqual([]);
      const r = await listed.app.inject({ method: 'POST', url: `/?api-key=${listed.key}`, headers: { origin }, payload: { jsonrpc: '2.0', id: 1, method: 'getIndexerSlot' } });
      expect(r.statusCode).toBe(200);
      expect(h(r.headers, 'access-control-allow-origin')).toBe(origin);
      expect(list(h(r.headers, 'vary'))).toContain('origin');
    }
    for (const origin of ['https://evil.example', 'http://app.example.com', 'https://preview.example.com', 'https://app.example.com.evil.example']) {
      const pre = await preflight('/', 'POST', ['content-type'], listed.app, origin);
      expect(preflightRefusals(pre, origin, 'POST', ['content-type']), origin).not.toEqual([]);
      const r = await listed.app.inject({ url: `/v1/wallet/${WALLET}/balances?api-key=${listed.key}`, headers: { origin } });
      expect(readable(r, origin), origin).toBeNull();
    }
  });

  it('none: no CORS header anywhere, preflights are 404', async () => {
    const pre = await preflight('/', 'POST', ['content-type'], closed.app);
    expect(pre.statusCode).toBe(404);
    expect(h(pre.headers, 'access-control-allow-origin')).toBeUndefined();
    const r = await closed.app.inject({ url: `/v1/wallet/${WALLET}/balances?api-key=${closed.key}`, headers: { origin: ORIGIN } });
    expect(r.statusCode).toBe(200);
    expect(h(r.headers, 'access-control-allow-origin')).toBeUndefined();
  });

  it('the variable: default *, lists normalized, bad values refused naming it', () => {
    expect(loadConfig({}).corsOrigins).toBe('*');
    expect(loadConfig({ SOLGATE_CORS_ORIGINS: 'https://a.example, *' }).corsOrigins).toBe('*');
    expect(loadConfig({ SOLGATE_CORS_ORIGINS: 'none' }).corsOrigins).toEqual([]);
    expect(loadConfig({ SOLGATE_CORS_ORIGINS: 'https://App.Example.com/, http://localhost:3000,https://*.example.org' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
      'https://*.example.org',
    ]);
    for (const bad of ['app.example.com', 'https://app.example.com/path', 'ftp://files.example', 'https://app.example.com?x=1', 'https://user@app.example.com'])
      expect(() => loadConfig({ SOLGATE_CORS_ORIGINS: bad }), bad).toThrow(ConfigError);
    expect(() => loadConfig({ SOLGATE_CORS_ORIGINS: 'example.com' })).toThrow(/SOLGATE_CORS_ORIGINS/);
  });
});

describe('Content-Type: application/json with an empty body', () => {
  const json = { 'content-type': 'application/json' };

  it('DELETE /v0/webhooks/:id (as SDKs send it) deletes', async () => {
    const created = await ta.app.inject({
      method: 'POST',
      url: `/v0/webhooks?api-key=${ta.key}`,
      payload: { webhookURL: 'https://93.184.215.14/hook', webhookType: 'raw', transactionTypes: ['ANY'], accountAddresses: [WALLET] },
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().webhookID as string;
    const del = await ta.app.inject({ method: 'DELETE', url: `/v0/webhooks/${id}?api-key=${ta.key}`, headers: json, payload: '' });
    expect(del.statusCode, del.body).toBe(200);
    expect((await ta.app.inject({ url: `/v0/webhooks/${id}?api-key=${ta.key}` })).statusCode).toBe(404);
  });

  it('GET on Wallet REST, and a body-less admin POST (revoke)', async () => {
    const g = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${WALLET}/balances?api-key=${ta.key}`, headers: json, payload: '' });
    expect(g.statusCode, g.body).toBe(200);
    const made = await ta.app.inject({ method: 'POST', url: '/admin/api/keys', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { name: 'to revoke' } });
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json().record.id as string;
    const revoke = await ta.app.inject({ method: 'POST', url: `/admin/api/keys/${id}/revoke`, headers: { ...json, authorization: `Bearer ${ADMIN_TOKEN}` }, payload: '' });
    expect(revoke.statusCode, revoke.body).toBe(200);
  });

  it('a route that needs a body still says so in its own format; bad JSON and prototype keys are still refused', async () => {
    const create = await ta.app.inject({ method: 'POST', url: `/v0/webhooks?api-key=${ta.key}`, headers: json, payload: '' });
    expect(create.statusCode).toBe(400);
    expect(create.json()).toEqual({ code: 400, error: 'Invalid body: must be object' });
    const rpc = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, headers: json, payload: '' });
    expect(rpc.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
    const bad = await ta.app.inject({ method: 'DELETE', url: `/v0/webhooks/x?api-key=${ta.key}`, headers: json, payload: '{"a":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 400, error: 'Invalid JSON body' });
    const proto = await ta.app.inject({ method: 'POST', url: `/v0/webhooks?api-key=${ta.key}`, headers: json, payload: '{"__proto__":{"x":1}}' });
    expect(proto.statusCode).toBe(400);
    expect(proto.json()).toMatchObject({ code: 400, error: 'Invalid JSON body' });
  });
});

describe('Sender without an upstream', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await createTestApp();
  });
  afterAll(async () => bare?.close());

  it('/fast and /ping answer 503 naming the variables to set, in the Sender error format', async () => {
    for (const [method, url] of [['POST', '/fast'], ['POST', '/fast?swqos_only=true'], ['GET', '/ping'], ['HEAD', '/ping']] as const) {
      const r = await bare.app.inject({ method, url, headers: { origin: ORIGIN }, ...(method === 'POST' ? { payload: { jsonrpc: '2.0', id: 7, method: 'sendTransaction', params: [] } } : {}) });
      expect(r.statusCode, url).toBe(503);
      expect(h(r.headers, 'access-control-allow-origin')).toBe('*');
      if (method === 'HEAD') continue;
      expect(r.json()).toEqual({ jsonrpc: '2.0', error: { code: -32002, message: expect.stringMatching(/^Sender is not configured/) }, id: null });
      expect(r.json().error.message).toContain('SOLGATE_SENDER_RPC_URLS');
      expect(r.json().error.message).toContain('SOLANA_RPC_URL');
    }
    // Not documented while it is off.
    const doc = (await bare.app.inject({ url: '/docs/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(doc.paths['/fast']).toBeUndefined();
    expect(doc.paths['/ping']).toBeUndefined();
  });
});

describe('JSON-RPC keys', () => {
  it('no key: the REST wording; a wrong key: "invalid api key provided"', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'getIndexerSlot' };
    for (const url of ['/', '/?api-key=']) {
      const r = await ta.app.inject({ method: 'POST', url, payload: body });
      expect(r.statusCode).toBe(401);
      expect(r.json()).toEqual({ jsonrpc: '2.0', error: { code: -32401, message: KEY_REQUIRED }, id: 1 });
    }
    const wrong = await ta.app.inject({ method: 'POST', url: '/', headers: { 'x-api-key': 'wrong' }, payload: body });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ jsonrpc: '2.0', error: { code: -32401, message: 'invalid api key provided' }, id: 1 });
  });
});
