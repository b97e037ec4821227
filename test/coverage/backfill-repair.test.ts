/**
 * Repair runs of the history backfill (what the drift detector queues for a tree whose indexed root is behind the
 * cluster's): on a localnet whose index began after its first slots, a transaction live ingestion indexed after the
 * origin is removed from the history tables (a change the index missed). A plain backfill of the address, already
 * done, leaves it missing; a repair run writes it back exactly as live ingestion had written it (same rows, same
 * position in its block), and clears the flag. The queue's bookkeeping: a repair asked for during a plain run
 * re-runs the address from the newest signature; a failed repair keeps the flag for its retry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createLocalnet, LocalnetBlockSource, startDemoWorkload, type DemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createBackfiller, type Backfiller } from '../../src/ingest/backfill.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { recordIndexOrigin } from '../../src/store/coverage.js';
import { claimBackfill, enqueueBackfill, enqueueRepair, finishBackfill, getBackfills } from '../../src/store/backfill.js';
import { createTestDb, deleteTxLinks, type TestDb } from '../helpers/db.js';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HISTORY = ['transactions', 'address_transactions', 'wallet_transfers'];
let net: Localnet;
let demo: DemoWorkload;
let t: TestDb;
let client: RpcClient;
let backfill: Backfiller;
let origin = 0;

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0 });
  demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 2, failureRate: 0 });
  while (net.chain.slot < 10) {
    await sleep(5);
    net.chain.produceSlot();
  }
  t = await createTestDb();
  client = createRpcClient({ url: net.url, maxRetries: 1 });
  backfill = createBackfiller({ db: t.db, ingester: createIngester(t.db, logger), client, commitment: 'confirmed', logger, idleMs: 20 });
  // Live ingestion from here on, with the demo still sending transfers.
  origin = net.chain.slot + 1;
  await recordIndexOrigin(t.db, origin);
  const ctl = new AbortController();
  const live = createIngester(t.db, logger);
  const run = live.run(new LocalnetBlockSource(net.chain), { startSlot: origin, signal: ctl.signal });
  while (net.chain.slot < origin + 15) {
    await sleep(5);
    net.chain.produceSlot();
  }
  await demo.stop();
  const last = net.chain.produceSlot()!.slot;
  while (((await getCheckpoint(t.db)) ?? -1) < last) await sleep(20);
  ctl.abort();
  await run;
  backfill.start();
}, 120_000);

afterAll(async () => {
  await backfill?.stop();
  await client?.close();
  await t?.drop();
  await net?.close();
});

/** A transaction of the index: its signature, and its position, which its address links are keyed by (migration 044). */
interface TxKey {
  signature: string;
  slot: string;
  txIndex: number;
}

/** `WHERE` clause and parameters that select `tx`'s rows of a history table. */
const rowsOfTx = (table: string, tx: TxKey): [string, unknown[]] =>
  table === 'address_transactions' ? ['slot = $1 AND tx_index = $2', [tx.slot, tx.txIndex]] : ['signature = $1', [tx.signature]];

async function rowsOf(tx: TxKey): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of HISTORY) {
    const [where, params] = rowsOfTx(table, tx);
    out[table] = (await t.db.query(`SELECT * FROM ${table} WHERE ${where} ORDER BY 1, 2, 3, 4`, params)).rows.map((r) => JSON.stringify(r));
  }
  return out;
}

async function finished(address: string): Promise<string> {
  backfill.wake();
  const row = await backfill.waitFor(address, 60_000);
  return row?.status ?? 'none';
}

describe('backfill repair runs', () => {
  it('write back a transaction after the origin that the index lost; a plain backfill does not', async () => {
    const wallet = demo.wallets[0];
    // A transaction that names the wallet (relation 1): the ones it is in only as a token account's owner are in that
    // token account's signatures, not the wallet's, and a repair of the wallet reads the wallet's.
    const { rows } = await t.db.query<{ signature: string; slot: string; tx_index: number }>(
      'SELECT t.signature, t.slot::text AS slot, t.tx_index FROM address_transactions a JOIN transactions t ON t.slot = a.slot AND t.tx_index = a.tx_index WHERE a.address = $1 AND a.relation = 1 AND a.slot >= $2 ORDER BY a.slot DESC LIMIT 1',
      [wallet, origin + 3],
    );
    expect(rows.length).toBe(1);
    const lost: TxKey = { signature: rows[0].signature, slot: rows[0].slot, txIndex: rows[0].tx_index };
    const whole = await rowsOf(lost);
    expect(whole.address_transactions.length).toBeGreaterThan(1);
    // The wallet's history before the origin, backfilled the plain way.
    await enqueueBackfill(t.db, [wallet]);
    expect(await finished(wallet)).toBe('done');
    for (const table of HISTORY) {
      if (table === 'address_transactions') {
        await deleteTxLinks(t.db, lost.slot, lost.txIndex);
        continue;
      }
      const [where, params] = rowsOfTx(table, lost);
      await t.db.query(`DELETE FROM ${table} WHERE ${where}`, params);
    }

    // Asked again the plain way: a done backfill is left as it is; the lost transaction stays lost.
    await enqueueBackfill(t.db, [wallet]);
    await sleep(200);
    expect((await getBackfills(t.db, [wallet])).get(wallet)).toMatchObject({ status: 'done', repair: false });
    expect((await rowsOf(lost)).transactions).toEqual([]);

    // A repair run: back as live ingestion wrote it.
    await enqueueRepair(t.db, [wallet]);
    // Queued as a repair from the start; the running backfiller (polling every 20 ms) may have claimed it already.
    expect((await getBackfills(t.db, [wallet])).get(wallet)).toMatchObject({ status: expect.stringMatching(/^(pending|running)$/), repair: true, cursor: null });
    expect(await finished(wallet)).toBe('done');
    expect(await rowsOf(lost)).toEqual(whole);
    expect((await getBackfills(t.db, [wallet])).get(wallet)!.repair).toBe(false);
  });

  it('a repair asked for during a plain run runs after it; a failed repair keeps its flag', async () => {
    await backfill.stop();
    const a = 'RepairQueueTest1111111111111111111111111111';
    await enqueueBackfill(t.db, [a]);
    const claimed = await claimBackfill(t.db, 60_000);
    expect(claimed).toMatchObject({ address: a, repair: false });
    await enqueueRepair(t.db, [a]); // while it runs
    expect((await getBackfills(t.db, [a])).get(a)).toMatchObject({ status: 'running', repair: true });
    await finishBackfill(t.db, a, 'done', { ranAsRepair: claimed!.repair });
    expect((await getBackfills(t.db, [a])).get(a)).toMatchObject({ status: 'pending', repair: true, cursor: null });
    const again = await claimBackfill(t.db, 60_000);
    expect(again).toMatchObject({ address: a, repair: true });
    await finishBackfill(t.db, a, 'failed', { error: 'cluster unreachable' });
    expect((await getBackfills(t.db, [a])).get(a)).toMatchObject({ status: 'failed', repair: true });
    await enqueueBackfill(t.db, [a]); // a failed one is retried
    const retry = await claimBackfill(t.db, 60_000);
    expect(retry).toMatchObject({ address: a, repair: true });
    await finishBackfill(t.db, a, 'done', { ranAsRepair: retry!.repair });
    expect((await getBackfills(t.db, [a])).get(a)).toMatchObject({ status: 'done', repair: false });
  });
});
