/**
 * Hydration on a cluster whose history began before the index: the demo workload runs on a localnet with no
 * indexer; then one index ingests the chain from slot 0 (the reference) and another starts at the tip and learns
 * each wallet's state from the cluster RPC on its first request. For every demo wallet the late index answers the
 * same balances and DAS holdings as the full one (compared by content), says so in `x-solgate-coverage`, and stays
 * equal as new blocks are ingested by both. Concurrent first requests read the cluster once; an unreachable cluster
 * gives a partial answer that says why; an address the cluster does not know is complete with 0 SOL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createLocalnet, startDemoWorkload, type DemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { createRpcPoller } from '../../src/sources/rpc-poller.js';
import { createIngester, type Ingester } from '../../src/ingest/pipeline.js';
import { createCoverageService, type CoverageService } from '../../src/ingest/hydrate.js';
import { createBackfiller, type Backfiller } from '../../src/ingest/backfill.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { fetchWalletState } from '../../src/sources/wallet-state.js';
import { recordIndexOrigin } from '../../src/store/coverage.js';
import { enqueueBackfill } from '../../src/store/backfill.js';
import { tableDigests } from '../helpers/db.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/net.js';

const logger = pino({ level: 'silent' });
let net: Localnet;
let demo: DemoWorkload;
let full: TestApp & { ingester: Ingester };
let late: TestApp & { ingester: Ingester; coverage: CoverageService; reads: () => number };
const clients: RpcClient[] = [];
const backfillers: Backfiller[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs slots by hand until `done()`. */
async function runUntil(done: () => boolean, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(5);
    net.chain.produceSlot();
  }
}

/**
 * Ingests every block of the chain from `from` through the current slot as `serve` does: the JSON-RPC poller, with
 * the asset-program accounts each block wrote fetched after it.
 */
async function ingestThrough(ingester: Ingester, app: TestApp, from: number): Promise<void> {
  const tip = net.chain.slot; // the last produced slot
  const ctl = new AbortController();
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', concurrency: 4, pollIntervalMs: 20, fetchAccounts: true, logger });
  const run = ingester.run(poller, { startSlot: from, signal: ctl.signal }).finally(() => poller.close());
  while (((await getCheckpoint(app.t.db)) ?? -1) < tip) await sleep(20);
  ctl.abort();
  await run;
  await ingester.settle();
}

async function get(ta: TestApp, url: string) {
  const r = await ta.app.inject({ method: 'GET', url, headers: { 'x-api-key': ta.key } });
  expect(r.statusCode, r.body).toBe(200);
  return { body: r.json(), coverage: r.headers['x-solgate-coverage'] as string | undefined };
}

async function rpc(ta: TestApp, method: string, params: unknown) {
  const r = await ta.app.inject({ method: 'POST', url: '/', headers: { 'x-api-key': ta.key }, payload: { jsonrpc: '2.0', id: 1, method, params } });
  expect(r.statusCode, r.body).toBe(200);
  return { body: r.json() as { result?: unknown; error?: unknown }, coverage: r.headers['x-solgate-coverage'] as string | undefined };
}

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0 });
  demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 3, failureRate: 0 });
  await runUntil(() => demo.assets.stats.nftTransfers >= 4 && demo.stats.sent >= 30);
  await demo.stop();
  net.chain.produceSlot();

  const f = await createTestApp();
  full = { ...f, ingester: createIngester(f.t.db, logger) };
  await ingestThrough(full.ingester, full, 0);

  // The late index: its ingestion begins after everything above happened.
  let reads = 0;
  const client = createRpcClient({ url: net.url, maxRetries: 2 });
  clients.push(client);
  let coverage!: CoverageService;
  let backfill!: Backfiller;
  const l = await createTestApp((db) => {
    const ingester = createIngester(db, logger);
    // Small pages, so a wallet's history takes several pages (and several cursor advances).
    backfill = createBackfiller({ db, ingester, client, commitment: 'confirmed', logger, pageSize: 7, idleMs: 50 });
    coverage = createCoverageService({
      db, ingester, client, commitment: 'confirmed', logger, backfill, historyWaitMs: 60_000,
      fetchState: (c, a) => (reads++, fetchWalletState(c, a, { commitment: 'confirmed' })),
    });
    return { ensureCovered: (a, n) => coverage.ensureCovered(a, n) };
  });
  backfill.start();
  backfillers.push(backfill);
  const start = net.chain.slot;
  await recordIndexOrigin(l.t.db, start);
  late = { ...l, ingester: createIngester(l.t.db, logger), coverage, reads: () => reads };
}, 240_000);

afterAll(async () => {
  for (const b of backfillers) await b.stop();
  for (const c of clients) await c.close();
  await full?.close();
  await late?.close();
  await net?.close();
});

const balancesUrl = (w: string) => `/v1/wallet/${w}/balances?showZeroBalance=true&limit=100`;

describe('a late index reads each wallet from the cluster on its first request', () => {
  it('balances equal those of the index that saw every block, and the header says how', async () => {
    for (const w of demo.wallets) {
      const a = await get(full, balancesUrl(w));
      const b = await get(late, balancesUrl(w));
      expect(b.body, w).toEqual(a.body);
      expect(a.coverage).toBeUndefined();
      expect(b.coverage).toMatch(/^complete; basis=hydrated; slot=\d+$/);
      // The SOL balance is the chain's own.
      const reply = (await (await fetch(net.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [w] }) })).json()) as { result: { value: number } };
      const lamports = BigInt(reply.result.value);
      const sol = (b.body.balances as { mint: string; balance: number }[]).find((x) => x.mint === 'So11111111111111111111111111111111111111112');
      expect(sol?.balance).toBe(Number(lamports) / 1e9);
    }
  });

  it('DAS holdings (getAssetsByOwner with fungibles, getTokenAccounts) equal the full index', async () => {
    for (const w of demo.wallets) {
      const params = { ownerAddress: w, displayOptions: { showFungible: true } };
      const a = await rpc(full, 'getAssetsByOwner', params);
      const b = await rpc(late, 'getAssetsByOwner', params);
      expect(b.body.result, w).toEqual(a.body.result);
      expect((b.body.result as { total: number }).total).toBeGreaterThan(0);
      expect(b.coverage).toMatch(/^complete; basis=hydrated/);
      const ta = await rpc(full, 'getTokenAccounts', { owner: w });
      const tb = await rpc(late, 'getTokenAccounts', { owner: w });
      expect(tb.body.result).toEqual(ta.body.result);
    }
  });

  it('live ingestion keeps hydrated wallets current: after more blocks both indexes still agree', async () => {
    const from = net.chain.slot;
    const more = await startDemoWorkload(net.chain, { intervalMs: 1, failureRate: 0, resume: demo.state() });
    await runUntil(() => more.stats.sent >= 20);
    await more.stop();
    net.chain.produceSlot();
    await ingestThrough(full.ingester, full, 0);
    await ingestThrough(late.ingester, late, from);
    const before = late.reads();
    for (const w of demo.wallets) expect((await get(late, balancesUrl(w))).body, w).toEqual((await get(full, balancesUrl(w))).body);
    expect(late.reads()).toBe(before);
  });

  it('concurrent first requests for one address read the cluster once; an unknown address is complete with 0 SOL', async () => {
    const fresh = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
    const before = late.reads();
    const answers = await Promise.all(Array.from({ length: 5 }, () => get(late, balancesUrl(fresh))));
    expect(late.reads()).toBe(before + 1);
    for (const a of answers) {
      expect(a.coverage).toMatch(/^complete; basis=hydrated/);
      expect(a.body.balances).toEqual([expect.objectContaining({ mint: 'So11111111111111111111111111111111111111112', balance: 0 })]);
    }
  });

  it('an unreachable cluster gives a partial answer saying why, and the next request tries again', async () => {
    const dead = createRpcClient({ url: `http://127.0.0.1:${await freePort()}`, maxRetries: 0, requestTimeoutMs: 2000 });
    clients.push(dead);
    let coverage!: CoverageService;
    const ta = await createTestApp((db) => {
      coverage = createCoverageService({ db, ingester: createIngester(db, logger), client: dead, commitment: 'confirmed', logger });
      return { ensureCovered: (a, n) => coverage.ensureCovered(a, n) };
    });
    try {
      await recordIndexOrigin(ta.t.db, 1000);
      const r = await get(ta, balancesUrl(demo.wallets[0]));
      expect(r.coverage).toMatch(/^partial; basis=failed; error=".*ECONNREFUSED.*"$/);
      const again = await rpc(ta, 'getAssetsByOwner', { ownerAddress: demo.wallets[0] });
      expect(again.coverage).toMatch(/^partial; basis=failed/);
      const { rows } = await ta.t.db.query<{ last_error: string; state_slot: unknown }>('SELECT last_error, state_slot FROM address_coverage WHERE address = $1', [demo.wallets[0]]);
      expect(rows[0]).toMatchObject({ state_slot: null, last_error: expect.stringContaining('ECONNREFUSED') });
    } finally {
      await ta.close();
    }
  });
});

/** History items in a canonical order: within a slot the late index cannot know the position of backfilled ones. */
const bySignature = <T extends { signature: string }>(xs: T[]) => [...xs].sort((a, b) => (a.signature < b.signature ? -1 : 1));

describe('a late index reads each wallet\'s history back to its first transaction when history is asked for', () => {
  it('history, transfers and funded-by equal the full index (by content), after a backfill of several pages', async () => {
    for (const w of demo.wallets) {
      const url = `/v1/wallet/${w}/history?limit=100`;
      const b = await get(late, url);
      const a = await get(full, url);
      expect(b.coverage, w).toBe('complete; basis=backfilled');
      expect(a.body.data.length).toBeGreaterThan(7);
      expect(bySignature(b.body.data)).toEqual(bySignature(a.body.data));
      const tb = await get(late, `/v1/wallet/${w}/transfers?limit=100`);
      const ta = await get(full, `/v1/wallet/${w}/transfers?limit=100`);
      expect(bySignature(tb.body.data)).toEqual(bySignature(ta.body.data));
      const fb = await get(late, `/v1/wallet/${w}/funded-by`);
      expect(fb.body).toEqual((await get(full, `/v1/wallet/${w}/funded-by`)).body);
    }
    const { rows } = await late.t.db.query<{ status: string; pages: number }>('SELECT status, pages FROM backfill_addresses');
    expect(rows.every((r) => r.status === 'done')).toBe(true);
    expect(Math.max(...rows.map((r) => Number(r.pages)))).toBeGreaterThan(1);
  });

  it('funded-by is 503 with the reason while the history is not complete, never a later transfer', async () => {
    let coverage!: CoverageService;
    const ta = await createTestApp((db) => {
      // A backfill that never runs: the request waits briefly, then answers.
      const idle = createBackfiller({ db, ingester: createIngester(db, logger), client: clients[0], commitment: 'confirmed', logger });
      coverage = createCoverageService({ db, ingester: createIngester(db, logger), client: clients[0], commitment: 'confirmed', logger, backfill: idle, historyWaitMs: 200 });
      return { ensureCovered: (a, n) => coverage.ensureCovered(a, n) };
    });
    try {
      await recordIndexOrigin(ta.t.db, net.chain.slot);
      const r = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${demo.wallets[1]}/funded-by`, headers: { 'x-api-key': ta.key } });
      expect(r.statusCode).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.headers['x-solgate-coverage']).toMatch(/^partial; basis=backfilling; slot=\d+$/);
      expect(r.json()).toMatchObject({ error: 'Funding source not known yet', code: 503, details: expect.stringContaining('is being read from the cluster') });
      const h = await get(ta, `/v1/wallet/${demo.wallets[1]}/history`);
      expect(h.coverage).toMatch(/^partial; basis=backfilling/);
    } finally {
      await ta.close();
    }
  });
});

describe("a wallet's backfill finishes after its token accounts' are queued", () => {
  it('whoever sees the wallet finished sees its token accounts queued (never complete without them)', async () => {
    const wallet = demo.wallets[1];
    const ta = await createTestApp();
    await recordIndexOrigin(ta.t.db, net.chain.slot + 1);
    // The database as the backfiller sees it, with the queued token accounts counted when the wallet's run ends.
    const queuedAtFinish: number[] = [];
    const db = Object.create(ta.t.db) as typeof ta.t.db;
    db.query = (async (sql: string, params?: unknown[]) => {
      if (/^UPDATE backfill_addresses SET\s+status =/.test(sql) && params?.[0] === wallet && params?.[1] === 'done') {
        const { rows } = await ta.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM backfill_addresses WHERE parent = $1', [wallet]);
        queuedAtFinish.push(rows[0].n);
      }
      return ta.t.db.query(sql, params);
    }) as typeof db.query;
    const b = createBackfiller({ db, ingester: createIngester(ta.t.db, logger), client: clients[0], commitment: 'confirmed', logger, pageSize: 7, idleMs: 20 });
    try {
      await enqueueBackfill(ta.t.db, [wallet]);
      b.start();
      while (!queuedAtFinish.length) await sleep(20);
      const { rows } = await ta.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM backfill_addresses WHERE parent = $1', [wallet]);
      expect(rows[0].n).toBeGreaterThan(0);
      expect(queuedAtFinish).toEqual([rows[0].n]);
    } finally {
      await b.stop();
      await ta.close();
    }
  });
});

describe('a backfill stopped mid-way resumes from its cursor', () => {
  it('the stopped and resumed backfill writes the same rows as one uninterrupted run', async () => {
    const wallet = demo.wallets[0];
    const tables = ['transactions', 'address_transactions', 'wallet_transfers', 'wallet_funding', 'mint_supply_changes'];
    const origin = net.chain.slot + 1;

    /** A fresh index that began at `origin`, its backfill of `wallet` run by `run`. */
    async function backfilled(run: (ta: TestApp, make: (o: { leaseMs: number; client: RpcClient }) => Backfiller) => Promise<void>) {
      const ta = await createTestApp();
      await recordIndexOrigin(ta.t.db, origin);
      const ingester = createIngester(ta.t.db, logger);
      const made: Backfiller[] = [];
      try {
        await run(ta, ({ leaseMs, client }) => {
          const b = createBackfiller({ db: ta.t.db, ingester, client, commitment: 'confirmed', logger, pageSize: 3, leaseMs, idleMs: 20 });
          made.push(b);
          return b;
        });
        const digests = await tableDigests(ta.t.db, tables);
        const { rows } = await ta.t.db.query<{ status: string }>('SELECT status FROM backfill_addresses WHERE address = $1', [wallet]);
        return { digests, status: rows[0]?.status };
      } finally {
        for (const b of made) await b.stop();
        await ta.close();
      }
    }

    /** The wallet's backfill and those of its token accounts (queued when it finishes) are all done. */
    const finished = async (ta: TestApp) => {
      for (let i = 0; i < 600; i++) {
        const { rows } = await ta.t.db.query<{ address: string; status: string }>('SELECT address, status FROM backfill_addresses');
        if (rows.some((r) => r.address === wallet && r.status === 'done') && rows.length > 1 && rows.every((r) => r.status === 'done')) return;
        await sleep(50);
      }
      throw new Error('backfill did not finish');
    };

    const whole = await backfilled(async (ta, make) => {
      await enqueueBackfill(ta.t.db, [wallet]);
      make({ leaseMs: 60_000, client: clients[0] }).start();
      await finished(ta);
    });

    let calls = 0;
    const resumed = await backfilled(async (ta, make) => {
      await enqueueBackfill(ta.t.db, [wallet]);
      // The first worker dies mid-way (its calls hang from the 12th on until it is stopped), holding a short lease.
      const dying: RpcClient = {
        url: net.url,
        call: <T>(m: string, p: unknown[], s?: AbortSignal) =>
          ++calls >= 12 ? new Promise<T>((_, reject) => s?.addEventListener('abort', () => reject(new Error('killed')))) : clients[0].call<T>(m, p, s),
        close: async () => {},
      };
      const first = make({ leaseMs: 300, client: dying });
      first.start();
      while (calls < 12) await sleep(10);
      await first.stop();
      const { rows } = await ta.t.db.query<{ status: string; pages: number }>('SELECT status, pages FROM backfill_addresses WHERE address = $1', [wallet]);
      expect(rows[0].status).toBe('running');
      expect(Number(rows[0].pages)).toBeGreaterThan(0);
      // Another worker takes it over once the lease has expired and continues from the cursor.
      make({ leaseMs: 60_000, client: clients[0] }).start();
      await finished(ta);
    });
    expect(whole.status).toBe('done');
    expect(resumed.status).toBe('done');
    expect(whole.digests.address_transactions.rows).toBeGreaterThan(3);
    expect(resumed.digests).toEqual(whole.digests);
  });
});

describe('the watch list', () => {
  it('tracked addresses (and a webhook\'s) are read from the cluster before their first request', async () => {
    let coverage!: CoverageService;
    let reads = 0;
    const ta = await createTestApp((db) => {
      const ingester = createIngester(db, logger);
      coverage = createCoverageService({
        db, ingester, client: clients[0], commitment: 'confirmed', logger,
        fetchState: (c, a) => (reads++, fetchWalletState(c, a, { commitment: 'confirmed' })),
      });
      return { ensureCovered: coverage.ensureCovered, trackAddresses: coverage.track, webhooks: { allowHttp: true, allowPrivate: true } };
    });
    try {
      await recordIndexOrigin(ta.t.db, net.chain.slot + 1);
      coverage.start();
      const [a, b] = [demo.wallets[1], demo.wallets[2]];
      await coverage.track([a]);
      const created = await ta.app.inject({
        method: 'POST', url: '/v0/webhooks', headers: { 'x-api-key': ta.key },
        payload: { webhookURL: 'http://127.0.0.1:9/hook', webhookType: 'enhanced', transactionTypes: ['ANY'], accountAddresses: [b] },
      });
      expect(created.statusCode, created.body).toBe(200);
      const hydrated = async () => (await ta.t.db.query<{ address: string }>('SELECT address FROM address_coverage WHERE state_slot IS NOT NULL AND tracked_at IS NOT NULL')).rows.map((r) => r.address).sort();
      for (let i = 0; i < 200 && (await hydrated()).length < 2; i++) await sleep(50);
      expect(await hydrated()).toEqual([a, b].sort());
      expect(reads).toBe(2);
      // Their first requests are answered from the index: no further read.
      for (const w of [a, b]) expect((await get(ta, balancesUrl(w))).coverage).toMatch(/^complete; basis=hydrated; slot=\d+$/);
      expect(reads).toBe(2);
    } finally {
      await coverage.stop();
      await ta.close();
    }
  });
});

describe('DAS by id on a late index', () => {
  it('getAsset / getAssetBatch of assets minted before the index began equal the full index', async () => {
    let coverage!: CoverageService;
    const ta = await createTestApp((db) => {
      coverage = createCoverageService({ db, ingester: createIngester(db, logger), client: clients[0], commitment: 'confirmed', logger });
      return { ensureCovered: coverage.ensureCovered };
    });
    try {
      await recordIndexOrigin(ta.t.db, net.chain.slot + 1);
      const ids = [...demo.assets.nfts, demo.assets.collection, demo.mints.token2022];
      for (const id of ids) {
        const want = await rpc(full, 'getAsset', { id });
        const got = await rpc(ta, 'getAsset', { id });
        expect(got.body.result, id).toEqual(want.body.result);
        expect(got.coverage).toMatch(/^complete; basis=hydrated; slot=\d+$/);
      }
      const batch = await rpc(ta, 'getAssetBatch', { ids: [...ids, demo.wallets[0]] });
      expect(batch.body.result).toEqual([...(await rpc(full, 'getAssetBatch', { ids })).body.result as unknown[], null]);
      // An address that is no asset (a wallet) is read once and then known not to be one.
      const none = await rpc(ta, 'getAsset', { id: demo.wallets[0] });
      expect(none.body.error).toMatchObject({ code: -32000, message: 'Database Error: RecordNotFound Error: Asset Not Found' });
      expect(none.coverage).toMatch(/^complete; basis=hydrated/);
    } finally {
      await ta.close();
    }
  });
});
