/**
 * The automatic ZK Compression repair (SOLGATE_DRIFT_ZK_REPAIR=rebuild) on a localnet running the demo workload with
 * ZK Compression while the ingester follows it live: a V1 state tree's leaf node is damaged and a compressed account
 * lost; the drift detector reports the tree, confirms it in the next round and records a rebuild request (zk_repairs;
 * on PostgreSQL through a connection pool of its own, as a detector in another process would); the ingester picks it
 * up between two blocks. Its first attempt fails half-way: the request keeps its error, ZK Compression answers say
 * partial, and ingestion goes on. The second attempt rebuilds while no block is written (the checkpoint stands still
 * throughout, blocks keep arriving), then ingestion resumes from the checkpoint. At the end every chain and ZK
 * Compression table equals that of an index that ingested the same chain without damage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { registry } from '../../src/core/metrics.js';
import { bytesToBase58 } from '../../src/core/encoding.js';
import { createIngester, type ExclusiveWork, type Ingester } from '../../src/ingest/pipeline.js';
import { createDriftDetector } from '../../src/ingest/drift.js';
import { createCoverageService } from '../../src/ingest/hydrate.js';
import { createZkRepairWork } from '../../src/ingest/zk-repair.js';
import { createLocalnet, startDemoWorkload, type DemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { createRpcPoller, fetchAccounts } from '../../src/sources/rpc-poller.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { openDb, type Db } from '../../src/store/db.js';
import { getZkHistory } from '../../src/store/zk/history.js';
import { listZkRepairs } from '../../src/store/zk/repair.js';
import { CHAIN_TABLES, createTestDb, tableDigests, type TestDb } from '../helpers/db.js';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The ZK Compression tables a rebuild writes (zk_trees gains every tree of the chain; zk_transactions keeps a window). */
const ZK_TABLES = [
  'zk_accounts', 'zk_token_accounts', 'zk_owner_balances', 'zk_token_owner_balances', 'zk_state_nodes', 'zk_indexed_elements',
  'zk_address_queue', 'zk_batch_events', 'zk_account_transactions',
];

let net: Localnet;
let demo: DemoWorkload;
let producing = true;
let producer: Promise<void>;
const clients: RpcClient[] = [];
const dbs: TestDb[] = [];
const cleanups: (() => Promise<void>)[] = [];

function client(): RpcClient {
  const c = createRpcClient({ url: net.url, maxRetries: 2 });
  clients.push(c);
  return c;
}

function newIngester(db: Db): Ingester {
  return createIngester(db, logger, { fetchAccounts: (keys) => fetchAccounts(net.url, keys, { commitment: 'confirmed' }) });
}

const t0 = Date.now();
async function until(what: string, done: () => Promise<boolean> | boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  if (process.env.DEBUG_ZK_REPAIR) console.log(`${Date.now() - t0} ms: waiting for ${what} (slot ${net.chain.slot})`);
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Follows the chain live from slot 0 until `signal` aborts. */
function follow(ingester: Ingester, signal: AbortSignal, exclusive?: ExclusiveWork): Promise<void> {
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', concurrency: 4, pollIntervalMs: 20, fetchAccounts: false, logger });
  return ingester.run(poller, { startSlot: 0, signal, exclusive }).finally(() => poller.close()).then(() => ingester.settle());
}

const metric = async (name: string, label: string) =>
  (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.outcome === label)?.value ?? 0;

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0, light: true });
  demo = await startDemoWorkload(net.chain, { intervalMs: 5, wallets: 3, failureRate: 0, light: true });
  producer = (async () => {
    while (producing) {
      await sleep(20);
      net.chain.produceSlot();
    }
  })();
  await until('the workload', () => demo.light!.stats.v1Outputs >= 6 && demo.light!.stats.compressions >= 8, 180_000);
}, 240_000);

afterAll(async () => {
  producing = false;
  await producer;
  await demo?.stop();
  for (const c of clients) await c.close();
  for (const f of cleanups) await f();
  for (const t of dbs) await t.drop();
  await net?.close();
});

describe('automatic ZK Compression repair', () => {
  it('a damaged tree found twice by the detector is rebuilt by the ingester between blocks; the index ends as an undamaged one', async () => {
    const t = await createTestDb();
    dbs.push(t);
    const ingester = newIngester(t.db);
    // The rebuild's cluster reads: the first attempt fails at its first transaction read; every call notes the
    // checkpoint and the chain's slot, and the second attempt's first transaction read what ZK answers say meanwhile.
    const inner = client();
    let attempt = 0;
    const calls: { attempt: number; checkpoint: number | null; chainSlot: number }[] = [];
    let coverageDuring: unknown = null;
    const repairClient: RpcClient = {
      url: inner.url,
      close: () => inner.close(),
      async call<T>(method: string, params: unknown[], signal?: AbortSignal): Promise<T> {
        if (method === 'getProgramAccounts') attempt++;
        calls.push({ attempt, checkpoint: await getCheckpoint(t.db), chainSlot: net.chain.slot });
        if (method === 'getTransaction' && attempt === 1) throw new Error('the cluster went away');
        if (method === 'getTransaction' && attempt === 2 && coverageDuring === null)
          coverageDuring = await createCoverageService({ db: t.db, client: null, commitment: 'confirmed', logger }).indexCoverage!('zk');
        return inner.call<T>(method, params, signal);
      },
    };
    const work = createZkRepairWork({ db: t.db, ingester, client: repairClient, commitment: 'confirmed', logger, pollMs: 100, retryMs: 3_600_000 });
    const ctl = new AbortController();
    let failed: unknown = null;
    const run = follow(ingester, ctl.signal, work).catch((e) => void (failed = e));
    const caughtUp = async (slot: number) => {
      if (failed) throw failed;
      return ((await getCheckpoint(t.db)) ?? -1) >= slot;
    };
    const started = net.chain.slot;
    await until('the index to catch up', () => caughtUp(started));

    // A leaf node of a V1 state tree damaged (V1 trees only grow in the demo: it stays damaged), an account lost.
    const { rows: [leaf] } = await t.db.query<{ hash: Buffer; tree: Buffer; node: string }>(
      `SELECT a.hash, a.tree, ((1::bigint << t.height) + a.leaf_index)::text AS node FROM zk_accounts a JOIN zk_trees t ON t.tree = a.tree
        WHERE t.tree_type = 1 AND NOT a.spent AND a.leaf_index IS NOT NULL ORDER BY a.leaf_index, a.hash LIMIT 1`,
    );
    const tree = bytesToBase58(new Uint8Array(leaf.tree));
    await t.db.query('UPDATE zk_state_nodes SET hash = $3 WHERE tree = $1 AND node_idx = $2', [leaf.tree, leaf.node, Buffer.alloc(32, 9)]);
    const lost = await t.db.query(
      `DELETE FROM zk_accounts WHERE hash = (SELECT a.hash FROM zk_accounts a JOIN zk_trees t ON t.tree = a.tree WHERE t.tree_type = 1 AND a.hash <> $1 ORDER BY a.hash DESC LIMIT 1)
       RETURNING hash`,
      [leaf.hash],
    );
    expect(lost.rows).toHaveLength(1);

    // The detector: on PostgreSQL with a pool of its own (another process's detector reaches the ingester the same way).
    const detectorDb = t.url ? await openDb({ databaseUrl: t.url, poolSize: 2 }) : t.db;
    const detector = createDriftDetector({
      db: detectorDb, client: client(), ingester, commitment: 'confirmed', sample: 10_000, treeSample: 100, startAt: () => '1', logger,
      zkRepair: 'rebuild', onZkRepair: t.url ? undefined : () => work.wake(),
    });
    if (detectorDb !== t.db) cleanups.push(() => detectorDb.close());
    const before = { failed: await metric('solgate_drift_zk_repairs_total', 'failed'), done: await metric('solgate_drift_zk_repairs_total', 'done') };
    // A busy tree that changed after the compared slot is skipped, not judged: rounds until it is judged.
    const zkFound = async () => {
      for (let i = 0; i < 30; i++) {
        const r = await detector.runOnce();
        const zk = r.mismatches.filter((m) => m.kind.startsWith('zk_'));
        if (zk.length) return { r, zk };
      }
      throw new Error('the detector did not judge the damaged tree in 30 rounds');
    };
    const first = await zkFound();
    expect(first.zk.every((m) => m.action === 'reported' && (m.address === tree || m.indexed.tree === tree))).toBe(true);
    expect(first.r.rebuild).toEqual([]);
    expect(await listZkRepairs(t.db)).toEqual([]);
    // Found again: confirmed, the rebuild requested.
    const second = await zkFound();
    expect(second.r.rebuild).toEqual([tree]);
    expect(second.zk.every((m) => m.action === 'queued')).toBe(true);

    // The first attempt fails half-way: recorded, ZK answers partial, ingestion goes on.
    await until('the failed attempt', async () => (await listZkRepairs(t.db))[0]?.lastError !== null);
    const [failedReq] = await listZkRepairs(t.db);
    expect(failedReq).toMatchObject({ status: 'requested', attempts: 1, trees: [tree], lastError: expect.stringContaining('the cluster went away') });
    expect(await metric('solgate_drift_zk_repairs_total', 'failed')).toBe(before.failed + 1);
    const failedAt = calls.find((c) => c.attempt === 1)!.checkpoint!;
    expect(await getZkHistory(t.db)).toMatchObject({ status: 'running', origin: failedAt + 1 });
    expect(await createCoverageService({ db: t.db, client: null, commitment: 'confirmed', logger }).indexCoverage!('zk'))
      .toEqual({ complete: false, basis: 'backfilling', slot: failedAt + 1 });
    await until('ingestion after the failure', () => caughtUp(failedAt + 5));

    // Due again (as after its pause): the ingester rebuilds, the checkpoint standing still meanwhile.
    await t.db.query(`UPDATE zk_repairs SET not_before = now()`);
    work.wake();
    await until('the rebuild', async () => (await listZkRepairs(t.db))[0]?.status === 'done');
    const [done] = await listZkRepairs(t.db);
    expect(done).toMatchObject({ attempts: 2, trees: [tree] });
    expect(done.through).toBeGreaterThan(failedAt + 4);
    const during = calls.filter((c) => c.attempt === 2);
    expect(during.length).toBeGreaterThan(3);
    expect(new Set(during.map((c) => c.checkpoint))).toEqual(new Set([done.through]));
    expect(during.at(-1)!.chainSlot).toBeGreaterThan(during[0].chainSlot);
    expect(coverageDuring).toEqual({ complete: false, basis: 'backfilling', slot: done.through! + 1 });
    expect(await metric('solgate_drift_zk_repairs_total', 'done')).toBe(before.done + 1);
    expect(await getZkHistory(t.db)).toMatchObject({ status: 'done', origin: done.through! + 1 });

    // Ingestion resumed; the workload stops, the index reaches the tip; the detector finds nothing.
    await until('ingestion after the rebuild', () => caughtUp(done.through! + 5));
    const light = demo.light!.stats.compressions;
    await until('more compressed activity', () => demo.light!.stats.compressions >= light + 2);
    expect((await detector.runOnce()).mismatches).toEqual([]);
    producing = false;
    await producer;
    await demo.stop();
    net.chain.produceSlot();
    const tip = net.chain.slot;
    await until('the tip', () => caughtUp(tip));
    ctl.abort();
    await run;
    expect(failed).toBeNull();

    // An index of the same chain without damage.
    const ref = await createTestDb();
    dbs.push(ref);
    const refCtl = new AbortController();
    const refRun = follow(newIngester(ref.db), refCtl.signal);
    await until('the reference', async () => ((await getCheckpoint(ref.db)) ?? -1) >= tip);
    refCtl.abort();
    await refRun;
    expect(await getCheckpoint(t.db)).toBe(tip);
    expect(await getCheckpoint(ref.db)).toBe(tip);
    const after = `SELECT slot FROM blocks WHERE slot > $1 ORDER BY slot`;
    const resumed = (await t.db.query<{ slot: string }>(after, [done.through])).rows;
    expect(resumed.length).toBeGreaterThan(5);
    expect(resumed).toEqual((await ref.db.query<{ slot: string }>(after, [done.through])).rows);
    expect(await tableDigests(t.db, [...CHAIN_TABLES, ...ZK_TABLES])).toEqual(await tableDigests(ref.db, [...CHAIN_TABLES, ...ZK_TABLES]));
  }, 600_000);
});
