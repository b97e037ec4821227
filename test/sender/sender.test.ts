/**
 * Sender (`/fast`, `/ping`) against the built-in localnet as upstream, through recording JSON-RPC proxies so the
 * test sees exactly what reached each path: a valid tipped transaction lands and is confirmed; every invalid
 * variant is rejected with its own message and never forwarded; swqos_only skips the block builder and takes the
 * lower tip; with one upstream down or slow, the answer comes from the fast one; the per-key/IP rate limit answers
 * 429 with Retry-After; getSignatureStatuses passes through; helius-sdk's sendTransactionWithSender succeeds.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { generateKeyPairSigner, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { createHelius } from 'helius-sdk';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createRouter } from '../../src/sender/router.js';
import { DEFAULT_TIP_ACCOUNTS } from '../../src/sender/validate.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { rpcClient, signTx, type RpcClient } from '../localnet/helpers.js';

// helius-sdk 3.2 (the latest) is built against @solana/kit 6, whose `estimateComputeUnitLimitFactory` kit 8 (this
// project's) no longer exports; the same estimator ships in @solana-program/compute-budget, so it is supplied from
// there and the SDK's own code runs unchanged.
vi.mock('@solana/kit', async (importOriginal) => {
  const kit = await importOriginal<typeof import('@solana/kit')>();
  const { estimateComputeUnitLimitFactory } = await import('@solana-program/compute-budget');
  return { ...kit, estimateComputeUnitLimitFactory };
});

const SOL = 1_000_000_000;
const TIP = DEFAULT_TIP_ACCOUNTS[3];

/** A JSON-RPC proxy in front of the localnet that records every method it receives; `mode` makes it slow or broken. */
interface Upstream {
  url: string;
  calls: { method: string; params: unknown[] }[];
  mode: { delayMs?: number; down?: boolean };
  /** Requests received but not yet answered. */
  pending: number;
  close(): Promise<void>;
}

async function upstream(target: () => string, extra: Record<string, unknown> = {}): Promise<Upstream> {
  const u: Upstream = { url: '', calls: [], mode: {}, pending: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      u.calls.push({ method: body.method, params: body.params });
      if (u.mode.down) return req.socket.destroy();
      u.pending++;
      if (u.mode.delayMs) await new Promise((r) => setTimeout(r, u.mode.delayMs));
      let out: string;
      try {
        if (body.method in extra) out = JSON.stringify({ jsonrpc: '2.0', id: body.id, result: extra[body.method] });
        else out = await (await fetch(target(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).text();
      } catch {
        // The chain behind this stub dropped the connection: the gateway sees this upstream fail the same way.
        u.pending--;
        return req.socket.destroy();
      }
      u.pending--;
      if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(out);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  u.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  u.close = () => new Promise((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
  return u;
}

let net: Localnet;
let rpc: RpcClient;
let ta: TestApp;
let payer: KeyPairSigner;
let validator: Upstream, validator2: Upstream, engine: Upstream;
const sends = (u: Upstream) => u.calls.filter((c) => c.method === 'sendTransaction').length;

async function build(ixs: Instruction[], signer = payer): Promise<{ base64: string; signature: string }> {
  const { value } = await rpc.call('getLatestBlockhash');
  return signTx(signer, ixs, value.blockhash);
}
const priority = (microLamports = 1000n) => getSetComputeUnitPriceInstruction({ microLamports });
const tip = (lamports: number, to: string = TIP) => getTransferSolInstruction({ source: payer, destination: to as never, amount: BigInt(lamports) });

async function fast(body: unknown, query = '', headers: Record<string, string> = {}) {
  const r = await ta.app.inject({ method: 'POST', url: `/fast${query}`, payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  return { status: r.statusCode, body: r.json(), headers: r.headers };
}
const send = (base64: string, opts: Record<string, unknown> = { encoding: 'base64', skipPreflight: true, maxRetries: 0 }, query = '') =>
  fast({ jsonrpc: '2.0', id: 'x', method: 'sendTransaction', params: [base64, opts] }, query);

beforeAll(async () => {
  net = await createLocalnet({ port: 0, slotMs: 0 });
  rpc = rpcClient(net.url);
  payer = await generateKeyPairSigner();
  await rpc.call('requestAirdrop', [payer.address, 100 * SOL]);
  // Tip accounts exist on mainnet; on a fresh localnet they must be funded before small tips can land.
  for (const t of DEFAULT_TIP_ACCOUNTS) await rpc.call('requestAirdrop', [t, SOL]);
  net.chain.produceSlot();
  validator = await upstream(() => net.url);
  validator2 = await upstream(() => net.url);
  engine = await upstream(() => net.url);
  const router = createRouter({
    rpcUrls: [validator.url, validator2.url], blockEngineUrl: engine.url, statusUrl: net.url,
    upstreamTimeoutMs: 2000, rebroadcastMs: 100, maxRebroadcastMs: 5000, logger: pino({ level: 'silent' }),
  });
  ta = await createTestApp({ sender: { router, policy: { tipAccounts: DEFAULT_TIP_ACCOUNTS, minTipLamports: 200_000n, minTipSwqosLamports: 5_000n }, rateLimitPerSecond: 1000 } });
}, 60_000);

afterAll(async () => {
  await ta?.close();
  await Promise.all([validator, validator2, engine].map((u) => u?.close()));
  await net?.close();
});

describe('Sender /fast', () => {
  it('GET /ping answers ok', async () => {
    const r = await ta.app.inject({ method: 'GET', url: '/ping' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body).toBe('ok');
  });

  it('a valid tipped transaction is sent to every path, lands and is confirmed', async () => {
    const dest = await generateKeyPairSigner();
    const tx = await build([getSetComputeUnitLimitInstruction({ units: 10_000 }), priority(), tip(200_000), getTransferSolInstruction({ source: payer, destination: dest.address, amount: BigInt(SOL) })]);
    const r = await send(tx.base64);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ jsonrpc: '2.0', id: 'x', result: tx.signature });
    await new Promise((res) => setTimeout(res, 200));
    for (const u of [validator, validator2, engine]) expect(u.calls.some((c) => c.method === 'sendTransaction' && c.params[0] === tx.base64)).toBe(true);
    net.chain.produceSlot();
    const st = await fast({ jsonrpc: '2.0', id: 2, method: 'getSignatureStatuses', params: [[tx.signature]] });
    expect(st.status).toBe(200);
    expect(st.body.result.value[0]).toMatchObject({ err: null, confirmationStatus: expect.stringMatching(/confirmed|finalized/) });
    expect(BigInt((await rpc.call('getBalance', [dest.address])).value)).toBe(BigInt(SOL));
  });

  it('rejects each invalid variant with its own message and forwards none of them', async () => {
    const before = [sends(validator), sends(validator2), sends(engine)];
    const other = await generateKeyPairSigner();
    const ok = await build([priority(), tip(200_000)]);
    const badSig = Buffer.from(ok.base64, 'base64');
    badSig[1] ^= 0xff; // first byte of the first signature (after the count)
    const cases: [string, () => Promise<{ status: number; body: any }>, RegExp][] = [
      ['no tip', async () => send((await build([priority()])).base64), /no tip: transfer at least 200000 lamports/],
      ['tip too small', async () => send((await build([priority(), tip(199_999)])).base64), /tip too small: 199999 lamports .* minimum for dual routing is 200000/],
      ['wrong tip account', async () => send((await build([priority(), tip(300_000, other.address)])).base64), /no transfer to a tip account/],
      ['no priority fee', async () => send((await build([tip(200_000)])).base64), /no priority fee: add a ComputeBudget SetComputeUnitPrice/],
      ['skipPreflight false', async () => send(ok.base64, { encoding: 'base64', skipPreflight: false }), /skipPreflight must be true/],
      ['skipPreflight missing', async () => send(ok.base64, { encoding: 'base64' }), /skipPreflight must be true/],
      ['garbage bytes', async () => send(Buffer.from('not a transaction at all').toString('base64')), /could not be decoded/],
      ['not base64', async () => send('@@@@', { encoding: 'base64', skipPreflight: true }), /not valid base64/],
      ['not base58', async () => send('0OIl', { encoding: 'base58', skipPreflight: true }), /not valid base58/],
      ['bad signature', async () => send(badSig.toString('base64')), /signature of .* does not verify/],
      ['too large', async () => send(Buffer.alloc(1300, 1).toString('base64')), /too large/],
      ['bad params', async () => fast({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [42] }), /params\[0\] must be the signed transaction/],
      ['unknown encoding', async () => send(ok.base64, { encoding: 'hex', skipPreflight: true }), /unsupported encoding/],
    ];
    const messages = new Set<string>();
    for (const [name, run, re] of cases) {
      const r = await run();
      expect(r.status, name).toBe(400);
      expect(r.body.error.code, name).toBe(-32602);
      expect(r.body.error.message, name).toMatch(re);
      messages.add(r.body.error.message.replace(/[1-9A-HJ-NP-Za-km-z]{32,44}/g, 'K'));
    }
    expect(messages.size).toBeGreaterThanOrEqual(cases.length - 2);
    await new Promise((res) => setTimeout(res, 100));
    expect([sends(validator), sends(validator2), sends(engine)]).toEqual(before);
    // The envelope itself.
    expect((await fast('{not json')).body.error.code).toBe(-32700);
    expect((await fast({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [] })).body.error).toMatchObject({ code: -32601 });
    expect((await fast({ id: 1, method: 'sendTransaction' })).status).toBe(400);
  });

  it('a base58 transaction is accepted too', async () => {
    const tx = await build([priority(), tip(200_000)]);
    const bs58 = (await import('bs58')).default;
    const r = await send(bs58.encode(Buffer.from(tx.base64, 'base64')), { encoding: 'base58', skipPreflight: true });
    expect(r.body.result).toBe(tx.signature);
  });

  it('swqos_only: validators only, with the lower minimum tip', async () => {
    const small = await build([priority(), tip(5_000)]);
    expect((await send(small.base64)).body.error.message).toMatch(/tip too small/);
    const engineBefore = sends(engine);
    const validatorBefore = sends(validator);
    const r = await send(small.base64, undefined, '?swqos_only=true');
    expect(r.status).toBe(200);
    expect(r.body.result).toBe(small.signature);
    await new Promise((res) => setTimeout(res, 150));
    expect(sends(validator)).toBeGreaterThan(validatorBefore);
    expect(engine.calls.slice(engineBefore).some((c) => c.params?.[0] === small.base64)).toBe(false);
    expect((await send((await build([priority(), tip(4_999)])).base64, undefined, '?swqos_only=true')).body.error.message).toMatch(/minimum with swqos_only=true is 5000/);
  });

  it('answers at the speed of the fast path when another is down or slow', async () => {
    validator.mode = { down: true };
    engine.mode = { delayMs: 1500 };
    try {
      const tx = await build([priority(), tip(200_000)]);
      const r = await send(tx.base64);
      expect(r.body.result).toBe(tx.signature);
      // The slow block builder had not answered yet when the client got the signature.
      expect(engine.pending).toBeGreaterThan(0);
    } finally {
      validator.mode = {};
      engine.mode = {};
    }
  });

  it('every path failing is an error in the interface format, not a hang', async () => {
    for (const u of [validator, validator2, engine]) u.mode = { down: true };
    try {
      const r = await send((await build([priority(), tip(200_000)])).base64);
      expect(r.status).toBe(503);
      expect(r.body.error).toMatchObject({ code: -32002, message: 'no upstream accepted the transaction' });
    } finally {
      for (const u of [validator, validator2, engine]) u.mode = {};
    }
  });

  it('every path slower than the upstream deadline is a 504 -32003 at the deadline, not when they answer', async () => {
    // The gateway's deadline is 2 s (upstreamTimeoutMs above); these answer after 3.5 s.
    for (const u of [validator, validator2, engine]) u.mode = { delayMs: 3500 };
    const pendingBefore = [validator, validator2, engine].map((u) => u.pending);
    try {
      const r = await send((await build([priority(), tip(200_000)])).base64);
      expect(r.status).toBe(504);
      expect(r.body.error).toMatchObject({ code: -32003, message: 'no upstream answered in time' });
      expect(r.body.error.data.map((d: { kind: string }) => d.kind)).toEqual(['timeout', 'timeout', 'timeout']);
      // None of the three had answered when the client got the error.
      [validator, validator2, engine].forEach((u, i) => expect(u.pending).toBeGreaterThan(pendingBefore[i]));
    } finally {
      for (const u of [validator, validator2, engine]) u.mode = {};
    }
  });

  it('keeps rebroadcasting until the transaction is confirmed', async () => {
    const tx = await build([priority(), tip(200_000)]);
    expect((await send(tx.base64)).body.result).toBe(tx.signature);
    const count = () => validator2.calls.filter((c) => c.method === 'sendTransaction' && c.params[0] === tx.base64).length;
    const deadline = Date.now() + 5000;
    while (count() < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(count()).toBeGreaterThanOrEqual(3);
    net.chain.produceSlot();
    // Once the confirmation is seen the rebroadcasts stop: a second without one (ten rounds' worth at 100 ms) comes
    // within ten (a busy machine may deliver a broadcast sent just before the confirmation late).
    let last = count();
    let quietSince = Date.now();
    const end = Date.now() + 10_000;
    while (Date.now() - quietSince < 1000) {
      expect(Date.now(), `still rebroadcasting: ${count()} sends`).toBeLessThan(end);
      await new Promise((r) => setTimeout(r, 50));
      if (count() !== last) [last, quietSince] = [count(), Date.now()];
    }
  });
});

describe('Sender limits and keys', () => {
  it('rate limits per client IP with 429, Retry-After and -32005', async () => {
    const router = createRouter({ rpcUrls: [validator.url], blockEngineUrl: null, upstreamTimeoutMs: 2000, rebroadcastMs: 1000, maxRebroadcastMs: 1000 });
    const limited = await createTestApp({ sender: { router, policy: { tipAccounts: DEFAULT_TIP_ACCOUNTS, minTipLamports: 1n, minTipSwqosLamports: 1n }, rateLimitPerSecond: 3, db: undefined } });
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 5; i++) {
        last = await limited.app.inject({ method: 'POST', url: '/fast', payload: { jsonrpc: '2.0', id: i, method: 'sendTransaction', params: ['AA==', { encoding: 'base64', skipPreflight: true }] } });
        statuses.push(last.statusCode);
      }
      expect(statuses).toEqual([400, 400, 400, 429, 429]);
      expect(last!.headers['retry-after']).toBe('1');
      expect(last!.json().error).toMatchObject({ code: -32005, message: expect.stringMatching(/rate limit of 3 transactions per second/) });
    } finally {
      await limited.close();
      await router.close();
    }
  });

  it('an api-key, when given, must be valid; limits then count per key', async () => {
    const router = createRouter({ rpcUrls: [validator.url], blockEngineUrl: null, upstreamTimeoutMs: 2000, rebroadcastMs: 1000, maxRebroadcastMs: 1000 });
    const app = await createTestApp({ sender: { router, policy: { tipAccounts: DEFAULT_TIP_ACCOUNTS, minTipLamports: 1n, minTipSwqosLamports: 1n }, rateLimitPerSecond: 2 } });
    try {
      const body = { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['AA==', { encoding: 'base64', skipPreflight: true }] };
      const bad = await app.app.inject({ method: 'POST', url: '/fast?api-key=sg_nope_nope', payload: body });
      expect(bad.statusCode).toBe(401);
      expect(bad.json().error.code).toBe(-32401);
      const withKey = [];
      for (let i = 0; i < 3; i++) withKey.push((await app.app.inject({ method: 'POST', url: `/fast?api-key=${app.key}`, payload: body })).statusCode);
      expect(withKey).toEqual([400, 400, 429]);
      // The client's IP still has its own allowance.
      expect((await app.app.inject({ method: 'POST', url: '/fast', payload: body })).statusCode).toBe(400);
    } finally {
      await app.close();
      await router.close();
    }
  });
});

describe('helius-sdk', () => {
  it('sendTransactionWithSender succeeds through solgate', async () => {
    // The SDK's RPC calls (blockhash, simulation, fee estimate, confirmation polling) go to a proxy of the localnet
    // that also answers getPriorityFeeEstimate; its hard-coded Sender host is routed to this gateway.
    const sdkRpc = await upstream(() => net.url, { getPriorityFeeEstimate: { priorityFeeEstimate: 10_000 } });
    const listening = await ta.app.listen({ port: 0, host: '127.0.0.1' });
    const producer = setInterval(() => net.chain.produceSlot(), 100);
    const realFetch = globalThis.fetch;
    const senderCalls: string[] = [];
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
      if (url.hostname.endsWith('sender.helius-rpc.com')) {
        senderCalls.push(url.pathname + url.search);
        return realFetch(`${listening}${url.pathname}${url.search}`, init);
      }
      return realFetch(input as string, init);
    }) as typeof fetch;
    try {
      const helius = createHelius({ apiKey: 'test', baseUrl: sdkRpc.url });
      const dest = await generateKeyPairSigner();
      const sig = await helius.tx.sendTransactionWithSender({
        region: 'Default', signers: [payer], instructions: [getTransferSolInstruction({ source: payer, destination: dest.address, amount: 5_000_000n })],
        tipAmount: 1_000_000, pollTimeoutMs: 15_000, pollIntervalMs: 100,
      });
      expect(typeof sig).toBe('string');
      expect(senderCalls).toEqual(['/fast']);
      expect(BigInt((await rpc.call('getBalance', [dest.address])).value)).toBe(5_000_000n);
    } finally {
      globalThis.fetch = realFetch;
      clearInterval(producer);
      await sdkRpc.close();
    }
  }, 30_000);
});

describe('Sender status passthrough', () => {
  it('checks a presented api-key and rate-limits getSignatureStatuses too', async () => {
    const router = createRouter({ rpcUrls: [validator.url], blockEngineUrl: null, statusUrl: net.url, upstreamTimeoutMs: 2000, rebroadcastMs: 1000, maxRebroadcastMs: 1000 });
    const app = await createTestApp({ sender: { router, policy: { tipAccounts: DEFAULT_TIP_ACCOUNTS, minTipLamports: 1n, minTipSwqosLamports: 1n }, rateLimitPerSecond: 1 } });
    try {
      const body = { jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[]] };
      expect((await app.app.inject({ method: 'POST', url: '/fast?api-key=sg_nope_nope', payload: body })).statusCode).toBe(401);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await app.app.inject({ method: 'POST', url: '/fast', payload: body })).statusCode);
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
      expect(statuses.slice(10)).toEqual([429, 429]);
    } finally {
      await app.close();
      await router.close();
    }
  });
});
