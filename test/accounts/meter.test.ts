/**
 * Plans, rate limits, quotas and usage through the real app: the per-second limit with its burst allowance, the
 * 429 in each interface's format with Retry-After and x-ratelimit-* headers, the monthly quota ("max usage
 * reached"), plan features (403), batch calls charged per call, and usage written to PostgreSQL by the recorder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey } from '../../src/store/keys.js';
import { createMeter } from '../../src/accounts/meter.js';
import { createUsageRecorder, type UsageRecorder } from '../../src/accounts/usage.js';
import { DEFAULT_PLAN_TABLE, mergePlanTable, PlanFileError } from '../../src/accounts/plans.js';
import { usageOf } from '../../src/store/usage.js';

const WALLET = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
const ASSET = '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY';

let ta: TestApp;
let usage: UsageRecorder;
const keys: Record<string, string> = {};

beforeAll(async () => {
  ta = await createTestApp((db) => {
    usage = createUsageRecorder(db, { flushMs: 60_000 });
    const plans = mergePlanTable({ plans: { tiny: { perSecond: { das: 5 }, burstFactor: 0, monthlyCredits: 25 } } });
    return { meter: createMeter({ db, plans, usage }) };
  });
  for (const plan of ['free', 'developer', 'tiny']) keys[plan] = (await createApiKey(ta.t.db, { name: plan, plan })).key;
});
afterAll(async () => {
  await usage?.close();
  await ta?.close();
});

const rpc = (key: string, body: unknown) => ta.app.inject({ method: 'POST', url: `/?api-key=${key}`, payload: body as object });
const getAsset = (key: string, id = 1) => rpc(key, { jsonrpc: '2.0', id, method: 'getAsset', params: { id: ASSET } });

describe('rate limits', () => {
  it('free plan DAS: 2 per second plus a burst of 4 per 10 s, then 429 with headers and -32429', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 8; i++) {
      last = await getAsset(keys.free, i);
      statuses.push(last.statusCode);
    }
    // Answers before the limit are the method's own (200 with a not-found error for this unknown asset).
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(last!.json()).toEqual({ jsonrpc: '2.0', error: { code: -32429, message: 'rate limited' }, id: 7 });
    expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(last!.headers['x-ratelimit-limit']).toBe('2');
    expect(last!.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(last!.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    // Buckets are independent: the key's ZK Compression calls still pass.
    const zk = await rpc(keys.free, { jsonrpc: '2.0', id: 1, method: 'getIndexerSlot' });
    expect(zk.statusCode).toBe(200);
    expect(zk.headers['x-ratelimit-limit']).toBe('2');
  });

  it('Wallet REST answers 429 in its own format; identity needs a paid plan (403)', async () => {
    const r = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${WALLET}/identity?api-key=${keys.free}` });
    expect(r.statusCode).toBe(403);
    expect(r.json()).toMatchObject({ error: 'This endpoint requires a paid plan', code: 403 });
    const paid = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${WALLET}/identity?api-key=${keys.developer}` });
    expect(paid.statusCode).not.toBe(403);
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${WALLET}/balances?api-key=${keys.free}` });
      statuses.push(last.statusCode);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(last!.json()).toMatchObject({ error: 'rate limited', code: 429, details: expect.stringMatching(/free plan allows 2 wallet requests per second/) });
    expect(last!.headers['retry-after']).toBeDefined();
  });

  it('a batch counts each call', async () => {
    const batch = Array.from({ length: 3 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'getIndexerSlot' }));
    // The tiny plan (a new plan name) has no photon allowance at all.
    const r = await rpc(keys.tiny, batch);
    expect(r.statusCode).toBe(403);
    // developer: 10 DAS calls per second + a burst of 20: one batch of 30 passes, the next call does not.
    const d = Array.from({ length: 30 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'getAsset', params: { id: ASSET } }));
    expect((await rpc(keys.developer, d)).statusCode).toBe(200);
    expect((await getAsset(keys.developer)).statusCode).toBe(429);
  });
});

describe('monthly quota and usage', () => {
  it('refuses with "max usage reached" once the credits are used, and records usage per method', async () => {
    // tiny: 25 credits a month, DAS costs 10: two calls pass, the third is refused (and not charged).
    const a = await getAsset(keys.tiny, 1);
    const b = await getAsset(keys.tiny, 2);
    const c = await getAsset(keys.tiny, 3);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(c.statusCode).toBe(429);
    expect(c.json().error).toEqual({ code: -32429, message: 'max usage reached' });
    expect(Number(c.headers['retry-after'])).toBeGreaterThan(0);
    await usage.flush();
    const day = new Date().toISOString().slice(0, 10);
    const rows = await usageOf(ta.t.db, keys.tiny.split('_')[1], day, day);
    expect(rows).toEqual([{ day, method: 'getAsset', calls: 2, credits: 20 }]);
    const free = await usageOf(ta.t.db, keys.free.split('_')[1], day, day);
    expect(free.find((r) => r.method === 'getAsset')).toEqual({ day, method: 'getAsset', calls: 6, credits: 60 });
    expect(free.find((r) => r.method === 'wallet.balances')?.credits).toBe(100 * free.find((r) => r.method === 'wallet.balances')!.calls);
  });

  it('a new process starts from the month-to-date credits stored in PostgreSQL', async () => {
    await usage.flush();
    const meter2 = createMeter({ db: ta.t.db, plans: mergePlanTable({ plans: { tiny: { perSecond: { das: 5 }, burstFactor: 0, monthlyCredits: 25 } } }), usage });
    const req = { apiKey: { id: keys.tiny.split('_')[1], plan: 'tiny' } } as never;
    await expect(meter2.charge(req, null, { bucket: 'das', cost: 'das', method: 'getAsset' })).rejects.toThrow(/max usage reached/);
  });
});

describe('plan table', () => {
  it('defaults follow compat-facts §7', () => {
    expect(DEFAULT_PLAN_TABLE.plans.free.perSecond).toMatchObject({ rpc: 10, das: 2, photon: 2, validityProof: 1, sendTransaction: 1 });
    expect(DEFAULT_PLAN_TABLE.plans.professional.perSecond).toMatchObject({ rpc: 500, das: 100, photon: 100, validityProof: 20, sendTransaction: 100 });
    expect(DEFAULT_PLAN_TABLE.credits).toMatchObject({ wallet: 100, das: 10, zk: 10, validityProof: 100, webhookManagement: 100, webhookEvent: 1, sender: 0 });
    expect(DEFAULT_PLAN_TABLE.plans.free.maxWebhooks).toBe(5);
  });
  it('a plans file is validated with clear errors', () => {
    expect(() => mergePlanTable({ plans: { x: { perSecond: { nope: 1 } } } })).toThrow(PlanFileError);
    expect(() => mergePlanTable({ plans: { x: { perSecond: { das: -1 } } } })).toThrow(/non-negative integer/);
    expect(() => mergePlanTable({ credits: { das: 'ten' } })).toThrow(/credits.das/);
    expect(() => mergePlanTable({ fallbackPlan: 'gold' })).toThrow(/fallbackPlan gold is not a plan/);
    expect(mergePlanTable({ plans: { Free: { monthlyCredits: 5 } } }).plans.free).toMatchObject({ monthlyCredits: 5, perSecond: { das: 2 } });
  });
});
