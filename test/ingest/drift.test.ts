/**
 * The drift detector on the localnet running the demo workload (transfers with failures, SPL and Token-2022, v0 with a
 * lookup table, NFTs), indexed through the poller: every sampled row agrees with the cluster at the same slot; a SOL
 * balance and a token account corrupted by hand are found, counted in /metrics, and repaired from the cluster; the
 * next round finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { registry } from '../../src/core/metrics.js';
import { createIngester, type Ingester } from '../../src/ingest/pipeline.js';
import { createDriftDetector } from '../../src/ingest/drift.js';
import { createLocalnet, startDemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { createRpcPoller, fetchAccounts } from '../../src/sources/rpc-poller.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let net: Localnet;
let t: TestDb;
let ingester: Ingester;
let client: RpcClient;

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0 });
  const demo = await startDemoWorkload(net.chain, { intervalMs: 5, wallets: 4, failureRate: 0.1, light: false });
  const end = Date.now() + 120_000;
  while ((demo.stats.sent < 30 || demo.assets.nfts.length === 0) && Date.now() < end) {
    await sleep(5);
    net.chain.produceSlot();
  }
  await demo.stop();
  net.chain.produceSlot();
  t = await createTestDb();
  ingester = createIngester(t.db, logger, { fetchAccounts: (keys) => fetchAccounts(net.url, keys, { commitment: 'confirmed' }) });
  const tip = net.chain.slot;
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', pollIntervalMs: 20, logger });
  const ctl = new AbortController();
  const run = ingester.run(poller, { startSlot: 0, signal: ctl.signal });
  while (((await getCheckpoint(t.db)) ?? -1) < tip) await sleep(20);
  ctl.abort();
  await run;
  await poller.close();
  client = createRpcClient({ url: net.url, maxRetries: 2 });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await t?.drop();
  await net?.close();
});

const metric = async (name: string, kind: string) =>
  (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.kind === kind)?.value ?? 0;

describe('drift detector', () => {
  it('finds a corrupted SOL balance and token account, counts them, repairs them from the cluster; the rest agrees', async () => {
    const detector = createDriftDetector({ db: t.db, client, ingester, commitment: 'confirmed', sample: 10_000, startAt: () => '1', logger });
    const clean = await detector.runOnce();
    expect(clean.checked).toBeGreaterThan(20);
    expect(clean.mismatches).toEqual([]);

    const { rows: [sol] } = await t.db.query<{ address: string; lamports: string }>('SELECT address, lamports::text AS lamports FROM sol_balances WHERE lamports > 0 ORDER BY address LIMIT 1');
    const { rows: [tok] } = await t.db.query<{ address: string; amount: string }>('SELECT address, amount::text AS amount FROM token_accounts WHERE NOT closed AND amount > 0 ORDER BY address LIMIT 1');
    await t.db.query('UPDATE sol_balances SET lamports = lamports + 12345 WHERE address = $1', [sol.address]);
    await t.db.query('UPDATE token_accounts SET amount = amount + 7 WHERE address = $1', [tok.address]);
    const solBefore = await metric('solgate_drift_mismatches_total', 'sol_balance');
    const tokBefore = await metric('solgate_drift_mismatches_total', 'token_account');

    const found = await detector.runOnce();
    expect(found.mismatches.map((m) => [m.kind, m.address]).sort()).toEqual([['sol_balance', sol.address], ['token_account', tok.address]].sort());
    const solMismatch = found.mismatches.find((m) => m.kind === 'sol_balance')!;
    expect(solMismatch.cluster.lamports).toBe(sol.lamports);
    expect(solMismatch.indexed.lamports).toBe(String(BigInt(sol.lamports) + 12345n));
    expect(found.repaired).toBe(2);
    expect(await metric('solgate_drift_mismatches_total', 'sol_balance')).toBe(solBefore + 1);
    expect(await metric('solgate_drift_mismatches_total', 'token_account')).toBe(tokBefore + 1);

    const { rows: [solAfter] } = await t.db.query<{ lamports: string }>('SELECT lamports::text AS lamports FROM sol_balances WHERE address = $1', [sol.address]);
    const { rows: [tokAfter] } = await t.db.query<{ amount: string }>('SELECT amount::text AS amount FROM token_accounts WHERE address = $1', [tok.address]);
    expect(solAfter.lamports).toBe(sol.lamports);
    expect(tokAfter.amount).toBe(tok.amount);
    const again = await detector.runOnce();
    expect(again.mismatches).toEqual([]);
  }, 120_000);

  it('a row changed in the index after the compared slot is skipped, not judged', async () => {
    const detector = createDriftDetector({ db: t.db, client, ingester, commitment: 'confirmed', sample: 10_000, startAt: () => '1', logger });
    const { rows: [sol] } = await t.db.query<{ address: string }>('SELECT address FROM sol_balances ORDER BY address LIMIT 1');
    // As if a later block had written it (a position far beyond the chain's slot).
    await t.db.query('UPDATE sol_balances SET lamports = lamports + 1, pos = $2 WHERE address = $1', [sol.address, (net.chain.slot + 1000) * 1_000_000]);
    const r = await detector.runOnce();
    expect(r.skipped).toBeGreaterThanOrEqual(1);
    expect(r.mismatches.filter((m) => m.address === sol.address)).toEqual([]);
  }, 60_000);
});
