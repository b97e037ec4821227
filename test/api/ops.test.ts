/**
 * Operations endpoints: HTTP and JSON-RPC metrics labelled by route pattern and known method, the ingest gauges
 * (only with ingestion), the backlog gauges (capped, cached), /ready (200 / 503 on lag and on an unreachable
 * database) and /health as pure liveness.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import pino from 'pino';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { openDb } from '../../src/store/db.js';
import { advanceCheckpoint } from '../../src/store/chain.js';
import { enqueueUris } from '../../src/store/offchain.js';
import { queueDepths } from '../../src/store/queue-depths.js';
import { buildApp } from '../../src/api/app.js';
import { createFileTokenRegistry } from '../../src/pricing/token-registry.js';
import { DEFAULT_READY_MAX_LAG_SLOTS } from '../../src/api/ops.js';

const W = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';

let open: TestApp[] = [];
afterEach(async () => {
  for (const ta of open) await ta.close();
  open = [];
});
async function app(...args: Parameters<typeof createTestApp>): Promise<TestApp> {
  const ta = await createTestApp(...args);
  open.push(ta);
  return ta;
}

async function scrape(ta: TestApp): Promise<string> {
  const r = await ta.app.inject({ method: 'GET', url: '/metrics' });
  expect(r.statusCode).toBe(200);
  expect(r.headers['content-type']).toMatch(/text\/plain/);
  return r.body;
}

/** The value of one sample, labels in declaration order as prom-client writes them; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const l = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(',');
  const head = l ? `${name}{${l}} ` : `${name} `;
  const line = text.split('\n').find((x) => x.startsWith(head));
  return line === undefined ? undefined : Number(line.slice(head.length));
}

const rpc = (ta: TestApp, body: unknown) =>
  ta.app.inject({ method: 'POST', url: '/', headers: { 'x-api-key': ta.key, 'content-type': 'application/json' }, payload: JSON.stringify(body) });

describe('/metrics: HTTP requests', () => {
  it('counts by route pattern (not the raw URL), method and status, with a latency histogram', async () => {
    const ta = await app();
    const before = await scrape(ta);
    const base = sample(before, 'solgate_http_requests_total', { route: '/v1/wallet/:wallet/balances', method: 'GET', status: '400' }) ?? 0;
    for (const w of ['not-an-address', 'also-not-one']) {
      const r = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${w}/balances?x=1`, headers: { 'x-api-key': ta.key } });
      expect(r.statusCode).toBe(400);
    }
    const unauth = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${W}/balances` });
    expect(unauth.statusCode).toBe(401);
    expect((await ta.app.inject({ method: 'GET', url: '/no/such/path/123' })).statusCode).toBe(404);
    expect((await ta.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);

    const text = await scrape(ta);
    expect(sample(text, 'solgate_http_requests_total', { route: '/v1/wallet/:wallet/balances', method: 'GET', status: '400' })).toBe(base + 2);
    expect(sample(text, 'solgate_http_requests_total', { route: '/v1/wallet/:wallet/balances', method: 'GET', status: '401' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'solgate_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'solgate_http_requests_total', { route: '/health', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);
    // the scrape before counts itself once answered
    expect(sample(text, 'solgate_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);
    // raw URLs never become label values
    expect(text).not.toContain('not-an-address');
    expect(text).not.toContain('/no/such/path');
    expect(sample(text, 'solgate_http_request_duration_seconds_count', { route: '/v1/wallet/:wallet/balances', method: 'GET' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'solgate_http_request_duration_seconds_bucket', { le: '+Inf', route: '/v1/wallet/:wallet/balances', method: 'GET' })).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/^# TYPE solgate_http_request_duration_seconds histogram$/m);
  });

  it('counts each JSON-RPC call of a batch by known method (else unknown) and outcome', async () => {
    const ta = await app();
    const r = await rpc(ta, [
      { jsonrpc: '2.0', id: 1, method: 'getIndexerSlot' },
      { jsonrpc: '2.0', id: 2, method: 'getIndexerSlot' },
      { jsonrpc: '2.0', id: 3, method: 'noSuchMethod_random_1234' },
      { jsonrpc: '2.0', id: 4, method: 'getAsset', params: { id: 'not-a-pubkey' } },
      { id: 5 },
    ]);
    expect(r.statusCode).toBe(200);
    const body = r.json() as { result?: unknown; error?: unknown }[];
    expect(body.map((x) => 'result' in x)).toEqual([true, true, false, false, false]);
    const text = await scrape(ta);
    expect(sample(text, 'solgate_rpc_calls_total', { method: 'getIndexerSlot', outcome: 'ok' })).toBe(2);
    expect(sample(text, 'solgate_rpc_calls_total', { method: 'getAsset', outcome: 'error' })).toBe(1);
    expect(sample(text, 'solgate_rpc_calls_total', { method: 'unknown', outcome: 'error' })).toBe(2);
    expect(text).not.toContain('noSuchMethod_random_1234');
    expect(sample(text, 'solgate_http_requests_total', { route: '/', method: 'POST', status: '200' })).toBeGreaterThanOrEqual(1);
  });
});

describe('/metrics: ingest and backlog gauges', () => {
  it('ingest slot, tip and lag only when the process ingests', async () => {
    const plain = await app();
    // The slot/tip/lag gauges exist only while this process ingests (the poller's retry and gap counters are always registered).
    expect(await scrape(plain)).not.toMatch(/^solgate_ingest_(slot|tip_slot|lag_slots) /m);
    await plain.close();
    open = [];

    let status = { lastSlot: 1000 as number | null, tip: 1200 as number | null };
    const ta = await app({ ingestStatus: () => status });
    await advanceCheckpoint(ta.t.db, 900);
    let text = await scrape(ta);
    expect(sample(text, 'solgate_ingest_slot')).toBe(1000);
    expect(sample(text, 'solgate_ingest_tip_slot')).toBe(1200);
    expect(sample(text, 'solgate_ingest_lag_slots')).toBe(200);
    // before the first block of this run: the stored checkpoint; tip unknown → NaN
    status = { lastSlot: null, tip: null };
    text = await scrape(ta);
    expect(sample(text, 'solgate_ingest_slot')).toBe(900);
    expect(sample(text, 'solgate_ingest_tip_slot')).toBeNaN();
    expect(sample(text, 'solgate_ingest_lag_slots')).toBeNaN();
  });

  it('webhook outbox, DAS refresher and off-chain fetch backlogs, cached between scrapes', async () => {
    const ta = await app();
    const db = ta.t.db;
    const { rows } = await db.query<{ id: string }>('SELECT id FROM api_keys LIMIT 1');
    await db.query(
      `INSERT INTO webhooks (id, key_id, url, webhook_type, secret) VALUES ('00000000-0000-4000-8000-000000000001', $1, 'https://example.com/h', 'enhanced', 's')`,
      [rows[0].id],
    );
    for (const [i, state] of (['pending', 'pending', 'pending', 'delivered', 'failed'] as const).entries())
      await db.query(
        `INSERT INTO webhook_events (webhook_id, signature, slot, position, state) VALUES ('00000000-0000-4000-8000-000000000001', $1, 1, $2, $3)`,
        [`sig${i}`, i, state],
      );
    await db.query(`INSERT INTO das_dirty (key) VALUES ('a'), ('b')`);
    await enqueueUris(db, ['https://example.com/1.json', 'https://example.com/2.json', 'ipfs://x/3.json', 'https://example.com/4.json']);
    // not due: scheduled later, or nothing scheduled
    await db.query(`UPDATE offchain_metadata SET next_attempt_at = now() + interval '1 hour' WHERE uri = 'https://example.com/4.json'`);

    const text = await scrape(ta);
    expect(sample(text, 'solgate_webhook_events_pending')).toBe(3);
    expect(sample(text, 'solgate_das_dirty_pending')).toBe(2);
    expect(sample(text, 'solgate_offchain_fetch_due')).toBe(3);
    expect(text).toMatch(/^# HELP solgate_das_dirty_pending .*counted up to 100000/m);

    // A scrape within the cache period answers from the cache (no new count).
    await db.query(`INSERT INTO das_dirty (key) VALUES ('c')`);
    expect(sample(await scrape(ta), 'solgate_das_dirty_pending')).toBe(2);
  });

  it('counts stop at the cap + 1', async () => {
    const ta = await app();
    await ta.t.db.query(`INSERT INTO das_dirty (key) SELECT 'k' || g FROM generate_series(1, 10) g`);
    expect((await queueDepths(ta.t.db, 3)).dasDirty).toBe(4);
    expect((await queueDepths(ta.t.db, 100)).dasDirty).toBe(10);
  });
});

describe('/ready and /health', () => {
  it('without ingestion: ready when the database answers', async () => {
    const ta = await app();
    const r = await ta.app.inject({ method: 'GET', url: '/ready' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'ready', indexedSlot: null });
  });

  it('with ingestion: 200 within the lag threshold, 503 beyond it or before any slot is indexed', async () => {
    let tip: number | null = 1000;
    const ta = await app({ ingestStatus: () => ({ lastSlot: null, tip }) });
    const ready = async () => {
      const r = await ta.app.inject({ method: 'GET', url: '/ready' });
      return { status: r.statusCode, body: r.json() as Record<string, unknown> };
    };
    let r = await ready();
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/not indexed a slot yet/) });

    await advanceCheckpoint(ta.t.db, 1000 - DEFAULT_READY_MAX_LAG_SLOTS);
    r = await ready();
    expect(r).toEqual({ status: 200, body: { status: 'ready', indexedSlot: 850, tip: 1000, lagSlots: 150 } });

    tip = 1000 + 1;
    r = await ready();
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ status: 'unavailable', indexedSlot: 850, tip: 1001, lagSlots: 151 });
    expect(r.body.reason).toMatch(/151 slots behind the tip \(more than 150\)/);

    // tip not known yet: lag unknown, ready
    tip = null;
    expect(await ready()).toEqual({ status: 200, body: { status: 'ready', indexedSlot: 850, tip: null, lagSlots: null } });
  });

  it('the threshold comes from readyMaxLagSlots', async () => {
    const ta = await app({ ingestStatus: () => ({ lastSlot: 500, tip: 800 }), readyMaxLagSlots: 300 });
    await advanceCheckpoint(ta.t.db, 500);
    const r = await ta.app.inject({ method: 'GET', url: '/ready' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ lagSlots: 300 });
  });

  it('503 when the database is unreachable; /health stays 200; /metrics still answers', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const dead = await openDb({ databaseUrl: `postgres://nobody:x@127.0.0.1:${port}/nothing` });
    const a = await buildApp({
      db: dead,
      logger: pino({ level: 'silent' }),
      tokens: createFileTokenRegistry('/nonexistent/tokens.json'),
      explorerTxUrl: 'https://explorer.test/tx/',
      ingestStatus: () => ({ lastSlot: 10, tip: 12 }),
    });
    try {
      const r = await a.inject({ method: 'GET', url: '/ready' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toEqual({ status: 'unavailable', reason: 'database unreachable' });
      const h = await a.inject({ method: 'GET', url: '/health' });
      expect(h.statusCode).toBe(200);
      expect(h.json()).toEqual({ status: 'ok' });
      const m = await a.inject({ method: 'GET', url: '/metrics' });
      expect(m.statusCode).toBe(200);
      expect(sample(m.body, 'solgate_webhook_events_pending')).toBeNaN();
      expect(sample(m.body, 'solgate_ingest_slot')).toBe(10);
      expect(sample(m.body, 'solgate_ingest_lag_slots')).toBe(2);
    } finally {
      await a.close();
      await dead.close();
    }
  });

  it('a closed embedded database: 503', async () => {
    const ta = await createTestApp();
    await ta.t.db.close();
    try {
      const r = await ta.app.inject({ method: 'GET', url: '/ready' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ status: 'unavailable', reason: 'database unreachable' });
    } finally {
      await ta.app.close();
    }
  });
});
