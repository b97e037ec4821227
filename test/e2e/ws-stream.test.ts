/**
 * End to end, the enhanced WebSocket with real processes (issue #20's check): a `solgate serve` indexes a local chain
 * while the demo workload runs (transfers, some failing, tokens, NFTs). A client subscribed to the demo wallets'
 * transactions is cut off mid-stream, misses a few seconds, and reconnects resuming from the position after the last
 * notification it got (`fromSlot` + `fromTransactionIndex`): what it received over both connections is every
 * matching transaction of the chain from its first notification through the index's checkpoint, exactly once, in
 * chain order. A client that stops reading while its subscriptions match everything is closed with `1008 slow
 * consumer`, and the server's resident memory stays bounded meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalnet, startDemoWorkload, type DemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { freePort } from '../helpers/net.js';
import { openWs, until, type WsClient } from '../helpers/ws.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'solgate.js');
const dir = mkdtempSync(join(tmpdir(), 'solgate-ws-stream-'));
const children: ChildProcess[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let net: Localnet;
let demo: DemoWorkload;
let server: { child: ChildProcess; out: string };
let http: string;
let ws: string;

function start(args: string[], extra: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', SOLGATE_DATA_DIR: join(dir, 'data'), SOLGATE_ADMIN_TOKEN: '', SOLGATE_OFFCHAIN_FETCH: 'false', LOG_LEVEL: 'warn', ...extra },
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const p = { child, out: '' };
  child.stdout!.on('data', (d: Buffer) => (p.out += d));
  child.stderr!.on('data', (d: Buffer) => (p.out += d));
  return p;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await r.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const subscribe = (c: WsClient, id: number, filter: unknown, options: unknown) => c.sock.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'transactionSubscribe', params: [filter, options] }));
const answer = (c: WsClient, id: number) => until(`answer ${id}`, () => c.messages.find((m) => m.id === id));

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 100 });
  const keyOut = start(['keys', 'create', '--name', 'ws', '--json'], {});
  await new Promise((r) => keyOut.child.once('exit', r));
  const key = (JSON.parse(keyOut.out.split('\n').find((l) => l.startsWith('{"key"'))!) as { key: string }).key;
  const port = await freePort();
  server = start(['serve'], { PORT: String(port), SOLANA_RPC_URL: net.url, SOLGATE_WEBHOOK_CONCURRENCY: '0', LOG_LEVEL: 'info' });
  await until('solgate listening', () => (server.out.includes('solgate: listening') ? true : undefined), 120_000).catch((e) => {
    throw new Error(`${e.message}\n${server.out.slice(-3000)}`);
  });
  http = `http://127.0.0.1:${port}/?api-key=${key}`;
  ws = `ws://127.0.0.1:${port}/?api-key=${key}`;
  demo = await startDemoWorkload(net.url, { intervalMs: 30, wallets: 3, failureRate: 0.2 });
}, 180_000);

afterAll(async () => {
  await demo?.stop().catch(() => {});
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await net?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the enhanced WebSocket under a live workload', () => {
  it('a client cut off mid-stream resumes after its last notification and gets every matching transaction exactly once, in order', async () => {
    const wallets = demo.wallets;
    const filter = { accountInclude: wallets, failed: true };
    const opts = { transactionDetails: 'none' };
    type Note = { signature: string; slot: number; transactionIndex: number };
    const got = (c: WsClient, sub: number): Note[] => c.messages.filter((m) => m.method === 'transactionNotification' && m.params.subscription === sub).map((m) => m.params.result);

    const first = await openWs(ws);
    subscribe(first, 1, filter, opts);
    const s1 = (await answer(first, 1)).result as number;
    await until('30 notifications', () => (got(first, s1).length >= 30 ? true : undefined), 120_000);
    first.sock.terminate();
    const before = got(first, s1);
    const last = before[before.length - 1];
    await sleep(3000); // the workload goes on; this client misses it

    const second = await openWs(ws);
    subscribe(second, 1, filter, { ...opts, fromSlot: last.slot, fromTransactionIndex: last.transactionIndex + 1 });
    const s2 = (await answer(second, 1)).result as number;
    expect(typeof s2).toBe('number');
    await sleep(3000);
    await demo.stop();
    await sleep(2000); // what the workload had in flight lands
    // The index catches up with the chain; then every notification up to its checkpoint has been sent.
    const tip = (await rpc(net.url, 'getSlot', [{ commitment: 'confirmed' }])) as number;
    for (let i = 0; i < 600 && ((await rpc(http, 'getIndexerSlot')) ?? -1) < tip; i++) await sleep(100);
    await sleep(1000);
    second.sock.close();
    const upTo = (await rpc(http, 'getIndexerSlot')) as number;
    expect(upTo).toBeGreaterThanOrEqual(tip);
    const after = got(second, s2);
    expect(second.messages.filter((m) => m.params?.error)).toEqual([]);

    // The chain's own record: every transaction naming a demo wallet, from the first notification's slot on.
    const wanted = new Set<string>(wallets);
    const truth: Note[] = [];
    const slots = (await rpc(net.url, 'getBlocks', [before[0].slot, upTo, { commitment: 'confirmed' }])) as number[];
    for (const slot of slots) {
      const b = await rpc(net.url, 'getBlock', [slot, { commitment: 'confirmed', encoding: 'json', transactionDetails: 'full', maxSupportedTransactionVersion: 0, rewards: false }]);
      (b.transactions as any[]).forEach((t, i) => {
        const keys: string[] = [...t.transaction.message.accountKeys, ...(t.meta?.loadedAddresses?.writable ?? []), ...(t.meta?.loadedAddresses?.readonly ?? [])];
        if (keys.some((k) => wanted.has(k))) truth.push({ signature: t.transaction.signatures[0], slot, transactionIndex: i });
      });
    }
    const start = truth.findIndex((t) => t.signature === before[0].signature);
    expect(start).toBeGreaterThanOrEqual(0);
    const received = [...before, ...after].map((n) => `${n.slot}:${n.transactionIndex}:${n.signature}`);
    expect(after.length).toBeGreaterThan(0);
    expect(truth.slice(start).some((t) => t.slot > last.slot)).toBe(true);
    expect(received).toEqual(truth.slice(start).map((n) => `${n.slot}:${n.transactionIndex}:${n.signature}`));
  }, 300_000);

  it('a client that stops reading is closed as a slow consumer; the server\'s memory stays bounded', async () => {
    const again = await startDemoWorkload(net.url, { intervalMs: 20, wallets: 3, failureRate: 0.2 });
    try {
      const pid = server.child.pid!;
      const base = rssKb(pid);
      const c = await openWs(ws);
      // 200 subscriptions matching every transaction, full JSON: a few MiB per second for a reader that never reads.
      for (let i = 1; i <= 200; i++) subscribe(c, i, { failed: true }, { encoding: 'json', transactionDetails: 'full', maxSupportedTransactionVersion: 0 });
      await until('the subscriptions', () => (c.messages.filter((m) => m.id !== undefined).length >= 200 ? true : undefined));
      c.sock.pause();
      let peak = base;
      const closedAt = Date.now() + 120_000;
      let closed: { code: number; reason: string } | null = null;
      void c.closed.then((x) => (closed = x));
      // The server gives up on the connection; the paused client sees the close once it reads again.
      for (;;) {
        peak = Math.max(peak, rssKb(pid));
        const metrics = await (await fetch(http.replace('/?', '/metrics?'))).text();
        if (/solgate_ws_closed_total\{reason="slow_consumer"\} [1-9]/.test(metrics)) break;
        if (Date.now() > closedAt) throw new Error('the slow consumer was never cut off');
        await sleep(200);
      }
      c.sock.resume();
      await until('the close frame', () => closed ?? undefined, 60_000);
      expect(closed!.code).toBe(1008);
      expect(closed!.reason).toMatch(/slow consumer/);
      // Bounded: the 8 MiB send buffer and what the kernel holds, not the whole stream.
      expect(peak - base).toBeLessThan(64 * 1024);
    } finally {
      await again.stop();
    }
  }, 240_000);
});
