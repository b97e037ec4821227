/**
 * `minContextSlot` on the JSON-RPC methods answered from the index, and the read database (DATABASE_READ_URL): a
 * gateway whose `readDb` is a second database standing for a replica that lags the primary. Keys are checked on the
 * primary (the "replica" holds none); answers and their `context.slot` come from the read database; a call with
 * `minContextSlot` waits until the read database's checkpoint reaches it, or answers agave's -32016 with
 * `data.contextSlot` after the bound (src/api/rpc/min-context.ts). The same on Photon's list methods (a trailing
 * `{minContextSlot}` element), on the methods that read no params (`[{minContextSlot}]`), and on the Wallet REST
 * routes (`?minContextSlot=`, 503 `{error, code, details}` with Retry-After and x-solgate-context-slot after the bound).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDb, seedLightTrees, type TestDb } from '../helpers/db.js';
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

/** A fresh address for the V1 address tree (getMultipleNewAddressProofs answers the empty tree's proof for it). */
const NEW_ADDRESS = '11111111111111111111111111111113';
const V1_ADDRESS_TREE = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';

describe('minContextSlot on Photon methods whose params are a list, and on those that read none', () => {
  beforeAll(async () => {
    await seedLightTrees(replica.db);
    await setCheckpoint(replica.db, 300);
  });

  it('a trailing {minContextSlot} element at or below the checkpoint: taken out of the list, answered at once', async () => {
    const [plain] = await timed(() => call('getMultipleNewAddressProofs', [NEW_ADDRESS]));
    expect(plain.error).toBeUndefined();
    const [r, ms] = await timed(() => call('getMultipleNewAddressProofs', [NEW_ADDRESS, { minContextSlot: 300 }]));
    expect(r.error).toBeUndefined();
    expect(ms).toBeLessThan(WAIT_MS);
    expect(r.result).toEqual(plain.result);
    expect(r.result.context.slot).toBe(300);
    expect(r.result.value).toHaveLength(1);
    const v2 = await call('getMultipleNewAddressProofsV2', [{ address: NEW_ADDRESS, tree: V1_ADDRESS_TREE }, { minContextSlot: 250 }]);
    expect(v2.error).toBeUndefined();
    expect(v2.result.value).toEqual(plain.result.value);
    // null: no minimum (the element is still taken out).
    expect((await call('getMultipleNewAddressProofs', [NEW_ADDRESS, { minContextSlot: null }])).result).toEqual(plain.result);
  });

  it('ahead of the index: -32016 with data.contextSlot after the bound, on each list method', async () => {
    const unknownHash = '11111111111111111111111111111114';
    for (const [method, params] of [
      ['getMultipleNewAddressProofs', [NEW_ADDRESS, { minContextSlot: 301 }]],
      ['getMultipleNewAddressProofsV2', [{ address: NEW_ADDRESS, tree: V1_ADDRESS_TREE }, { minContextSlot: 301 }]],
      ['getMultipleCompressedAccountProofs', [unknownHash, { minContextSlot: 301 }]],
      ['getMultipleCompressedAccountProofsV2', [unknownHash, { minContextSlot: 301 }]],
    ] as const) {
      const [r, ms] = await timed(() => call(method, params));
      expect(r.error, method).toEqual({ code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: 300 } });
      expect(ms).toBeGreaterThanOrEqual(WAIT_MS - 20);
    }
  });

  it('reached during the wait: answered with a context slot at or after it', async () => {
    setTimeout(() => void setCheckpoint(replica.db, 320), 150);
    const [r, ms] = await timed(() => call('getMultipleNewAddressProofs', [NEW_ADDRESS, { minContextSlot: 310 }]));
    expect(r.error).toBeUndefined();
    expect(r.result.context.slot).toBe(320);
    expect(ms).toBeGreaterThanOrEqual(100);
  });

  it('getIndexerSlot and getIndexerHealth: [{minContextSlot}] as standard RPC\'s getSlot, or {minContextSlot}', async () => {
    expect((await call('getIndexerSlot', [{ minContextSlot: 320 }])).result).toBe(320);
    expect((await call('getIndexerSlot', { minContextSlot: 100 })).result).toBe(320);
    setTimeout(() => void setCheckpoint(replica.db, 330), 100);
    expect((await call('getIndexerSlot', [{ minContextSlot: 325 }])).result).toBe(330);
    expect((await call('getIndexerSlot', [{ minContextSlot: 331 }])).error).toEqual({ code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: 330 } });
    expect((await call('getIndexerHealth', [{ minContextSlot: 331 }])).error).toMatchObject({ code: -32016, data: { contextSlot: 330 } });
    expect((await call('getIndexerHealth', [{ minContextSlot: 330 }])).result).toBe('ok');
  });

  it('bad values and a config object with other fields are -32602, at once', async () => {
    for (const v of [-1, 1.5, '100', true]) {
      const r = await call('getMultipleNewAddressProofs', [NEW_ADDRESS, { minContextSlot: v }]);
      expect(r.error?.code, JSON.stringify(v)).toBe(-32602);
      expect(r.error?.message).toContain('minContextSlot');
      expect((await call('getIndexerSlot', [{ minContextSlot: v }])).error?.code).toBe(-32602);
    }
    const [r, ms] = await timed(() => call('getMultipleCompressedAccountProofs', [NEW_ADDRESS, { minContextSlot: 10_000, commitment: 'confirmed' }]));
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message).toMatch(/takes only minContextSlot, got `commitment`/);
    expect(ms).toBeLessThan(WAIT_MS);
    // A by-name method given a list is refused as before, without waiting first.
    const [byName, ms2] = await timed(() => call('getCompressedBalanceByOwner', [OWNER, { minContextSlot: 10_000 }]));
    expect(byName.error?.code).toBe(-32602);
    expect(ms2).toBeLessThan(WAIT_MS);
  });
});

describe('minContextSlot on the Wallet REST routes (?minContextSlot=)', () => {
  const W = OWNER;
  const ROUTES = ['balances', 'history', 'transfers', 'funded-by', 'identity'];

  async function rest(url: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) {
    const r = await ta.app.inject({ method, url, headers: { 'x-api-key': ta.key }, ...(payload ? { payload } : {}) });
    return { status: r.statusCode, body: r.json(), headers: r.headers };
  }

  beforeAll(async () => {
    await setCheckpoint(replica.db, 400);
  });

  it('at or below the index\'s checkpoint: answered at once, as without it', async () => {
    let named = 0;
    for (const ep of ROUTES) {
      const plain = await rest(`/v1/wallet/${W}/${ep}`);
      const [r, ms] = await timed(() => rest(`/v1/wallet/${W}/${ep}?minContextSlot=400`));
      expect(r.status, `${ep}: ${JSON.stringify(r.body)}`).toBe(plain.status);
      expect(r.body).toEqual(plain.body);
      expect(ms).toBeLessThan(WAIT_MS);
      // A successful answer names the slot of the index it was read from (the replica's), with or without the parameter.
      if (r.status === 200) {
        expect(r.headers['x-solgate-context-slot'], ep).toBe('400');
        expect(plain.headers['x-solgate-context-slot'], ep).toBe('400');
        named++;
      } else expect(r.headers['x-solgate-context-slot'], `${ep} ${r.status}`).toBeUndefined();
    }
    expect(named).toBeGreaterThanOrEqual(3); // identity needs a paid plan, funded-by the cluster: not 200 here
    const batch = await rest(`/v1/wallet/batch-identity?minContextSlot=0`, 'POST', { addresses: [W] });
    expect(batch.status).toBe(200);
    expect(batch.body).toEqual([]);
    expect(batch.headers['x-solgate-context-slot']).toBe('400');
    // A client error names none.
    expect((await rest(`/v1/wallet/not-a-wallet/balances`)).headers['x-solgate-context-slot']).toBeUndefined();
  });

  it('ahead of the index: 503 {error, code, details} with the index\'s slot and Retry-After after the bound, on every route', async () => {
    for (const ep of ROUTES) {
      const [r, ms] = await timed(() => rest(`/v1/wallet/${W}/${ep}?minContextSlot=401`));
      expect(r.status, ep).toBe(503);
      expect(r.body).toEqual({
        error: 'Minimum context slot has not been reached',
        code: 503,
        details: `the index this process reads is at slot 400, behind minContextSlot 401, after waiting ${WAIT_MS} ms; try again`,
      });
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers['x-solgate-context-slot']).toBe('400');
      expect(ms).toBeGreaterThanOrEqual(WAIT_MS - 20);
      expect(ms).toBeLessThan(WAIT_MS + 1500);
    }
    const batch = await rest(`/v1/wallet/batch-identity?minContextSlot=401`, 'POST', { addresses: [W] });
    expect(batch.status).toBe(503);
    expect(batch.body).toMatchObject({ code: 503, error: 'Minimum context slot has not been reached' });
    expect(batch.headers['x-solgate-context-slot']).toBe('400');
  });

  it('reached during the wait: answered once the index has it', async () => {
    setTimeout(() => void setCheckpoint(replica.db, 460), 150);
    const [r, ms] = await timed(() => rest(`/v1/wallet/${W}/history?minContextSlot=450`));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: [], pagination: { hasMore: false, nextCursor: null } });
    expect(r.headers['x-solgate-context-slot']).toBe('460');
    expect(ms).toBeGreaterThanOrEqual(100);
    expect(ms).toBeLessThan(WAIT_MS + 1000);
  });

  it('a value that is not a slot is 400 in the REST format naming the parameter, without waiting', async () => {
    for (const v of ['-1', '1.5', 'abc', '', '9007199254740992', '1e3x', 'true']) {
      for (const ep of ['balances', 'identity']) {
        const [r, ms] = await timed(() => rest(`/v1/wallet/${W}/${ep}?minContextSlot=${encodeURIComponent(v)}`));
        expect(r.status, `${ep} ${JSON.stringify(v)}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.code).toBe(400);
        expect(r.body.error).toContain('minContextSlot');
        expect(ms).toBeLessThan(WAIT_MS);
      }
    }
    // A bad wallet with a slot far ahead: the 400 for the wallet at once, not a 503 after waiting.
    for (const ep of ROUTES) {
      const [r, ms] = await timed(() => rest(`/v1/wallet/not-a-wallet/${ep}?minContextSlot=999999999`));
      expect(r.status, `${ep}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(ms).toBeLessThan(WAIT_MS);
    }
    const twice = await rest(`/v1/wallet/${W}/transfers?minContextSlot=1&minContextSlot=2`);
    expect(twice.status).toBe(400);
    expect(twice.body.error).toContain('minContextSlot');
  });
});

describe('minContextSlot on the /v0 REST routes that read the index', () => {
  const MINT = OWNER;
  const call = async (path: string, min?: string) => {
    const q = min === undefined ? '' : `?minContextSlot=${encodeURIComponent(min)}`;
    const r = path === 'token-metadata'
      ? await ta.app.inject({ method: 'POST', url: `/v0/token-metadata${q}`, headers: { 'x-api-key': ta.key }, payload: { mintAccounts: [MINT] } })
      : await ta.app.inject({ method: 'GET', url: `/v0/addresses/${OWNER}/transactions${q}`, headers: { 'x-api-key': ta.key } });
    return { status: r.statusCode, body: r.json(), headers: r.headers };
  };

  beforeAll(async () => {
    await setCheckpoint(replica.db, 500);
  });

  it('at or below the checkpoint: as without it; ahead: 503 with the index\'s slot after the bound; not a slot: 400', async () => {
    for (const path of ['token-metadata', 'addresses']) {
      const plain = await call(path);
      const [at, atMs] = await timed(() => call(path, '500'));
      expect(at.status, path).toBe(plain.status);
      expect(at.body).toEqual(plain.body);
      expect(atMs).toBeLessThan(WAIT_MS);
      // A successful answer names the slot of the index it read (this app's /v0/addresses has no cluster to fetch from: 503).
      expect(at.headers['x-solgate-context-slot'], `${path} ${at.status}`).toBe(at.status === 200 ? '500' : undefined);
      expect(plain.headers['x-solgate-context-slot'], path).toBe(at.headers['x-solgate-context-slot']);

      const [ahead, ms] = await timed(() => call(path, '501'));
      expect(ahead.status, path).toBe(503);
      expect(ahead.body).toEqual({
        error: 'Minimum context slot has not been reached',
        code: 503,
        details: `the index this process reads is at slot 500, behind minContextSlot 501, after waiting ${WAIT_MS} ms; try again`,
      });
      expect(ahead.headers['retry-after']).toBe('1');
      expect(ahead.headers['x-solgate-context-slot']).toBe('500');
      expect(ms).toBeGreaterThanOrEqual(WAIT_MS - 20);

      for (const v of ['-1', 'abc', '1.5']) {
        const [bad, badMs] = await timed(() => call(path, v));
        expect(bad.status, `${path} ${v}: ${JSON.stringify(bad.body)}`).toBe(400);
        expect(JSON.stringify(bad.body)).toContain('minContextSlot');
        expect(badMs).toBeLessThan(WAIT_MS);
      }
    }
  });
});
