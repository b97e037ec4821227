/**
 * Webhook delivery end to end in one process: real transactions on the built-in localnet → RPC poller → ingester
 * (outbox written with the blocks) → delivery worker → a local HTTP receiver. Checks what a receiver relies on:
 * every matching event exactly once when the receiver answers 200, in slot order, with the payload shape of its
 * webhook type, the Authorization header, a stable event id and a Standard Webhooks signature that the reference
 * `standardwebhooks` library verifies; filters (txnStatus, transactionTypes, failed transactions); the delivery log
 * API; replay from a slot; idempotent re-ingestion; retries after 500s and timeouts; the SSRF guard; and
 * auto-deactivation with its reason, reversed by switching the webhook on again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getMintToCheckedInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { startDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from '../../src/webhooks/worker.js';
import { eventId } from '../../src/webhooks/signing.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ingestUntil, localnetSender, type LocalnetSender } from '../localnet/helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

const SOL = 1_000_000_000n;
const silent = pino({ level: 'silent' });

let net: Localnet;
let sender: LocalnetSender;
let ta: TestApp;
let rcv: Receiver;
let A: KeyPairSigner, B: KeyPairSigner, mint: KeyPairSigner;
let ataA: Address, ataB: Address;

interface Sent { signature: string; slot: number; kind: 'airdrop' | 'sol' | 'setup' | 'token' | 'fail'; amount?: bigint; involves: string[] }
const sent: Sent[] = [];

async function send(payer: KeyPairSigner, ixs: Instruction[], meta: Omit<Sent, 'signature' | 'slot'>): Promise<string> {
  const { signature, slot } = await sender.send(payer, ixs);
  sent.push({ ...meta, signature, slot });
  return signature;
}

async function api(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  const r = await ta.app.inject({ method, url, headers: { 'x-api-key': ta.key }, ...(body !== undefined ? { payload: body as object } : {}) });
  return { status: r.statusCode, body: r.body ? r.json() : null };
}

async function createHook(path: string, over: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const r = await api('POST', '/v0/webhooks', { webhookURL: `${rcv.url}${path}`, ...over });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { id: r.body.webhookID, secret: r.body.signingSecret };
}

/** Runs the poller + ingester until the checkpoint reaches the last sent slot. */
const ingestAll = (fromSlot?: number) => ingestUntil(ta.t.db, net.url, sent[sent.length - 1].slot, { fromSlot });

function worker(over: Partial<DeliveryWorkerOptions> = {}): DeliveryWorker {
  return startDeliveryWorker({
    db: ta.t.db,
    logger: silent,
    concurrency: 4,
    // Generous: the receiver is local, but a loaded machine (test files run side by side) can take seconds to answer,
    // and an attempt that times out is retried after the later events, which the ordering checks would misread.
    timeoutMs: 10_000,
    retry: { baseMs: 50, maxMs: 200, windowMs: 60_000 },
    deactivation: { failureRate: 0, windowMs: 60_000, minAttempts: 1 },
    ssrf: { allowPrivate: true },
    pollMs: 20,
    ...over,
  });
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function counts(id: string): Promise<{ pending: number; delivered: number; failed: number }> {
  return (await api('GET', `/v0/webhooks/${id}/deliveries?limit=1`)).body.counts;
}

const bodies = (path: string) => rcv.ok(path).map((r) => JSON.parse(r.body));
const sigsOf = (path: string) => rcv.ok(path).map((r) => JSON.parse(r.body)[0].transaction?.signatures?.[0] ?? JSON.parse(r.body)[0].signature);

let hooks: Record<string, { id: string; secret: string }>;

beforeAll(async () => {
  net = await createLocalnet({ port: 0, slotMs: 0 });
  sender = localnetSender(net);
  ta = await createTestApp({ webhooks: { allowHttp: true, allowPrivate: true } });
  rcv = await startReceiver();
  [A, B, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);

  // Webhooks exist before the activity they are to see.
  hooks = {
    rawA: await createHook('/raw-a', { webhookType: 'raw', accountAddresses: [A.address], authHeader: 'Bearer raw-secret' }),
    transfersB: await createHook('/enh-b', { webhookType: 'enhanced', transactionTypes: ['TRANSFER'], accountAddresses: [B.address] }),
    anyB: await createHook('/any-b', { webhookType: 'enhanced', transactionTypes: ['ANY'], accountAddresses: [B.address] }),
    failedB: await createHook('/failed-b', { webhookType: 'raw', txnStatus: 'failed', accountAddresses: [B.address] }),
    discordA: await createHook('/discord-a', { webhookType: 'discord', transactionTypes: ['ANY'], accountAddresses: [A.address] }),
    mintsA: await createHook('/mints-a', { webhookType: 'enhanced', transactionTypes: ['TOKEN_MINT'], accountAddresses: [A.address] }),
  };

  sent.push({ ...(await sender.airdrop(A.address, 50n * SOL)), kind: 'airdrop', amount: 50n * SOL, involves: [A.address] });
  for (const amount of [3n * SOL, 1_234_567n]) await send(A, [getTransferSolInstruction({ source: A, destination: B.address, amount })], { kind: 'sol', amount, involves: [A.address, B.address] });
  const setup = await sender.mintSetup(A, mint, 6, [A.address, B.address]);
  [ataA, ataB] = setup.atas;
  await send(A, setup.instructions, { kind: 'setup', involves: [A.address, B.address] });
  await send(A, [getMintToCheckedInstruction({ mint: mint.address, token: ataA, mintAuthority: A, amount: 5_000_000n, decimals: 6 })], { kind: 'setup', involves: [A.address] });
  // B's wallet is not an account key of these: only its token account is (matched through the token balance owner).
  for (const amount of [1_500_000n, 42n])
    await send(A, [getTransferCheckedInstruction({ source: ataA, mint: mint.address, destination: ataB, authority: A, amount, decimals: 6 })], { kind: 'token', amount, involves: [A.address, B.address] });
  // Fails on chain (B has too few tokens): raw webhooks with txnStatus failed get it; enhanced ones never do. It names
  // A's token account, so A's raw webhook (txnStatus all) gets it too.
  await send(B, [getTransferCheckedInstruction({ source: ataB, mint: mint.address, destination: ataA, authority: B, amount: 10n ** 12n, decimals: 6 })], { kind: 'fail', involves: [B.address, A.address] });
  net.chain.produceSlot();
  await ingestAll();
}, 120_000);

afterAll(async () => {
  await rcv?.close();
  await net?.close();
  await ta?.close();
});

describe('webhook delivery (ingest → outbox → worker → receiver)', () => {
  it('delivers every matching event exactly once, in slot order, with the payload of each webhook type', async () => {
    const w = worker();
    try {
      const expected: Record<string, number> = {
        '/raw-a': sent.filter((s) => s.involves.includes(A.address)).length,
        '/enh-b': sent.filter((s) => s.kind === 'sol' || s.kind === 'token').length,
        '/failed-b': 1,
      };
      await until('deliveries', async () => {
        for (const h of Object.values(hooks)) if ((await counts(h.id)).pending > 0) return false;
        return Object.entries(expected).every(([p, n]) => rcv.ok(p).length >= n);
      });
      // raw: every transaction naming A, once each, in chain order, as RPC transactions with meta.
      const rawA = sent.filter((s) => s.involves.includes(A.address));
      expect(sigsOf('/raw-a')).toEqual(rawA.map((s) => s.signature));
      for (const [i, b] of bodies('/raw-a').entries()) {
        expect(b).toHaveLength(1);
        expect(b[0].slot).toBe(rawA[i].slot);
        expect(b[0].meta).toMatchObject({ fee: expect.any(Number), preBalances: expect.any(Array), postBalances: expect.any(Array) });
        if (rawA[i].kind === 'fail') {
          expect(b[0].meta.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
          expect(b[0].meta.preTokenBalances.map((t: { owner: string }) => t.owner)).toContain(A.address);
        } else {
          expect(b[0].meta.err).toBeNull();
          expect(b[0].transaction.message.accountKeys).toContain(A.address);
        }
      }
      // enhanced TRANSFER for B: SOL and token transfers (B seen through its token account's owner), not the
      // failed transfer nor the setup; amounts as sent.
      const transfers = sent.filter((s) => s.kind === 'sol' || s.kind === 'token');
      expect(sigsOf('/enh-b')).toEqual(transfers.map((s) => s.signature));
      for (const [i, [tx]] of bodies('/enh-b').entries()) {
        expect(tx.type).toBe('TRANSFER');
        if (transfers[i].kind === 'sol') expect(tx.nativeTransfers).toContainEqual({ fromUserAccount: A.address, toUserAccount: B.address, amount: Number(transfers[i].amount) });
        else expect(tx.tokenTransfers).toContainEqual(expect.objectContaining({ fromUserAccount: A.address, toUserAccount: B.address, mint: mint.address, tokenAmount: Number(transfers[i].amount) / 1e6 }));
      }
      // ANY: every successful transaction involving B; the failed one is not sent to enhanced webhooks.
      const okB = sent.filter((s) => s.involves.includes(B.address) && s.kind !== 'fail');
      expect(sigsOf('/any-b')).toEqual(okB.map((s) => s.signature));
      // txnStatus failed: only the failed transaction, with its error.
      const failed = sent.find((s) => s.kind === 'fail')!;
      expect(sigsOf('/failed-b')).toEqual([failed.signature]);
      expect(bodies('/failed-b')[0][0].meta.err).not.toBeNull();
      // TOKEN_MINT only.
      const mints = bodies('/mints-a');
      expect(mints.map((b) => b[0].type)).toEqual(['TOKEN_MINT']);
      // discord: Discord's execute-webhook body, one message per transaction.
      const discord = bodies('/discord-a');
      expect(discord).toHaveLength(rawA.filter((s) => s.kind !== 'fail').length);
      for (const d of discord) {
        expect(typeof d.content).toBe('string');
        expect(d.embeds[0]).toMatchObject({ title: expect.any(String), description: expect.any(String), fields: expect.any(Array) });
      }
      // Nothing delivered twice (the receiver answered 200 every time).
      const ids = rcv.received.map((r) => `${r.path}|${r.headers['webhook-id']}`);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await w.stop();
    }
  }, 60_000);

  it('signs every delivery (Standard Webhooks), sends authHeader and a stable event id', () => {
    for (const [name, h] of Object.entries(hooks)) {
      const path = { rawA: '/raw-a', transfersB: '/enh-b', anyB: '/any-b', failedB: '/failed-b', discordA: '/discord-a', mintsA: '/mints-a' }[name]!;
      const verifier = new StandardWebhook(h.secret.slice('whsec_'.length));
      for (const r of rcv.ok(path)) {
        const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
        expect(() => verifier.verify(r.body, headers)).not.toThrow();
        const parsed = JSON.parse(r.body);
        const sig = name === 'discordA' ? null : (parsed[0].transaction?.signatures?.[0] ?? parsed[0].signature);
        if (sig) expect(r.headers['webhook-id']).toBe(eventId(h.id, sig));
        expect(r.headers.authorization).toBe(name === 'rawA' ? 'Bearer raw-secret' : undefined);
        expect(r.headers['content-type']).toBe('application/json');
      }
      // A tampered body does not verify.
      const one = rcv.ok(path)[0];
      if (one) expect(() => verifier.verify(`${one.body} `, Object.fromEntries(Object.entries(one.headers).map(([k, v]) => [k, String(v)])))).toThrow();
    }
  });

  it('the delivery log shows each event with its attempts; unknown and foreign ids are 404', async () => {
    const log = await api('GET', `/v0/webhooks/${hooks.rawA.id}/deliveries?limit=2`);
    expect(log.status).toBe(200);
    expect(log.body.counts).toEqual({ pending: 0, delivered: sent.filter((s) => s.involves.includes(A.address)).length, failed: 0 });
    expect(log.body.deliveries).toHaveLength(2);
    const [d] = log.body.deliveries;
    expect(d).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200, lastError: null, eventId: eventId(hooks.rawA.id, d.signature) });
    expect(d.attemptLog).toEqual([expect.objectContaining({ attempt: 1, ok: true, status: 200, latencyMs: expect.any(Number), error: null })]);
    // Newest first; the token continues strictly after the page.
    const next = await api('GET', `/v0/webhooks/${hooks.rawA.id}/deliveries?limit=100&before=${log.body.paginationToken}`);
    const all = [...log.body.deliveries, ...next.body.deliveries].map((x: { signature: string }) => x.signature);
    expect(all).toEqual(sent.filter((s) => s.involves.includes(A.address)).map((s) => s.signature).reverse());
    const one = await api('GET', `/v0/webhooks/${hooks.rawA.id}/deliveries/${d.deliveryId}`);
    expect(one.body).toMatchObject({ deliveryId: d.deliveryId, signature: d.signature, attemptLog: [expect.objectContaining({ ok: true })] });
    expect((await api('GET', `/v0/webhooks/${hooks.anyB.id}/deliveries/${d.deliveryId}`)).status).toBe(404);
    expect((await api('GET', `/v0/webhooks/${hooks.rawA.id}/deliveries/abc`)).status).toBe(404);
    expect((await api('GET', '/v0/webhooks/00000000-0000-4000-8000-000000000000/deliveries')).status).toBe(404);
    expect((await api('GET', `/v0/webhooks/${hooks.rawA.id}/deliveries?before=!!`)).status).toBe(400);
    expect((await api('GET', `/v0/webhooks/${hooks.rawA.id}/deliveries?state=lost`)).status).toBe(400);
  });

  it('re-ingesting the same blocks queues nothing new', async () => {
    const before = await counts(hooks.rawA.id);
    await ingestAll(0);
    expect(await counts(hooks.rawA.id)).toEqual(before);
  }, 60_000);

  it('replays a webhook from a slot: the same events again, in order, with their original event ids', async () => {
    const rawA = sent.filter((s) => s.involves.includes(A.address));
    const from = rawA[2].slot;
    const bad = await api('POST', `/v0/webhooks/${hooks.rawA.id}/replay`, { fromSlot: 10, toSlot: 5 });
    expect(bad.status).toBe(400);
    expect((await api('POST', `/v0/webhooks/${hooks.rawA.id}/replay`, { fromSlot: -1 })).status).toBe(400);
    const r = await api('POST', `/v0/webhooks/${hooks.rawA.id}/replay`, { fromSlot: from });
    expect(r.status).toBe(200);
    const again = rawA.filter((s) => s.slot >= from);
    expect(r.body.replayed).toBe(again.length);
    // Replayed events are due at one instant, so the worker takes them in chain order (not in the UPDATE's scan order).
    const due = await ta.t.db.query<{ n: number }>('SELECT count(DISTINCT next_attempt_at)::int AS n FROM webhook_events WHERE webhook_id = $1 AND slot >= $2', [hooks.rawA.id, from]);
    expect(due.rows[0].n).toBe(1);
    const seen = rcv.ok('/raw-a').length;
    const w = worker();
    try {
      await until('replayed deliveries', () => rcv.ok('/raw-a').length >= seen + again.length);
    } finally {
      await w.stop();
    }
    const replayed = rcv.ok('/raw-a').slice(seen);
    expect(replayed.map((x) => JSON.parse(x.body)[0].transaction.signatures[0])).toEqual(again.map((s) => s.signature));
    expect(replayed.map((x) => x.headers['webhook-id'])).toEqual(again.map((s) => eventId(hooks.rawA.id, s.signature)));
  }, 60_000);
});

describe('webhook delivery failures', () => {
  async function activity(to: Address, n: number): Promise<string[]> {
    const sigs: string[] = [];
    for (let i = 0; i < n; i++) sigs.push(await send(A, [getTransferSolInstruction({ source: A, destination: to, amount: 1000n + BigInt(i) })], { kind: 'sol', amount: 1000n + BigInt(i), involves: [A.address, to] }));
    await ingestAll();
    return sigs;
  }

  it('retries after 500s and timeouts until delivered; every attempt is in the log', async () => {
    const C = await generateKeyPairSigner();
    const flaky = await createHook('/flaky', { webhookType: 'raw', accountAddresses: [C.address] });
    const slow = await createHook('/slow', { webhookType: 'raw', accountAddresses: [C.address] });
    rcv.behave = (r) => {
      if (r.path === '/flaky' && r.seen <= 2) return { status: 500 };
      // Far past the worker's deadline, which is itself far above a loaded machine's answer time for the 500s.
      if (r.path === '/slow' && r.seen === 1) return { status: 200, delayMs: 4000 };
      return { status: 200 };
    };
    const sigs = await activity(C.address, 3);
    const w = worker({ timeoutMs: 1500 });
    try {
      await until('retried deliveries', async () => (await counts(flaky.id)).delivered === 3 && (await counts(slow.id)).delivered === 3);
    } finally {
      await w.stop();
      rcv.behave = () => ({ status: 200 });
    }
    // Each event reached the receiver until it answered 200 in time: for /flaky twice 500 then 200.
    const log = (await api('GET', `/v0/webhooks/${flaky.id}/deliveries`)).body.deliveries;
    for (const d of log) {
      expect(d.attemptLog.map((a: { status: number }) => a.status)).toEqual([500, 500, 200]);
      expect(d.attemptLog[0].error).toBe('HTTP 500');
    }
    const slowLog = (await api('GET', `/v0/webhooks/${slow.id}/deliveries`)).body.deliveries;
    for (const d of slowLog) {
      expect(d.attemptLog[0]).toMatchObject({ ok: false, status: null, error: expect.stringMatching(/timeout/) });
      expect(d.attemptLog.at(-1)).toMatchObject({ ok: true, status: 200 });
    }
    // Duplicates (the slow receiver got the first attempt too) carry the same event id.
    const slowIds = rcv.received.filter((r) => r.path === '/slow').map((r) => r.headers['webhook-id']);
    expect(new Set(slowIds)).toEqual(new Set(sigs.map((s) => eventId(slow.id, s))));
    // First attempts reached /flaky in slot order.
    const firsts: string[] = [];
    for (const r of rcv.received.filter((x) => x.path === '/flaky')) {
      const s = JSON.parse(r.body)[0].transaction.signatures[0];
      if (!firsts.includes(s)) firsts.push(s);
    }
    expect(firsts).toEqual(sigs);
    for (const h of [flaky, slow]) await api('DELETE', `/v0/webhooks/${h.id}`);
  }, 60_000);

  it('refuses private targets unless the operator allows them (SSRF guard at delivery)', async () => {
    const D = await generateKeyPairSigner();
    const h = await createHook('/private', { webhookType: 'raw', accountAddresses: [D.address] });
    await activity(D.address, 1);
    const w = worker({ ssrf: { allowPrivate: false } });
    try {
      await until('a refused attempt', async () => {
        const d = (await api('GET', `/v0/webhooks/${h.id}/deliveries`)).body.deliveries;
        return d.length === 1 && d[0].attempts >= 1;
      });
    } finally {
      await w.stop();
    }
    const [d] = (await api('GET', `/v0/webhooks/${h.id}/deliveries`)).body.deliveries;
    expect(d.state).toBe('pending');
    expect(d.attemptLog[0]).toMatchObject({ ok: false, status: null, error: expect.stringMatching(/refused target.*127\.0\.0\.1|loopback/) });
    expect(rcv.received.filter((r) => r.path === '/private')).toHaveLength(0);
    await api('DELETE', `/v0/webhooks/${h.id}`);
  }, 60_000);

  it('switches a failing webhook off with the reason, and delivers what waited once switched on again', async () => {
    const E = await generateKeyPairSigner();
    const h = await createHook('/down', { webhookType: 'raw', accountAddresses: [E.address] });
    rcv.behave = (r) => (r.path === '/down' ? { status: 503 } : { status: 200 });
    const sigs = await activity(E.address, 4);
    const w = worker({ deactivation: { failureRate: 0.9, windowMs: 60_000, minAttempts: 4 } });
    try {
      await until('auto-deactivation', async () => (await api('GET', `/v0/webhooks/${h.id}`)).body.active === false);
    } finally {
      await w.stop();
    }
    const off = (await api('GET', `/v0/webhooks/${h.id}`)).body;
    expect(off.deactivatedReason).toMatch(/failure rate 100\.0% \(4 of 4 attempts/);
    expect(off.deactivatedAt).toEqual(expect.any(String));
    // While off, nothing is attempted and new activity is not queued for it.
    await activity(E.address, 1);
    expect((await counts(h.id)).pending).toBe(4);
    // The receiver recovers; switching the webhook on clears the reason and delivers the 4 that waited.
    rcv.behave = () => ({ status: 200 });
    const on = await api('PATCH', `/v0/webhooks/${h.id}`, { active: true });
    expect(on.body).toMatchObject({ active: true, deactivatedReason: null, deactivatedAt: null });
    const w2 = worker();
    try {
      await until('delivery after reactivation', async () => (await counts(h.id)).delivered === 4);
    } finally {
      await w2.stop();
    }
    expect(new Set(rcv.ok('/down').map((r) => JSON.parse(r.body)[0].transaction.signatures[0]))).toEqual(new Set(sigs));
  }, 60_000);
});
