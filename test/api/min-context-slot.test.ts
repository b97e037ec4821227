/**
 * `minContextSlot` on the JSON-RPC methods answered from the index, and the read database (DATABASE_READ_URL): a
 * gateway whose `readDb` is a second database standing for a replica that lags the primary. Keys are checked on the
 * primary (the "replica" holds none); answers and their `context.slot` come from the read database; a call with
 * `minContextSlot` waits until the read database's checkpoint reaches it, or answers agave's -32016 with
 * `data.contextSlot` after the bound (src/api/rpc/min-context.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import type { Db } from '../../src/store/db.js';

const WAIT_MS = 400;
const OWNER = '11111111111111111111111111111112';
let ta: TestApp;
let replica: TestDb;

async function setCheckpoint(db: Db, slot: number): Promise<void> {
  await db.query(
    `INSERT INTO ingest_checkpoint (id, slot) VALUES ('chain', $1) ON CONFLICT (id) DO UPDATE SET slot = EXCLUDED.slot, updated_at = now()`,
    [slot],
  );
}

async function call(method: string, params: unknown): Promise<{ result?: any; error?: { code: number; message: string; data?: any } }> {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method, params } });
  expect(r.statusCode, r.body).toBe(200);
  return r.json();
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = Date.now();
  const v = await f();
  return [v, Date.now() - t0];
}

beforeAll(async () => {
  replica = await createTestDb();
  ta = await createTestApp({ readDb: replica.db, minContextWaitMs: WAIT_MS });
  // The primary is ahead of its replica.
  await setCheckpoint(ta.t.db, 500);
  await setCheckpoint(replica.db, 100);
});

afterAll(async () => {
  await ta?.close();
  await replica?.drop();
});

describe('reads on a replica (readDb)', () => {
  it('checks keys on the primary and answers from the replica: context.slot is the replica\'s checkpoint', async () => {
    const r = await call('getCompressedBalanceByOwner', { owner: OWNER });
    expect(r.error).toBeUndefined();
    expect(r.result.context.slot).toBe(100);
    const bad = await ta.app.inject({ method: 'POST', url: '/?api-key=sg_nope', payload: { jsonrpc: '2.0', id: 1, method: 'getIndexerSlot' } });
    expect(bad.statusCode).toBe(401);
    const ready = await ta.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.json()).toMatchObject({ status: 'ready', indexedSlot: 100 });
  });
});

describe('minContextSlot', () => {
  it('at or below the index\'s checkpoint: answered at once (by-name params: the field is taken out first)', async () => {
    const [r, ms] = await timed(() => call('getCompressedBalanceByOwner', { owner: OWNER, minContextSlot: 100 }));
    expect(r.error).toBeUndefined();
    expect(r.result.context.slot).toBe(100);
    expect(ms).toBeLessThan(WAIT_MS);
    const das = await call('getAssetsByOwner', { ownerAddress: OWNER, minContextSlot: 50 });
    expect(das.error).toBeUndefined();
    const gtfa = await call('getTransactionsForAddress', [OWNER, { minContextSlot: 100 }]);
    expect(gtfa.error).toBeUndefined();
    expect(gtfa.result).toEqual({ data: [], paginationToken: null });
  });

  it('ahead of the index: -32016 "Minimum context slot has not been reached" with data.contextSlot after the bound', async () => {
    const [r, ms] = await timed(() => call('getCompressedBalanceByOwner', { owner: OWNER, minContextSlot: 101 }));
    expect(r.error).toEqual({ code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: 100 } });
    expect(ms).toBeGreaterThanOrEqual(WAIT_MS - 20);
    expect(ms).toBeLessThan(WAIT_MS + 1500);
    const gtfa = await call('getTransactionsForAddress', [OWNER, { minContextSlot: 10_000 }]);
    expect(gtfa.error).toMatchObject({ code: -32016, data: { contextSlot: 100 } });
  });

  it('reached during the wait: answered with a context slot at or after it', async () => {
    setTimeout(() => void setCheckpoint(replica.db, 160), 150);
    const [r, ms] = await timed(() => call('getCompressedBalanceByOwner', { owner: OWNER, minContextSlot: 150 }));
    expect(r.error).toBeUndefined();
    expect(r.result.context.slot).toBeGreaterThanOrEqual(150);
    expect(ms).toBeGreaterThanOrEqual(100);
    expect(ms).toBeLessThan(WAIT_MS + 1000);
    // Several calls waiting together are released by one checkpoint read.
    setTimeout(() => void setCheckpoint(replica.db, 200), 100);
    const many = await Promise.all([170, 180, 190, 200].map((s) => call('getCompressedBalanceByOwner', { owner: OWNER, minContextSlot: s })));
    for (const x of many) expect(x.result.context.slot).toBe(200);
  });

  it('a value that is not a slot is -32602', async () => {
    for (const v of [-1, 1.5, '100', true]) {
      const r = await call('getCompressedBalanceByOwner', { owner: OWNER, minContextSlot: v });
      expect(r.error?.code, JSON.stringify(v)).toBe(-32602);
      expect(r.error?.message).toContain('minContextSlot');
    }
  });
});
