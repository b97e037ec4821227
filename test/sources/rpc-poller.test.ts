/**
 * The JSON-RPC poller against a local stub node that serves blocks built from real recorded transactions, with
 * skipped slots and injected failures (429, 500, dropped connections, slow and hanging responses, RPC errors).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToBase58 } from '../../src/core/encoding.js';
import type { Block } from '../../src/core/model.js';
import { parseJsonLossless } from '../../src/sources/json.js';
import { createRpcPoller, fetchAccounts, type RpcPollerOptions } from '../../src/sources/rpc-poller.js';
import { RpcError } from '../../src/sources/rpc-client.js';

const DIR = join(import.meta.dirname, '../fixtures/photon-transactions/batched_address_transactions');
const ACCOUNTS = join(import.meta.dirname, '../fixtures/das/decoded/accounts');

/** Recorded transactions grouped by their real slot: each group is one block; absent slots are skipped. */
const bySlot = new Map<number, { sig: string; entry: any }[]>();
for (const name of readdirSync(DIR).sort()) {
  const { slot, blockTime: _b, ...entry } = parseJsonLossless(readFileSync(join(DIR, name), 'utf8')) as any;
  if (!bySlot.has(slot)) bySlot.set(slot, []);
  bySlot.get(slot)!.push({ sig: name, entry });
}
const SLOTS = [...bySlot.keys()].sort((a, b) => a - b);
const FIRST = SLOTS[0];
const LAST = SLOTS[SLOTS.length - 1];
const hash = (n: number) => bytesToBase58(Uint8Array.from({ length: 32 }, (_, i) => (n >> (i % 4) * 8) & 0xff || i + 1));

type Fault = '429' | '500' | 'drop' | 'hang' | { delayMs: number } | { rpcError: number; message: string };

/** A tiny JSON-RPC node: getSlot, getBlocks, getBlock, getMultipleAccounts; faults are consumed per key. */
class StubNode {
  tip = LAST;
  /** When set, the next getBlocks answers like a node lagging this many slots behind the tip. */
  lagOnce = 0;
  faults = new Map<string, Fault[]>();
  requests = new Map<string, number>();
  inFlightBlocks = 0;
  maxInFlightBlocks = 0;
  accounts = new Map<string, any>();
  server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => void this.handle(JSON.parse(body), req, res));
    });
  }

  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  fault(key: string, ...f: Fault[]) {
    this.faults.set(key, [...(this.faults.get(key) ?? []), ...f]);
  }

  count(key: string) {
    return this.requests.get(key) ?? 0;
  }

  private async handle(msg: any, req: any, res: any) {
    const { id, method, params } = msg;
    const key = method === 'getBlock' ? `getBlock:${params[0]}` : method;
    this.requests.set(key, this.count(key) + 1);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
    };
    const fault = this.faults.get(key)?.shift();
    if (method === 'getBlock') {
      this.inFlightBlocks++;
      this.maxInFlightBlocks = Math.max(this.maxInFlightBlocks, this.inFlightBlocks);
    }
    try {
      if (fault === '429') return send(429, 'Too Many Requests', { 'retry-after': '0' });
      if (fault === '500') return send(500, 'Internal Server Error');
      if (fault === 'drop') return req.socket.destroy();
      if (fault === 'hang') return await new Promise((r) => setTimeout(r, 5_000)).then(() => send(200, {}));
      if (fault && typeof fault === 'object' && 'delayMs' in fault) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (fault && typeof fault === 'object' && 'rpcError' in fault) {
        return send(200, { jsonrpc: '2.0', id, error: { code: fault.rpcError, message: fault.message } });
      }
      send(200, { jsonrpc: '2.0', id, ...this.answer(method, params) });
    } finally {
      if (method === 'getBlock') this.inFlightBlocks--;
    }
  }

  private answer(method: string, params: any[]): { result?: unknown; error?: unknown } {
    switch (method) {
      case 'getSlot':
        return { result: this.tip };
      case 'getBlocks': {
        const [start, end] = params;
        if (end - start > 500_000) return { error: { code: -32602, message: 'range too large' } };
        const upTo = Math.min(end, this.tip) - this.lagOnce;
        this.lagOnce = 0;
        return { result: SLOTS.filter((s) => s >= start && s <= upTo) };
      }
      case 'getBlock': {
        const [slot, cfg] = params;
        if (cfg.encoding !== 'base64' || cfg.maxSupportedTransactionVersion !== 0 || cfg.transactionDetails !== 'full') {
          return { error: { code: -32602, message: `bad config ${JSON.stringify(cfg)}` } };
        }
        if (slot > this.tip) return { error: { code: -32004, message: `Block not available for slot ${slot}` } };
        const txs = bySlot.get(slot);
        if (!txs) return { error: { code: -32007, message: `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot` } };
        const parent = SLOTS[SLOTS.indexOf(slot) - 1] ?? slot - 1;
        return {
          result: {
            blockhash: hash(slot),
            previousBlockhash: hash(parent),
            parentSlot: parent,
            blockTime: 1_700_000_000 + slot,
            blockHeight: SLOTS.indexOf(slot) + 1,
            transactions: txs.map((t) => t.entry),
          },
        };
      }
      case 'getMultipleAccounts': {
        const value = params[0].map((k: string) => this.accounts.get(k) ?? null);
        return { result: { context: { slot: 4242 }, value } };
      }
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  }
}

let node: StubNode;
beforeAll(async () => {
  node = new StubNode();
  await node.start();
});
afterAll(() => node.stop());

const fast: Partial<RpcPollerOptions> = { backoffBaseMs: 5, backoffMaxMs: 20, pollIntervalMs: 20, requestTimeoutMs: 2_000 };

/** Consumes blocks until `until` returns true, then aborts; returns what was yielded. */
async function collect(opts: Partial<RpcPollerOptions>, from: number, until: (b: Block[]) => boolean) {
  const poller = createRpcPoller({ url: node.url, ...fast, ...opts });
  const ac = new AbortController();
  const got: Block[] = [];
  try {
    for await (const b of poller.blocks(from, ac.signal)) {
      got.push(b);
      if (until(got)) ac.abort();
    }
  } finally {
    await poller.close();
  }
  return { got, stats: poller.stats };
}

describe('createRpcPoller', () => {
  it('yields every existing block once, in strict slot order, through failures', async () => {
    node.tip = LAST;
    const [s1, s2, s3, s4, s5, s6, s7] = [SLOTS[1], SLOTS[3], SLOTS[5], SLOTS[7], SLOTS[9], SLOTS[11], SLOTS[13]];
    node.fault(`getBlock:${s1}`, '429');
    node.fault(`getBlock:${s2}`, '500', '500');
    node.fault(`getBlock:${s3}`, 'drop');
    node.fault(`getBlock:${s4}`, { delayMs: 300 }); // later blocks complete first; order must hold
    node.fault(`getBlock:${s5}`, { rpcError: -32004, message: `Block not available for slot ${s5}` });
    node.fault(`getBlock:${s6}`, { rpcError: -32007, message: `Slot ${s6} was skipped, or missing due to ledger jump` });
    node.fault(`getBlock:${s7}`, { rpcError: -32603, message: 'internal error' });
    node.fault('getBlocks', '429');
    node.fault('getSlot', '500');
    // s6's "skipped" answer is contradicted by the next block, whose parent it is: fetched again, in order.
    const expected = SLOTS;
    const { got, stats } = await collect({ concurrency: 4, windowSize: 40 }, FIRST - 5, (g) => g.at(-1)!.slot === LAST);

    const slots = got.map((b) => b.slot);
    expect(slots).toEqual(expected); // strictly increasing, nothing missing, nothing twice, s6 included
    for (const b of got) {
      expect(b.transactions.map((t) => t.signature)).toEqual(bySlot.get(b.slot)!.map((t) => t.sig));
      expect(b.transactions.map((t) => t.indexInBlock)).toEqual(b.transactions.map((_, i) => i));
      expect(b.transactions.every((t) => t.slot === b.slot && t.blockTime === 1_700_000_000 + b.slot)).toBe(true);
    }
    for (const s of [s1, s3, s5, s6, s7]) expect(node.count(`getBlock:${s}`)).toBe(2);
    expect(node.count(`getBlock:${s2}`)).toBe(3);
    expect(node.count(`getBlock:${s4}`)).toBe(1);
    expect(stats.parentGapsFilled).toBe(1);
    expect(stats.retries).toBe(8);
    expect(stats.errors).toBe(8);
    expect(stats.blocksFetched).toBe(expected.length);
    expect(stats.skippedSlots).toBe(LAST - (FIRST - 5) + 1 - expected.length);
    expect(stats.tip).toBe(LAST);
    expect(stats.lastSlot).toBe(LAST);
    expect(node.maxInFlightBlocks).toBeLessThanOrEqual(4);
    expect(node.maxInFlightBlocks).toBeGreaterThan(1);
  });

  it('resumes from a given slot (existing or skipped)', async () => {
    node.tip = LAST;
    const mid = SLOTS[20];
    const a = await collect({}, mid, (g) => g.at(-1)!.slot === LAST);
    expect(a.got.map((b) => b.slot)).toEqual(SLOTS.filter((s) => s >= mid));
    const b = await collect({ windowSize: 7 }, mid + 1, (g) => g.at(-1)!.slot === LAST);
    expect(b.got.map((x) => x.slot)).toEqual(SLOTS.filter((s) => s > mid));
  });

  it('follows the tip as it advances and re-checks the tail', async () => {
    const cut = SLOTS[30];
    node.tip = cut;
    const { got } = await collect({ windowSize: 10 }, FIRST, (g) => {
      if (g.at(-1)!.slot === cut) setTimeout(() => (node.tip = LAST), 50);
      return g.at(-1)!.slot === LAST;
    });
    expect(got.map((b) => b.slot)).toEqual(SLOTS);
  });

  it('does not skip the tail when getBlocks comes from a lagging node', async () => {
    node.tip = LAST;
    node.lagOnce = 30;
    const { got } = await collect({ windowSize: 1000 }, FIRST, (g) => g.at(-1)!.slot === LAST);
    expect(got.map((b) => b.slot)).toEqual(SLOTS);
  });

  it('retries a timed-out request', async () => {
    node.tip = LAST;
    node.fault(`getBlock:${SLOTS[2]}`, 'hang');
    const { got, stats } = await collect({ requestTimeoutMs: 300 }, FIRST, (g) => g.at(-1)!.slot === SLOTS[4]);
    expect(got.map((b) => b.slot)).toEqual(SLOTS.slice(0, 5));
    expect(stats.retries).toBeGreaterThanOrEqual(1);
  });

  it('stops promptly on abort while polling at the tip and while a request hangs', async () => {
    node.tip = LAST;
    for (const fault of [null, 'hang'] as const) {
      if (fault) node.fault('getSlot', 'hang');
      const poller = createRpcPoller({ url: node.url, ...fast, pollIntervalMs: 60_000 });
      const ac = new AbortController();
      const got: number[] = [];
      const t0 = Date.now();
      setTimeout(() => ac.abort(), 300);
      for await (const b of poller.blocks(fault ? LAST + 1 : LAST, ac.signal)) got.push(b.slot);
      expect(Date.now() - t0).toBeLessThan(1_500);
      expect(got).toEqual(fault ? [] : [LAST]);
      await poller.close();
    }
  });

  it('gives up after maxRetries and on non-retryable errors', async () => {
    node.tip = LAST;
    node.fault(`getBlock:${FIRST}`, '500', '500', '500');
    const poller = createRpcPoller({ url: node.url, ...fast, maxRetries: 2 });
    await expect(poller.blocks(FIRST)[Symbol.asyncIterator]().next()).rejects.toThrow(/getBlock: HTTP 500/);
    expect(poller.stats.errors).toBe(3);
    node.fault(`getBlock:${FIRST}`, { rpcError: -32001, message: 'Block 1 cleaned up, does not exist on node' });
    await expect(poller.blocks(FIRST)[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(RpcError);
    await poller.close();
  });
});

describe('fetchAccounts', () => {
  it('reads accounts in chunks of 100 and reports missing ones as empty', async () => {
    const records = readdirSync(ACCOUNTS).flatMap((d) =>
      readdirSync(join(ACCOUNTS, d)).map((f) => parseJsonLossless(readFileSync(join(ACCOUNTS, d, f), 'utf8')) as any),
    );
    for (const r of records) node.accounts.set(r.pubkey, { ...r, space: r.dataLen });
    const keys = [...new Set(records.map((r) => r.pubkey))];
    const missing = 'So11111111111111111111111111111111111111112';
    const before = node.count('getMultipleAccounts');
    const out = await fetchAccounts(node.url, [...keys, missing], { backoffBaseMs: 5 });
    expect(node.count('getMultipleAccounts') - before).toBe(Math.ceil((keys.length + 1) / 100));
    expect(out.map((a) => a.pubkey)).toEqual([...keys, missing]);
    for (const a of out.slice(0, -1)) {
      const r = node.accounts.get(a.pubkey);
      expect(a).toMatchObject({ owner: r.owner, lamports: BigInt(r.lamports), slot: 4242, executable: r.executable });
      expect(a.data.length).toBe(r.dataLen);
    }
    expect(out.at(-1)).toMatchObject({ lamports: 0n, owner: '11111111111111111111111111111111', slot: 4242 });
    expect(out.at(-1)!.data.length).toBe(0);
  });
});
