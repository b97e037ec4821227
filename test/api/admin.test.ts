/**
 * The admin API `/admin/api` and the dashboard's files through `inject`: disabled without a token (404), bearer
 * auth (401), keys (create shown once and usable, list with month-to-date usage, edit, revoke, rotate), validation
 * errors in the REST format, usage per day and method, every key's webhooks with counts and a delivery log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { addUsage } from '../../src/store/usage.js';
import { createWebhook } from '../../src/store/webhooks.js';
import { adminTokenMatches } from '../../src/api/admin/auth.js';

const TOKEN = 'test-admin-token-0123456789';
const ADDR = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp({ admin: { token: TOKEN } });
});
afterAll(async () => ta?.close());

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, token: string | null = TOKEN) {
  const r = await ta.app.inject({
    method,
    url,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    ...(body !== undefined ? { payload: body as Json } : {}),
  });
  return { status: r.statusCode, headers: r.headers, body: (r.body ? r.json() : {}) as Json, raw: r.body };
}

function expectError(r: { status: number; body: Json }, status: number, re?: RegExp) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.code).toBe(status);
  expect(typeof r.body.error).toBe('string');
  if (re) expect(`${r.body.error} ${r.body.details ?? ''}`).toMatch(re);
}

describe('admin API: enablement and auth', () => {
  it('is off (404) without an admin token, and says how to turn it on', async () => {
    const off = await createTestApp();
    try {
      // The dashboard: an HTML page naming the variable and how to make a token (under the page's strict CSP).
      for (const url of ['/dashboard', '/dashboard/', '/dashboard/assets/dashboard.js']) {
        const r = await off.app.inject({ url, headers: { authorization: `Bearer ${TOKEN}` } });
        expect(r.statusCode, url).toBe(404);
        expect(r.headers['content-type'], url).toMatch(/^text\/html/);
        expect(r.headers['content-security-policy'], url).toContain("default-src 'none'");
        expect(r.body, url).toContain('SOLGATE_ADMIN_TOKEN');
        expect(r.body, url).toContain('openssl rand -hex 32');
      }
      // The admin API: the REST error format, naming the variable, whatever the method.
      for (const [method, url] of [['GET', '/admin/api/keys'], ['POST', '/admin/api/keys'], ['PATCH', '/admin/api/keys/abc'], ['GET', '/admin/api']] as const) {
        const r = await off.app.inject({ method, url, headers: { authorization: `Bearer ${TOKEN}` }, ...(method === 'GET' ? {} : { payload: {} }) });
        expect(r.statusCode, url).toBe(404);
        expect(r.json(), url).toEqual({ error: 'Admin API is disabled', code: 404, details: expect.stringMatching(/^set SOLGATE_ADMIN_TOKEN to a secret of at least 16 characters/) });
      }
      // Neither stand-in is in the API documents.
      const doc = (await off.app.inject({ url: '/docs/openapi.json' })).json() as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/admin') || p.startsWith('/dashboard'))).toEqual([]);
    } finally {
      await off.close();
    }
  });

  it('refuses missing, malformed and wrong tokens with 401', async () => {
    expectError(await call('GET', '/admin/api/keys', undefined, null), 401, /Admin token required/);
    expectError(await call('GET', '/admin/api/keys', undefined, 'wrong-token-wrong-token'), 401, /Invalid admin token/);
    expectError(await call('GET', '/admin/api/keys', undefined, `${TOKEN}x`), 401);
    const r = await ta.app.inject({ url: '/admin/api/keys', headers: { authorization: `Basic ${TOKEN}` } });
    expect(r.statusCode).toBe(401);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
    // An unauthenticated write never reaches the handler.
    expectError(await call('POST', '/admin/api/keys', { name: 'sneaky key' }, null), 401);
    expect((await call('GET', '/admin/api/keys')).body.keys.map((k: Json) => k.name)).not.toContain('sneaky key');
    expect(adminTokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(adminTokenMatches('short', TOKEN)).toBe(false);
  });

  it('serves the dashboard page and its assets with a strict CSP', async () => {
    const page = await ta.app.inject({ url: '/dashboard' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('/dashboard/assets/dashboard.js');
    const js = await ta.app.inject({ url: '/dashboard/assets/dashboard.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect((await ta.app.inject({ url: '/dashboard/assets/dashboard.css' })).headers['content-type']).toMatch(/text\/css/);
    // Every module the entry script imports (and they in turn) is served as JavaScript from the same directory.
    const seen = new Set<string>();
    const queue = ['dashboard.js'];
    while (queue.length) {
      const file = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const r = await ta.app.inject({ url: `/dashboard/assets/${file}` });
      expect(r.statusCode, file).toBe(200);
      expect(r.headers['content-type'], file).toMatch(/javascript/);
      for (const m of r.body.matchAll(/^import .* from '\.\/([\w-]+\.js)';$/gm)) queue.push(m[1]);
    }
    expect(seen.size).toBeGreaterThan(1);
    expect((await ta.app.inject({ url: '/dashboard/assets/..%2Fapi.ts' })).statusCode).toBe(404);
  });
});

describe('admin API: keys', () => {
  it('lists the plan table', async () => {
    const r = await call('GET', '/admin/api/plans');
    expect(r.status).toBe(200);
    expect(r.body.plans.map((p: Json) => p.name)).toEqual(['free', 'developer', 'business', 'professional']);
  });

  it('creates a key shown once that authenticates at once, lists, edits, rotates and revokes it', async () => {
    const c = await call('POST', '/admin/api/keys', { name: '  checkout backend (prod) ', plan: 'business', allowedIps: ['127.0.0.1', ' 10.0.0.0/8', '', '127.0.0.1'], expiresAt: '2999-12-31' });
    expect(c.status, c.raw).toBe(201);
    expect(c.body.key).toMatch(/^sg_[0-9a-f]{16}_/);
    const rec = c.body.record;
    expect(rec).toMatchObject({ name: 'checkout backend (prod)', plan: 'business', allowedIps: ['127.0.0.1', '10.0.0.0/8'], status: 'active', revokedAt: null, expiresAt: '2999-12-31T23:59:59.999Z' });
    const use = () => ta.app.inject({ url: `/v1/wallet/${ADDR}/balances`, headers: { 'x-api-key': c.body.key } });
    expect((await use()).statusCode).toBe(200);

    const list = await call('GET', '/admin/api/keys');
    const listed = list.body.keys.find((k: Json) => k.id === rec.id);
    expect(listed).toMatchObject({ name: 'checkout backend (prod)', plan: 'business', status: 'active' });
    expect(listed.usage).toMatchObject({ month: new Date().toISOString().slice(0, 7), monthlyCredits: 100_000_000 });
    expect(JSON.stringify(list.body)).not.toContain(c.body.key);

    const e = await call('PATCH', `/admin/api/keys/${rec.id}`, { plan: 'free', allowedIps: ['::1'], expiresAt: null, name: 'checkout backend' });
    expect(e.status, e.raw).toBe(200);
    expect(e.body).toMatchObject({ name: 'checkout backend', plan: 'free', allowedIps: ['::1'], expiresAt: null });

    const rot = await call('POST', `/admin/api/keys/${rec.id}/rotate`);
    expect(rot.status).toBe(200);
    expect(rot.body.key).not.toBe(c.body.key);
    expect(rot.body.record.id).toBe(rec.id);
    expect((await use()).statusCode).toBe(401);

    const rv = await call('POST', `/admin/api/keys/${rec.id}/revoke`);
    expect(rv.body).toMatchObject({ id: rec.id, status: 'revoked' });
    expect(typeof rv.body.revokedAt).toBe('string');
    expect((await ta.app.inject({ url: `/v1/wallet/${ADDR}/balances`, headers: { 'x-api-key': rot.body.key } })).statusCode).toBe(401);
    // Revoking again is idempotent; a revoked key cannot be rotated.
    expect((await call('POST', `/admin/api/keys/${rec.id}/revoke`)).body.revokedAt).toBe(rv.body.revokedAt);
    expectError(await call('POST', `/admin/api/keys/${rec.id}/rotate`), 400, /revoked/);
  });

  it('answers clear 400s and 404s', async () => {
    expectError(await call('POST', '/admin/api/keys', {}), 400, /Missing required body parameter 'name'/);
    expectError(await call('POST', '/admin/api/keys', { name: 'ab' }), 400, /name.*descriptive/);
    expectError(await call('POST', '/admin/api/keys', { name: 'valid name', plan: 'gold' }), 400, /must be one of free, developer, business, professional/);
    expectError(await call('POST', '/admin/api/keys', { name: 'valid name', allowedIps: ['1.2.3.999'] }), 400, /allowedIps.*"1\.2\.3\.999" is not an IP address or CIDR range/);
    expectError(await call('POST', '/admin/api/keys', { name: 'valid name', expiresAt: 'tomorrow' }), 400, /expiresAt/);
    expectError(await call('POST', '/admin/api/keys', { name: 'valid name', expiresAt: '2001-01-01' }), 400, /in the future/);
    expectError(await call('POST', '/admin/api/keys', { name: 'valid name', owner: 'x' }), 400, /Unknown body parameter 'owner'/);
    expectError(await call('PATCH', '/admin/api/keys/0000000000000000', { plan: 'free' }), 404, /API key not found/);
    expectError(await call('PATCH', `/admin/api/keys/0000000000000000`, {}), 400, /Empty body/);
    expectError(await call('POST', '/admin/api/keys/nope/revoke'), 404);
    expectError(await call('POST', '/admin/api/keys/nope/rotate'), 404);
    expectError(await call('GET', '/admin/api/keys/nope/usage'), 404);
  });
});

describe('admin API: usage and webhooks', () => {
  it('gives usage per day (zeros filled) and per method over a range; defaults to the last 30 days', async () => {
    const { body } = await call('POST', '/admin/api/keys', { name: 'usage key', plan: 'developer' });
    const id = body.record.id as string;
    const today = new Date().toISOString().slice(0, 10);
    await addUsage(ta.t.db, [
      { keyId: id, day: today, method: 'getAsset', calls: 3, credits: 30 },
      { keyId: id, day: today, method: 'wallet.balances', calls: 1, credits: 100 },
      { keyId: id, day: '2020-01-02', method: 'getAsset', calls: 5, credits: 50 },
    ]);
    const d = await call('GET', `/admin/api/keys/${id}/usage`);
    expect(d.status).toBe(200);
    expect(d.body.days).toHaveLength(30);
    expect(d.body.to).toBe(today);
    expect(d.body.days.at(-1)).toMatchObject({ day: today, calls: 4, credits: 130 });
    expect(d.body.days[0]).toMatchObject({ calls: 0, credits: 0, methods: [] });
    expect(d.body.total).toEqual({ calls: 4, credits: 130 });
    expect(d.body.methods).toEqual([{ method: 'wallet.balances', calls: 1, credits: 100 }, { method: 'getAsset', calls: 3, credits: 30 }]);
    const old = await call('GET', `/admin/api/keys/${id}/usage?from=2020-01-01&to=2020-01-03`);
    expect(old.body.days.map((x: Json) => x.calls)).toEqual([0, 5, 0]);
    expect((await call('GET', '/admin/api/keys')).body.keys.find((k: Json) => k.id === id).usage).toMatchObject({ calls: 4, credits: 130 });
    expectError(await call('GET', `/admin/api/keys/${id}/usage?from=2020-01-05&to=2020-01-03`), 400, /'from' must not be after 'to'/);
    expectError(await call('GET', `/admin/api/keys/${id}/usage?from=2020-02-30`), 400, /YYYY-MM-DD/);
    expectError(await call('GET', `/admin/api/keys/${id}/usage?from=2018-01-01&to=2020-01-01`), 400, /366 days/);
  });

  it("lists every key's webhooks with delivery counts and a webhook's delivery log", async () => {
    const { body } = await call('POST', '/admin/api/keys', { name: 'webhook owner' });
    const settings = { url: 'https://hooks.example.com/in', webhookType: 'enhanced' as const, transactionTypes: ['ANY'], accountAddresses: [ADDR], txnStatus: 'all' as const, encoding: 'json', authHeader: null, active: true };
    const made = await createWebhook(ta.t.db, body.record.id, settings, 10);
    if (!made.ok) throw new Error('webhook not created');
    const all = await call('GET', '/admin/api/webhooks');
    const w = all.body.webhooks.find((x: Json) => x.webhookID === made.webhook.id);
    expect(w).toMatchObject({ keyId: body.record.id, keyName: 'webhook owner', webhookURL: settings.url, accountAddressCount: 1, counts: { pending: 0, delivered: 0, failed: 0 } });
    expect(JSON.stringify(all.body)).not.toContain(made.webhook.secret);
    expect((await call('GET', `/admin/api/webhooks?keyId=${body.record.id}`)).body.webhooks).toHaveLength(1);
    expect((await call('GET', `/admin/api/webhooks?keyId=${ta.key.slice(3, 19)}`)).body.webhooks).toHaveLength(0);
    expectError(await call('GET', '/admin/api/webhooks?keyId=nope'), 404);
    const log = await call('GET', `/admin/api/webhooks/${made.webhook.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({ webhook: { webhookID: made.webhook.id }, deliveries: [], paginationToken: null });
    expectError(await call('GET', '/admin/api/webhooks/00000000-0000-4000-8000-000000000000/deliveries'), 404, /Webhook not found/);
    expectError(await call('GET', `/admin/api/webhooks/${made.webhook.id}/deliveries?state=lost`), 400, /must be one of/);
  });
});
