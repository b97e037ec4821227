/**
 * The Yellowstone gRPC source against a local geyser stand-in (test/helpers/geyser/standin.ts: the published
 * geyser service on @grpc/grpc-js) fed by the localnet running the demo workload (transfers with failures, v0
 * transactions with a lookup table, Token-2022 NFTs), read with the real client package.
 *
 * - The same workload indexed through the poller and through the stream gives identical tables (digests).
 * - Live, with faults injected: blocks the server never sends, a disconnect mid-stream, a consumer so slow the server
 *   disconnects it, and a pause longer than the server's replay window. The source still yields every block of the
 *   range exactly once, in slot order, each equal to what the poller yields for it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Block } from '../../../src/core/model.js';
import { createIngester } from '../../../src/ingest/pipeline.js';
import { createLocalnet, startDemoWorkload, type DemoWorkload, type Localnet } from '../../../src/sources/localnet/index.js';
import { createRpcPoller, fetchAccounts } from '../../../src/sources/rpc-poller.js';
import type { BlockSource } from '../../../src/sources/source.js';
import { createYellowstoneSource, type YellowstoneSource } from '../../../src/sources/yellowstone/source.js';
import { getCheckpoint } from '../../../src/store/chain.js';
import { createTestDb, tableDigests, type TestDb } from '../../helpers/db.js';
import { startStandin, type Standin } from '../../helpers/geyser/standin.js';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let net: Localnet;
let demo: DemoWorkload | null = null;
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  await demo?.stop();
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await net?.close();
});

async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const confirmedSlot = async (): Promise<number> => {
  const res = await fetch(net.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'confirmed' }] }) });
  return ((await res.json()) as { result: number }).result;
};

function yellowstone(standin: Standin, extra: Partial<Parameters<typeof createYellowstoneSource>[0]> = {}): YellowstoneSource {
  const s = createYellowstoneSource({ url: standin.url, rpcUrl: net.url, rpcPollIntervalMs: 20, reconnectBaseMs: 50, reconnectMaxMs: 200, logger, ...extra });
  cleanups.push(() => s.close());
  return s;
}

/** Indexes [startSlot, tip] into a fresh database through `source`, as `serve` runs the ingester. */
async function indexThrough(source: BlockSource, startSlot: number, tip: number): Promise<TestDb> {
  const t = await createTestDb();
  cleanups.push(() => t.drop());
  const ingester = createIngester(t.db, logger, { fetchAccounts: (keys) => fetchAccounts(net.url, keys, { commitment: 'confirmed' }) });
  const ctl = new AbortController();
  let failed: unknown = null;
  const run = ingester.run(source, { startSlot, signal: ctl.signal }).catch((e) => void (failed = e));
  await until(async () => {
    if (failed) throw failed;
    return ((await getCheckpoint(t.db)) ?? -1) >= tip;
  }, 120_000, `the index to reach slot ${tip}`);
  ctl.abort();
  await run;
  await ingester.settle();
  return t;
}

/** Every block the poller yields in [from, to], with the accounts it reads. */
async function pollerBlocks(from: number, to: number): Promise<Block[]> {
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', pollIntervalMs: 20, logger });
  const out: Block[] = [];
  const ctl = new AbortController();
  try {
    for await (const b of poller.blocks(from, ctl.signal)) {
      if (b.slot > to) break;
      out.push(b);
    }
  } finally {
    ctl.abort();
    await poller.close();
  }
  return out;
}

/** The block without the account reads (their context slot depends on when they were read). */
const withoutAccounts = ({ accounts: _a, ...b }: Block) => b;

describe('Yellowstone gRPC source', () => {
  it('indexes the same workload into the same tables as the JSON-RPC poller', async () => {
    // Slots made by hand, so the chain stands still once the workload stops: the accounts read after each block
    // are then read at the same slot by both runs.
    net = await createLocalnet({ slotMs: 0 });
    demo = await startDemoWorkload(net.chain, { intervalMs: 5, wallets: 4, failureRate: 0.1, light: false });
    const end = Date.now() + 120_000;
    while ((demo.stats.sent < 40 || demo.assets.nfts.length === 0) && Date.now() < end) {
      await sleep(5);
      net.chain.produceSlot();
    }
    await demo.stop();
    demo = null;
    net.chain.produceSlot();
    const tip = await confirmedSlot();
    const standin = await startStandin({ rpcUrl: net.url });
    cleanups.push(() => standin.close());
    const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', pollIntervalMs: 20, logger });
    cleanups.push(() => poller.close());
    const viaPoller = await indexThrough(poller, 0, tip);
    const source = yellowstone(standin);
    const viaStream = await indexThrough(source, 0, tip);
    expect(source.stats.blocksStreamed).toBeGreaterThan(10);
    expect(source.stats.blocksFilled).toBe(0);
    const a = await tableDigests(viaPoller.db);
    expect(a.transactions.rows).toBeGreaterThan(40);
    expect(a.token_accounts.rows).toBeGreaterThan(0);
    // The asset-program accounts read after each block (the NFTs' mints) came the same way.
    expect(source.stats.accountsFetched).toBeGreaterThan(0);
    expect(await tableDigests(viaStream.db)).toEqual(a);
  }, 480_000);

  it('live, through dropped blocks, a disconnect, a lagging consumer and a pause past the replay window: every block once, in order', async () => {
    /** The stand-in's replay window, in slots. */
    const RETENTION = 40;
    await net.close();
    net = await createLocalnet({ slotMs: 10 });
    demo = await startDemoWorkload(net.chain, { intervalMs: 5, wallets: 3, failureRate: 0.1, light: false });
    const standin = await startStandin({ rpcUrl: net.url, retention: RETENTION, lagMs: 300 });
    cleanups.push(() => standin.close());
    const source = yellowstone(standin);
    const start = (await confirmedSlot()) + 1;
    const got: Block[] = [];
    let delay = 0;
    /** Slots the chain must move past the next block before the consumer reads on (0: no pause). */
    let pausePast = 0;
    const ctl = new AbortController();
    const reading = (async () => {
      for await (const b of source.blocks(start, ctl.signal)) {
        got.push(b);
        if (delay) await sleep(delay);
        if (pausePast) {
          // Paused by slots rather than by time, so the pause outlasts the replay window however slowly the chain
          // runs on a loaded machine; and cut off, so the stream resumes (with from_slot) after it whether or not
          // the server's buffers filled meanwhile.
          const until = b.slot + pausePast;
          pausePast = 0;
          standin.disconnectAfter(0);
          while ((await confirmedSlot()) < until) await sleep(50);
        }
      }
    })();
    const lastGot = () => got[got.length - 1]?.slot ?? start - 1;
    await until(() => got.length >= 5, 60_000, 'the first streamed blocks');

    // Blocks the server never sends: read over JSON-RPC.
    const head = await confirmedSlot();
    for (let s = head + 2; s < head + 6; s++) standin.dropSlots.add(s);
    await until(() => lastGot() > head + 8, 60_000, 'blocks past the dropped ones');
    expect(source.stats.gaps).toBeGreaterThan(0);
    expect(source.stats.blocksFilled).toBeGreaterThan(0);

    // A disconnect mid-stream: resumed with from_slot.
    const subs = standin.stats.subscriptions;
    standin.disconnectAfter(3);
    await until(() => standin.stats.injectedDisconnects > 0 && standin.stats.subscriptions > subs && source.stats.blocksStreamed > 0, 60_000, 'the resumed stream');
    const mark = lastGot();
    await until(() => lastGot() > mark + 5, 60_000, 'blocks after the resume');
    expect(standin.stats.fromSlots.at(-1)).not.toBeNull();

    // A consumer slower than the chain: the server disconnects it; it resumes where it stopped.
    delay = 60;
    await until(() => standin.stats.lagDisconnects > 0, 90_000, 'a lag disconnect');
    delay = 0;
    const afterLag = lastGot();
    await until(() => lastGot() > afterLag + 5, 60_000, 'blocks after the lag disconnect');

    // A pause longer than the server's replay window: from_slot is refused, the stream restarts at the head and the
    // blocks in between are read over JSON-RPC.
    const filledBefore = source.stats.blocksFilled;
    pausePast = RETENTION + 100;
    await until(() => standin.stats.refusedFromSlot > 0, 90_000, 'a refused from_slot');
    const afterPause = await confirmedSlot();
    await until(() => lastGot() >= afterPause, 90_000, 'the source to catch up after the pause');
    expect(source.stats.blocksFilled).toBeGreaterThan(filledBefore);

    ctl.abort();
    await reading;
    await demo.stop();
    demo = null;

    const end = lastGot();
    const slots = got.map((b) => b.slot);
    expect(new Set(slots).size).toBe(slots.length);
    expect(slots).toEqual([...slots].sort((a, b) => a - b));
    const expected = await pollerBlocks(start, end);
    expect(slots).toEqual(expected.map((b) => b.slot));
    expect(got.map(withoutAccounts)).toEqual(expected.map(withoutAccounts));
    expect(got.filter((b) => b.accounts?.length).length).toBe(expected.filter((b) => b.accounts?.length).length);
  }, 400_000);
});
