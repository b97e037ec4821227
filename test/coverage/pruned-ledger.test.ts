/**
 * A cluster that pruned its ledger (the localnet keeping only its last blocks, as `--limit-ledger-size` does): the
 * backfill writes what the cluster still serves and says how far back the history is complete; funded-by refuses to
 * guess the first funding from a later transfer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createLocalnet, LocalnetBlockSource, startDemoWorkload, type DemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createCoverageService } from '../../src/ingest/hydrate.js';
import { createBackfiller, type Backfiller } from '../../src/ingest/backfill.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { recordIndexOrigin } from '../../src/store/coverage.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let net: Localnet;
let demo: DemoWorkload;
let ta: TestApp;
let client: RpcClient;
let backfill: Backfiller;

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0, maxBlocks: 12 });
  demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 2, failureRate: 0 });
  // Until the first blocks are pruned and the last ones still hold some of the second wallet's transactions.
  const retained = async () => ((await (await fetch(net.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [demo.wallets[1]] }) })).json()) as { result: unknown[] }).result.length;
  while (net.chain.slot < 40 || (await retained()) < 3) {
    await sleep(5);
    net.chain.produceSlot();
  }
  await demo.stop();
  net.chain.produceSlot();
  client = createRpcClient({ url: net.url, maxRetries: 1 });
  ta = await createTestApp((db) => {
    const ingester = createIngester(db, logger);
    backfill = createBackfiller({ db, ingester, client, commitment: 'confirmed', logger, idleMs: 20 });
    const coverage = createCoverageService({ db, ingester, client, commitment: 'confirmed', logger, backfill, historyWaitMs: 30_000 });
    return { ensureCovered: coverage.ensureCovered };
  });
  backfill.start();
  // Live ingestion begins after all of the above, with one (empty) block.
  const origin = net.chain.slot + 1;
  await recordIndexOrigin(ta.t.db, origin);
  net.chain.produceSlot();
  const ctl = new AbortController();
  const live = createIngester(ta.t.db, logger);
  const run = live.run(new LocalnetBlockSource(net.chain), { startSlot: origin, signal: ctl.signal });
  while (((await getCheckpoint(ta.t.db)) ?? -1) < origin) await sleep(20);
  ctl.abort();
  await run;
}, 120_000);

afterAll(async () => {
  await backfill?.stop();
  await client?.close();
  await ta?.close();
  await net?.close();
});

describe('history on a cluster that pruned its ledger', () => {
  it('is answered as partial from the first slot the cluster serves, and funded-by is 404 saying why', async () => {
    const first = Number(((await (await fetch(net.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getFirstAvailableBlock', params: [] }) })).json()) as { result: number }).result);
    expect(first).toBeGreaterThan(1);
    const w = demo.wallets[1];
    const h = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${w}/history?limit=100`, headers: { 'x-api-key': ta.key } });
    expect(h.statusCode).toBe(200);
    expect(h.headers['x-solgate-coverage']).toBe(`partial; basis=truncated; slot=${first}; error="the cluster serves its ledger only from slot ${first} on: older history is not available"`);
    const slots = (h.json().data as { slot: number }[]).map((d) => d.slot);
    expect(slots.length).toBeGreaterThan(0);
    expect(Math.min(...slots)).toBeGreaterThanOrEqual(first);
    const f = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${w}/funded-by`, headers: { 'x-api-key': ta.key } });
    expect(f.statusCode).toBe(404);
    expect(f.headers['retry-after']).toBeUndefined();
    expect(f.json()).toEqual({ error: 'Funding source cannot be known', code: 404, details: `${w}: the cluster serves its history only from slot ${first} on, so its first funding cannot be known` });
  });
});
