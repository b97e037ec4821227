/**
 * Pyth feed polling against a real JSON-RPC server: the built-in localnet with real PriceUpdateV2 accounts installed at
 * genesis (at the addresses data/pyth-feeds.json lists), read with `getMultipleAccounts` by the poller serve and
 * ingest run, written through the ingester into pyth_prices. Feed accounts the cluster does not have are skipped.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createPythPoller } from '../../src/ingest/pyth-poll.js';
import { PYTH_RECEIVER_PROGRAM, decodePriceUpdateV2 } from '../../src/parsers/pyth/price-update.js';
import { loadPythFeeds } from '../../src/pricing/pyth-feeds.js';
import { fetchAccounts } from '../../src/sources/rpc-poller.js';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { queryPythPrices } from '../../src/store/prices.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { PYTH_ACCOUNTS } from './pyth-accounts.js';

const FEEDS = loadPythFeeds(join(import.meta.dirname, '..', '..', 'data', 'pyth-feeds.json'));
const installed = [PYTH_ACCOUNTS.sol, PYTH_ACCOUNTS.usdc, PYTH_ACCOUNTS.bonk];

let net: Localnet;
let t: TestDb;

beforeAll(async () => {
  net = await createLocalnet({
    slotMs: 0,
    accounts: installed.map((a) => ({ address: a.address, lamports: 1_825_020n, owner: PYTH_RECEIVER_PROGRAM, data: new Uint8Array(Buffer.from(a.base64, 'base64')) })),
  });
  t = await createTestDb();
}, 120_000);
afterAll(async () => {
  await net?.close();
  await t?.drop();
});

describe('Pyth feed polling (getMultipleAccounts on the localnet)', () => {
  it('writes the feeds the cluster has, once per update', async () => {
    const poller = createPythPoller({
      accounts: [...FEEDS.values()].map((f) => f.account),
      fetchAccounts: (keys) => fetchAccounts(net.url, keys),
      ingester: createIngester(t.db),
      intervalMs: 0,
    });
    expect(await poller.pollOnce()).toBe(installed.length);
    const ids = installed.map((a) => decodePriceUpdateV2(new Uint8Array(Buffer.from(a.base64, 'base64')))!.feedId);
    const stored = await queryPythPrices(t.db, [...FEEDS.values()].map((f) => f.feedId));
    expect([...stored.keys()].sort()).toEqual([...ids].sort());
    for (const a of installed) {
      const p = decodePriceUpdateV2(new Uint8Array(Buffer.from(a.base64, 'base64')))!;
      expect(stored.get(p.feedId)).toMatchObject({ account: a.address, price: p.price, exponent: p.exponent, publishTime: Number(p.publishTime), postedSlot: Number(p.postedSlot) });
      expect(FEEDS.get(a.mint)?.feedId).toBe(p.feedId);
    }
    // Reading the same states again changes nothing.
    const { rows: before } = await t.db.query('SELECT * FROM pyth_prices ORDER BY feed_id');
    await poller.pollOnce();
    const { rows: after } = await t.db.query('SELECT * FROM pyth_prices ORDER BY feed_id');
    expect(after.map((r) => ({ ...r, slot: null }))).toEqual(before.map((r) => ({ ...r, slot: null })));
  });

  it('start/stop: polls on its interval and stops cleanly; a failing read is retried, not thrown', async () => {
    let calls = 0;
    const poller = createPythPoller({
      accounts: [PYTH_ACCOUNTS.sol.address],
      fetchAccounts: async (keys) => {
        calls++;
        if (calls === 1) throw new Error('connection reset');
        return fetchAccounts(net.url, keys);
      },
      ingester: createIngester(t.db),
      intervalMs: 20,
      logger: { warn: () => {}, debug: () => {} },
    });
    poller.start();
    await new Promise((r) => setTimeout(r, 300));
    await poller.stop();
    const n = calls;
    expect(n).toBeGreaterThanOrEqual(3);
    await new Promise((r) => setTimeout(r, 100));
    expect(calls).toBe(n);
  });
});
