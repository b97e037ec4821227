/**
 * Webhook replays that reach before the stored events: a wallet is active on the localnet before the index begins;
 * a raw webhook on it is created after, sees the later activity live, and is then replayed from slot 0. The replay
 * re-queues the stored events and reads the webhook's address from the cluster for the rest, so the receiver gets
 * every transaction of the wallet the chain has — each exactly once more — in chain order, and the job's progress
 * is listed. A replay of a range above the indexed slot reads nothing from the cluster (live ingestion covers it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createWebhookReplayer, type WebhookReplayer } from '../../src/ingest/webhook-replay.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { recordIndexOrigin } from '../../src/store/coverage.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/worker.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ingestUntil, localnetSender, type LocalnetSender } from '../localnet/helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

const SOL = 1_000_000_000n;
const silent = pino({ level: 'silent' });
let net: Localnet;
let sender: LocalnetSender;
let ta: TestApp;
let rcv: Receiver;
let client: RpcClient;
let replayer: WebhookReplayer;
let worker: DeliveryWorker;
let A: KeyPairSigner, B: KeyPairSigner;
const before: string[] = [];
const after: string[] = [];
let lastSlot = 0;

async function api(method: 'GET' | 'POST', url: string, body?: unknown) {
  const r = await ta.app.inject({ method, url, headers: { 'x-api-key': ta.key }, ...(body !== undefined ? { payload: body as object } : {}) });
  return { status: r.statusCode, body: r.body ? r.json() : null };
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const delivered = () => rcv.ok('/a').map((r) => (JSON.parse(r.body) as { transaction: { signatures: string[] } }[])[0].transaction.signatures[0]);

beforeAll(async () => {
  net = await createLocalnet({ port: 0, slotMs: 0 });
  sender = localnetSender(net);
  [A, B] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  rcv = await startReceiver();
  client = createRpcClient({ url: net.url, maxRetries: 2 });
  // The past: A is funded and pays B, with no index.
  before.push((await sender.airdrop(A.address, 10n * SOL)).signature);
  for (const amount of [SOL, 2n, 3n]) before.push((await sender.send(A, [getTransferSolInstruction({ source: A, destination: B.address, amount })])).signature);
  const origin = net.chain.produceSlot()!.slot;

  ta = await createTestApp((db) => {
    replayer = createWebhookReplayer({ db, ingester: createIngester(db, silent), client, commitment: 'confirmed', logger: silent, idleMs: 50, chunk: 2 });
    return { webhooks: { allowHttp: true, allowPrivate: true }, webhookReplays: replayer };
  });
  replayer.start();
  worker = startDeliveryWorker({
    db: ta.t.db, logger: silent, concurrency: 1, timeoutMs: 10_000, retry: { baseMs: 50, maxMs: 200, windowMs: 60_000 },
    deactivation: { failureRate: 0, windowMs: 60_000, minAttempts: 1 }, ssrf: { allowPrivate: true }, pollMs: 20,
  });
  await recordIndexOrigin(ta.t.db, origin);
  const r = await api('POST', '/v0/webhooks', { webhookURL: `${rcv.url}/a`, webhookType: 'raw', accountAddresses: [A.address] });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  // The present: more payments, seen live.
  for (const amount of [4n, 5n]) {
    const landed = await sender.send(A, [getTransferSolInstruction({ source: A, destination: B.address, amount })]);
    after.push(landed.signature);
    lastSlot = landed.slot;
  }
  net.chain.produceSlot();
  await ingestUntil(ta.t.db, net.url, lastSlot, { fromSlot: origin });
  await until('the live deliveries', () => delivered().length === after.length);
}, 120_000);

afterAll(async () => {
  await replayer?.stop();
  await worker?.stop();
  await client?.close();
  await rcv?.close();
  await ta?.close();
  await net?.close();
});

describe('a replay from before the webhook existed', () => {
  it('live deliveries were only the transactions after the index began', () => {
    expect(delivered()).toEqual(after);
  });

  it('delivers every transaction of the address the chain has, once more each, in chain order', async () => {
    const id = (await api('GET', '/v0/webhooks')).body[0].webhookID as string;
    const r = await api('POST', `/v0/webhooks/${id}/replay`, { fromSlot: 0 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.replayed).toBe(after.length);
    expect(r.body.history).toMatchObject({ fromSlot: 0, status: 'pending' });
    expect(r.body.history.toSlot).toBeGreaterThanOrEqual(lastSlot);
    const all = [...before, ...after];
    await until('the replayed deliveries', () => delivered().length === after.length + all.length);
    const replayedNow = delivered().slice(after.length);
    expect([...replayedNow].sort()).toEqual([...all].sort());
    // The chain's own list of the address's transactions (newest first) is what was delivered.
    const chain = ((await client.call<{ signature: string }[]>('getSignaturesForAddress', [A.address])) ?? []).map((s) => s.signature);
    expect([...chain].sort()).toEqual([...all].sort());
    // The transactions read from the cluster come in chain order.
    expect(replayedNow.filter((s) => before.includes(s))).toEqual(before);
    await until('the job finished', async () => (await api('GET', `/v0/webhooks/${id}/replays`)).body.replays[0].status === 'done');
    const job = (await api('GET', `/v0/webhooks/${id}/replays`)).body.replays[0];
    expect(job).toMatchObject({ status: 'done', addressesRead: 1, transactionsRead: all.length, eventsMatched: all.length, error: null });
  });

  it('a range above the indexed slot reads nothing from the cluster', async () => {
    const id = (await api('GET', '/v0/webhooks')).body[0].webhookID as string;
    const r = await api('POST', `/v0/webhooks/${id}/replay`, { fromSlot: lastSlot + 1_000 });
    expect(r.body).toMatchObject({ replayed: 0, history: null });
  });
});
