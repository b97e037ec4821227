/**
 * ZK Compression trees of an index that began after the cluster's first slot: the demo workload (with its ZK
 * Compression activity on the Light genesis trees) runs on a localnet with no indexer; then one index ingests the
 * chain from slot 0 (the reference) and another starts at the tip, reads the trees' history before its first live
 * block (src/ingest/zk-history.ts), and follows the chain while the workload goes on. For every demo wallet the late
 * index answers the ZK Compression methods — accounts, balances, token accounts, signatures, Merkle proofs — exactly
 * as the full one, its tree nodes are the same rows, and the answers say they are complete. A read stopped half-way
 * runs again without writing anything twice; a damaged tree state is rebuilt from the cluster (solgate zk-rebuild) as it
 * was; a cluster that pruned its ledger gives answers that say so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createLocalnet, startDemoWorkload, type DemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { createRpcPoller, fetchAccounts } from '../../src/sources/rpc-poller.js';
import { createIngester, type Ingester } from '../../src/ingest/pipeline.js';
import { createCoverageService } from '../../src/ingest/hydrate.js';
import { readZkHistory, readZkHistoryBeforeLive } from '../../src/ingest/zk-history.js';
import { rebuildZkState } from '../../src/ingest/zk-rebuild.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { getZkHistory } from '../../src/store/zk/history.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { getIndexOrigin, recordIndexOrigin } from '../../src/store/coverage.js';
import { tableDigests } from '../helpers/db.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const logger = pino({ level: 'silent' });
const ZK_TABLES = [
  'zk_accounts', 'zk_token_accounts', 'zk_owner_balances', 'zk_token_owner_balances', 'zk_state_nodes', 'zk_indexed_elements',
  'zk_address_queue', 'zk_batch_events', 'zk_account_transactions',
];

let net: Localnet;
let demo: DemoWorkload;
let full: TestApp & { ingester: Ingester };
let late: TestApp & { ingester: Ingester };
let origin = 0;
const clients: RpcClient[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runUntil(done: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(3);
    net.chain.produceSlot();
  }
}

function newIngester(db: TestApp['t']['db']): Ingester {
  return createIngester(db, logger, { fetchAccounts: (keys) => fetchAccounts(net.url, keys, { commitment: 'confirmed' }) });
}

function client(): RpcClient {
  const c = createRpcClient({ url: net.url, maxRetries: 2 });
  clients.push(c);
  return c;
}

/** Follows the chain from `startSlot` (or the checkpoint) through the current slot as `serve` does. */
async function ingestThrough(ingester: Ingester, app: TestApp, startSlot: number, beforeLive?: (from: number, s: AbortSignal) => Promise<void>): Promise<void> {
  const tip = net.chain.slot;
  const ctl = new AbortController();
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', concurrency: 4, pollIntervalMs: 20, fetchAccounts: true, logger });
  let failed: unknown = null;
  const run = ingester.run(poller, { startSlot, signal: ctl.signal, beforeLive }).catch((e) => void (failed = e)).finally(() => poller.close());
  while (((await getCheckpoint(app.t.db)) ?? -1) < tip) {
    if (failed) throw failed;
    await sleep(20);
  }
  ctl.abort();
  await run;
  await ingester.settle();
}

async function rpc(ta: TestApp, method: string, params: unknown) {
  const r = await ta.app.inject({ method: 'POST', url: '/', headers: { 'x-api-key': ta.key }, payload: { jsonrpc: '2.0', id: 1, method, params } });
  expect(r.statusCode, r.body).toBe(200);
  const body = r.json() as { result?: any; error?: any };
  expect(body.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
  return { result: body.result, coverage: r.headers['x-solgate-coverage'] as string | undefined };
}

/** An app whose coverage service reports what its index knows (the late index's origin, the ZK history's outcome). */
async function appWithCoverage(): Promise<TestApp> {
  return createTestApp((db) => {
    const coverage = createCoverageService({ db, client: null, commitment: 'confirmed', logger });
    return { ensureCovered: coverage.ensureCovered, indexCoverage: coverage.indexCoverage };
  });
}

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0, light: true });
  demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 3, failureRate: 0, light: true });
  const light = demo.light!;
  const t0 = Date.now();
  const step = (m: string) => process.env.DEBUG_ZK_HISTORY && console.log(`${Date.now() - t0} ms: ${m}`, JSON.stringify(light.stats));
  await runUntil(() => light.stats.v1Outputs >= 6 && light.stats.solTransfers + light.stats.tokenTransfers >= 3 && light.stats.tokenMints >= 1);
  net.chain.produceSlot();

  full = { ...(await createTestApp()), ingester: undefined as unknown as Ingester };
  full.ingester = newIngester(full.t.db);
  step('workload ran');
  await ingestThrough(full.ingester, full, 0);
  step('full index');

  // The late index begins at the tip: everything above happened before it.
  const l = await appWithCoverage();
  late = { ...l, ingester: newIngester(l.t.db) };
  origin = net.chain.slot;
  const zk = { db: late.t.db, ingester: late.ingester, client: client(), commitment: 'confirmed' as const, logger, chunk: 5 };
  await ingestThrough(late.ingester, late, origin, (from, s) => readZkHistoryBeforeLive(zk, from, s));
  step('late index');

  // The workload goes on; both indexes follow it live.
  const before = light.stats.compressions + light.stats.solTransfers + light.stats.tokenTransfers;
  await runUntil(() => light.stats.compressions + light.stats.solTransfers + light.stats.tokenTransfers >= before + 3);
  await demo.stop();
  net.chain.produceSlot();
  await ingestThrough(full.ingester, full, 0);
  await ingestThrough(late.ingester, late, origin);
}, 300_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  await full?.close();
  await late?.close();
  await net?.close();
});

describe('ZK Compression trees read back to their creation', () => {
  it('the late index began after the activity and read the trees\' history before its first live block', async () => {
    expect(await getIndexOrigin(late.t.db)).toBe(origin);
    const h = await getZkHistory(late.t.db);
    expect(h).toMatchObject({ origin, status: 'done' });
    expect(h!.trees).toBeGreaterThan(0);
    expect(h!.transactions).toBeGreaterThanOrEqual(6);
  });

  it('its ZK Compression rows and tree nodes are those of the index that saw every block', async () => {
    expect(await tableDigests(late.t.db, ZK_TABLES)).toEqual(await tableDigests(full.t.db, ZK_TABLES));
    // It knows every tree of the chain (read with getProgramAccounts), the full index those it saw used.
    const trees = async (ta: TestApp) => (await ta.t.db.query<{ t: string }>('SELECT (z.*)::text AS t FROM zk_trees z ORDER BY 1')).rows.map((r) => r.t);
    const [a, b] = [await trees(full), await trees(late)];
    expect(a.length).toBeGreaterThan(0);
    expect(b).toEqual(expect.arrayContaining(a));
    expect(b.length).toBe((await getZkHistory(late.t.db))!.trees);
  });

  it('every demo wallet\'s accounts, balances, token accounts, signatures and proofs are the same, and complete', async () => {
    let proved = 0;
    for (const owner of demo.wallets) {
      for (const [method, params] of [
        ['getCompressedAccountsByOwner', { owner }],
        ['getCompressedBalanceByOwner', { owner }],
        ['getCompressedTokenAccountsByOwner', { owner }],
        ['getCompressedTokenBalancesByOwnerV2', { owner }],
        ['getCompressionSignaturesForOwner', { owner }],
        ['getCompressedAccountsByOwnerV2', { owner }],
      ] as const) {
        const a = await rpc(full, method, params);
        const b = await rpc(late, method, params);
        expect(b.result, `${method} ${owner}`).toEqual(a.result);
        expect(b.coverage, method).toBe('complete; basis=backfilled');
      }
      const accounts = (await rpc(full, 'getCompressedAccountsByOwner', { owner })).result.value.items as { hash: string }[];
      expect(accounts.length, owner).toBeGreaterThan(0);
      const hashes = accounts.map((x) => x.hash);
      const a = await rpc(full, 'getMultipleCompressedAccountProofsV2', hashes);
      const b = await rpc(late, 'getMultipleCompressedAccountProofsV2', hashes);
      expect(b.result).toEqual(a.result);
      proved += hashes.length;
    }
    expect(proved).toBeGreaterThan(3);
  });

  it('a read stopped half-way runs again and writes nothing twice', async () => {
    const l = await appWithCoverage();
    try {
      await recordIndexOrigin(l.t.db, origin);
      const ingester = newIngester(l.t.db);
      let chunks = 0;
      const stopping = { ...ingester, zk: ingester.zk, ingestZkHistory: async (txs: Parameters<Ingester['ingestZkHistory']>[0]) => {
        if (++chunks > 2) throw new Error('killed');
        await ingester.ingestZkHistory(txs);
      } };
      const c = client();
      await expect(readZkHistory({ db: l.t.db, ingester: stopping, client: c, commitment: 'confirmed', logger, chunk: 3 }, origin)).rejects.toThrow('killed');
      expect((await getZkHistory(l.t.db))?.status).toBe('running');
      const partial = await rpc(l, 'getCompressedAccountsByOwner', { owner: demo.wallets[0] });
      expect(partial.coverage).toBe(`partial; basis=backfilling; slot=${origin}`);
      // Again, from the start: what was applied is skipped, the rest applied.
      await readZkHistory({ db: l.t.db, ingester, client: c, commitment: 'confirmed', logger, chunk: 3 }, origin);
      // A reference that read the same history in one go.
      const r = await appWithCoverage();
      try {
        const ri = newIngester(r.t.db);
        await readZkHistory({ db: r.t.db, ingester: ri, client: c, commitment: 'confirmed', logger }, origin);
        expect(await tableDigests(l.t.db, ZK_TABLES)).toEqual(await tableDigests(r.t.db, ZK_TABLES));
      } finally {
        await r.close();
      }
    } finally {
      await l.close();
    }
  });

  it('a damaged tree state is rebuilt from the cluster (solgate zk-rebuild): every row as before', async () => {
    const before = await tableDigests(full.t.db, ZK_TABLES);
    // A node of a tree overwritten, an account lost: later roots and proofs depend on both.
    await full.t.db.query(`UPDATE zk_state_nodes SET hash = $1 WHERE ctid = (SELECT ctid FROM zk_state_nodes ORDER BY tree, node_idx LIMIT 1)`, [Buffer.alloc(32, 7)]);
    await full.t.db.query('DELETE FROM zk_accounts WHERE ctid = (SELECT ctid FROM zk_accounts ORDER BY hash LIMIT 1)');
    expect(await tableDigests(full.t.db, ZK_TABLES)).not.toEqual(before);
    // Stopped half-way (Ctrl-C): this index began at slot 0, and its ZK Compression answers say they are partial.
    const coverage = createCoverageService({ db: full.t.db, client: null, commitment: 'confirmed', logger });
    expect(await getIndexOrigin(full.t.db)).toBe(0);
    expect(await coverage.indexCoverage!('zk')).toMatchObject({ complete: true, basis: 'genesis' });
    const ctl = new AbortController();
    const halting = { ...full.ingester, zk: full.ingester.zk, ingestZkHistory: async (txs: Parameters<Ingester['ingestZkHistory']>[0]) => {
      await full.ingester.ingestZkHistory(txs);
      ctl.abort();
      throw new Error('stopped');
    } };
    await expect(rebuildZkState({ db: full.t.db, ingester: halting, client: client(), commitment: 'confirmed', logger, chunk: 5 }, ctl.signal)).rejects.toThrow();
    const checkpoint = (await getCheckpoint(full.t.db))!;
    // The coverage service reads the trees' history state at most once a second (ZK_HISTORY_RECHECK_MS).
    await sleep(1100);
    expect(await coverage.indexCoverage!('zk')).toEqual({ complete: false, basis: 'backfilling', slot: checkpoint + 1 });
    // Run again: finished.
    const r = await rebuildZkState({ db: full.t.db, ingester: full.ingester, client: client(), commitment: 'confirmed', logger, chunk: 5 });
    await full.ingester.settle();
    expect(r).toMatchObject({ status: 'done', through: await getCheckpoint(full.t.db) });
    expect(r.transactions).toBeGreaterThanOrEqual(6);
    expect(await tableDigests(full.t.db, ZK_TABLES)).toEqual(before);
    expect(await getZkHistory(full.t.db)).toMatchObject({ status: 'done', origin: r.through + 1 });
    await sleep(1100);
    expect(await coverage.indexCoverage!('zk')).toMatchObject({ complete: true, basis: 'genesis' });
  });
});

describe('a cluster that pruned its ledger', () => {
  it('the trees\' history is read as far as the cluster serves it, and ZK Compression answers say they are partial', async () => {
    const pruned = await createLocalnet({ slotMs: 0, maxBlocks: 12, light: true });
    const d = await startDemoWorkload(pruned.chain, { intervalMs: 1, wallets: 2, failureRate: 0, light: true });
    const ta = await appWithCoverage();
    const c = createRpcClient({ url: pruned.url, maxRetries: 2 });
    try {
      const end = Date.now() + 60_000;
      while (pruned.chain.slot < 40 || d.light!.stats.compressions < 4) {
        if (Date.now() > end) throw new Error('timed out');
        await sleep(3);
        pruned.chain.produceSlot();
      }
      await d.stop();
      pruned.chain.produceSlot();
      const at = pruned.chain.slot;
      await recordIndexOrigin(ta.t.db, at);
      const ingester = createIngester(ta.t.db, logger, { fetchAccounts: (keys) => fetchAccounts(pruned.url, keys, { commitment: 'confirmed' }) });
      const r = await readZkHistory({ db: ta.t.db, ingester, client: c, commitment: 'confirmed', logger }, at);
      expect(r.status).toBe('truncated');
      const h = await getZkHistory(ta.t.db);
      expect(h?.status).toBe('truncated');
      expect(h!.oldestSlot).toBeGreaterThan(0);
      const a = await rpc(ta, 'getCompressedAccountsByOwner', { owner: d.wallets[0] });
      expect(a.coverage).toMatch(new RegExp(`^partial; basis=truncated; slot=${h!.oldestSlot}; error="the cluster serves its ledger only from slot \\d+ on`));
    } finally {
      await c.close();
      await ta.close();
      await pruned.close();
    }
  });
});
