/**
 * Subscriptions served from the committed blocks rather than bridged to the node: the enhanced `accountSubscribe`
 * (at the index's commitment) notifies when a block the index committed wrote the account — so a read of solgate after
 * the notification sees it — and an API-only process (no ingester; another process writes the index) serves
 * `transactionSubscribe` and `accountSubscribe` by following the index's checkpoint and reading those blocks from the
 * cluster, with resume from a slot, and stops reading when nobody listens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { accountFetch, createUpstreamRpc, type UpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { createUpstreamSocketFactory, pubsubUrlOf } from '../../src/sources/upstream-ws.js';
import { createRpcPoller } from '../../src/sources/rpc-poller.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createTransactionHistory } from '../../src/ingest/transaction-history.js';
import { startCommittedFeed, type CommittedFeed } from '../../src/ingest/committed-feed.js';
import { createTransactionHub, type TransactionHub } from '../../src/api/ws/transactions.js';
import { createAccountHub, type AccountHub } from '../../src/api/ws/accounts.js';
import { buildApp } from '../../src/api/app.js';
import { createDemand, type Demand } from '../../src/core/demand.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { createFileTokenRegistry } from '../../src/pricing/token-registry.js';
import type { Block } from '../../src/core/model.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/net.js';
import { openWs, until, type WsClient } from '../helpers/ws.js';
import { localnetSender, unzstd } from '../localnet/helpers.js';

const log = pino({ level: 'silent' });
let net: Localnet;
let upstream: UpstreamRpc;
let client: RpcClient;
let ta: TestApp;
let hubs: { demand: Demand; transactions: TransactionHub; accounts: AccountHub };
let ws: string;
let ctl: AbortController;
let running: Promise<void>;
let payer: KeyPairSigner;
let sender: ReturnType<typeof localnetSender>;

function makeHubs(db: TestApp['t']['db']) {
  const demand = createDemand();
  const history = createTransactionHistory({ db, client, commitment: 'confirmed' });
  return {
    demand,
    transactions: createTransactionHub(history, { demand }),
    accounts: createAccountHub(accountFetch(upstream, 'confirmed'), { commitment: 'confirmed', demand }),
  };
}

const open = openWs;

const call = (c: WsClient, id: number, method: string, params: unknown) => c.sock.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
const answer = (c: { messages: any[] }, id: number) => until(`answer ${id}`, () => c.messages.find((m) => m.id === id));
const notes = (c: { messages: any[] }, method: string, sub: number) => c.messages.filter((m) => m.method === method && m.params.subscription === sub);

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 50 });
  upstream = createUpstreamRpc({ url: net.url });
  client = createRpcClient({ url: net.url, maxRetries: 1 });
  ta = await createTestApp((db) => {
    hubs = makeHubs(db);
    return { upstreamRpc: upstream, pubsub: { upstream: createUpstreamSocketFactory(pubsubUrlOf(net.url)), transactions: hubs.transactions, accounts: hubs.accounts } };
  });
  const ingester = createIngester(ta.t.db, log, {
    onBlocksWritten: (b) => {
      hubs.transactions.publish(b);
      hubs.accounts.publish(b);
    },
  });
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', concurrency: 2, pollIntervalMs: 20 });
  ctl = new AbortController();
  running = ingester.run(poller, { startSlot: net.chain.slot, signal: ctl.signal }).finally(() => poller.close());
  const port = await freePort();
  await ta.app.listen({ port, host: '127.0.0.1' });
  ws = `ws://127.0.0.1:${port}/?api-key=${ta.key}`;
  sender = localnetSender(net);
  payer = await generateKeyPairSigner();
  await sender.airdrop(payer.address, 100_000_000_000n);
});

afterAll(async () => {
  ctl?.abort();
  await running?.catch(() => {});
  await ta?.close();
  await upstream?.close();
  await client?.close();
  await net?.close();
});

describe('accountSubscribe at the index\'s commitment', () => {
  it('notifies once a committed block wrote the account (not for a failed transaction that only names it); other commitments are bridged', async () => {
    const X = await generateKeyPairSigner();
    const c = await open(ws);
    call(c, 1, 'accountSubscribe', [X.address, { commitment: 'confirmed', encoding: 'base64' }]);
    call(c, 2, 'accountSubscribe', [X.address, { commitment: 'processed', encoding: 'base64' }]);
    call(c, 3, 'accountSubscribe', ['not-an-address', { commitment: 'confirmed' }]);
    const local = (await answer(c, 1)).result;
    const bridged = (await answer(c, 2)).result;
    expect(local).toBeGreaterThanOrEqual(1_000_000_000);
    expect(bridged).toBeLessThan(1_000_000_000);
    expect((await answer(c, 3)).error.code).toBe(-32602);

    const first = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: X.address, amount: 2_000_000_000n })]);
    const n1 = await until('the first notification', () => notes(c, 'accountNotification', local)[0]);
    // When it arrives the index holds the block that wrote the account.
    expect((await getCheckpoint(ta.t.db))!).toBeGreaterThanOrEqual(first.slot);
    expect(n1.params.result.context.slot).toBeGreaterThanOrEqual(first.slot);
    expect(n1.params.result.value).toMatchObject({ lamports: 2_000_000_000, owner: '11111111111111111111111111111111', executable: false, space: 0 });
    expect(n1.params.result.value.data).toEqual(['', 'base64']);
    await until('the bridged notification', () => notes(c, 'accountNotification', bridged)[0]);

    // A failed transfer that names X as the destination writes only its fee payer: no notification for X.
    const poor = await generateKeyPairSigner();
    await sender.airdrop(poor.address, 10_000_000n);
    const failed = await sender.send(poor, [getTransferSolInstruction({ source: poor, destination: X.address, amount: 5_000_000_000n })]);
    for (let i = 0; i < 100 && ((await getCheckpoint(ta.t.db)) ?? 0) < failed.slot; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    expect(notes(c, 'accountNotification', local)).toHaveLength(1);

    const second = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: X.address, amount: 1_000_000_000n })]);
    const n2 = await until('the second notification', () => notes(c, 'accountNotification', local)[1]);
    expect(n2.params.result.context.slot).toBeGreaterThanOrEqual(second.slot);
    expect(n2.params.result.value.lamports).toBe(3_000_000_000);

    call(c, 4, 'accountUnsubscribe', [local]);
    expect((await answer(c, 4)).result).toBe(true);
    call(c, 5, 'accountUnsubscribe', [local]);
    expect((await answer(c, 5)).error.code).toBe(-32602);
    call(c, 6, 'transactionUnsubscribe', [bridged]);
    expect((await answer(c, 6)).error.code).toBe(-32602);
    await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: X.address, amount: 1_000_000n })]);
    await until('the bridged third', () => notes(c, 'accountNotification', bridged)[2] ?? notes(c, 'accountNotification', bridged)[1]);
    await new Promise((r) => setTimeout(r, 300));
    expect(notes(c, 'accountNotification', local)).toHaveLength(2);
    c.sock.close();
  });
});

describe('transactionSubscribe encodings', () => {
  it('jsonParsed is the cluster\'s parse; base64+zstd holds the wire bytes; accounts lists each key with its flags', async () => {
    const Z = await generateKeyPairSigner();
    const c = await open(ws);
    const filter = { accountInclude: [Z.address] };
    call(c, 1, 'transactionSubscribe', [filter, { encoding: 'jsonParsed', transactionDetails: 'full', maxSupportedTransactionVersion: 0 }]);
    call(c, 2, 'transactionSubscribe', [filter, { encoding: 'base64+zstd', transactionDetails: 'full', maxSupportedTransactionVersion: 0 }]);
    call(c, 3, 'transactionSubscribe', [filter, { encoding: 'base64', transactionDetails: 'full', maxSupportedTransactionVersion: 0 }]);
    call(c, 4, 'transactionSubscribe', [filter, { transactionDetails: 'accounts', maxSupportedTransactionVersion: 0 }]);
    call(c, 5, 'transactionSubscribe', [filter, { encoding: 'binary', transactionDetails: 'full', maxSupportedTransactionVersion: 0 }]);
    const [parsed, zstd, b64, accounts] = await Promise.all([1, 2, 3, 4].map(async (i) => (await answer(c, i)).result as number));
    expect((await answer(c, 5)).error.code).toBe(-32602);
    const t = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: Z.address, amount: 1_000_000n })]);
    const got = (sub: number) => until(`notification ${sub}`, () => notes(c, 'transactionNotification', sub)[0]?.params.result);
    const p = await got(parsed);
    const node = (await upstream.forward('getTransaction', [t.signature, { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }], 1, true)).result as any;
    expect(p.signature).toBe(t.signature);
    expect(p.transaction.transaction).toEqual(node.transaction);
    expect(p.transaction.transaction.message.instructions[0].parsed).toMatchObject({ type: 'transfer', info: { destination: Z.address, lamports: 1_000_000 } });
    expect(p.transaction.meta.fee).toBe(node.meta.fee);
    const [wire, enc] = (await got(zstd)).transaction.transaction;
    expect(enc).toBe('base64+zstd');
    expect(unzstd(Buffer.from(wire, 'base64')).toString('base64')).toBe((await got(b64)).transaction.transaction[0]);
    const a = (await got(accounts)).transaction;
    expect(a.transaction.accountKeys).toEqual([
      { pubkey: payer.address, writable: true, signer: true, source: 'transaction' },
      { pubkey: Z.address, writable: true, signer: false, source: 'transaction' },
      { pubkey: '11111111111111111111111111111111', writable: false, signer: false, source: 'transaction' },
    ]);
    expect(a.meta.logMessages).toBeUndefined();
    expect(a.meta.postBalances).toHaveLength(3);
    c.sock.close();
  });
});

describe('transactionSubscribe at commitment finalized over an index at confirmed', () => {
  it('sends each transaction once the cluster has finalized its slot', async () => {
    const F = await generateKeyPairSigner();
    const c = await open(ws);
    call(c, 1, 'transactionSubscribe', [{ accountInclude: [F.address] }, { commitment: 'finalized', transactionDetails: 'signatures' }]);
    call(c, 2, 'transactionSubscribe', [{ accountInclude: [F.address] }, { commitment: 'confirmed', transactionDetails: 'signatures' }]);
    const [fin, conf] = [(await answer(c, 1)).result, (await answer(c, 2)).result];
    const t = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: F.address, amount: 1_000_000n })]);
    await until('the confirmed one', () => notes(c, 'transactionNotification', conf)[0]);
    const status = async () => ((await upstream.forward('getSignatureStatuses', [[t.signature]], 1, true)).result as any).value[0]?.confirmationStatus;
    const n = await until('the finalized one', () => notes(c, 'transactionNotification', fin)[0]);
    expect(n.params.result.signature).toBe(t.signature);
    expect(await status()).toBe('finalized');
    c.sock.close();
  });
});

describe('an API-only process (another process ingests)', () => {
  it('serves transactionSubscribe and accountSubscribe from the blocks the index committed, resumes from a slot, and reads nothing while nobody listens', async () => {
    // A second gateway over the same database, without an ingester: it follows the checkpoint the ingester moves.
    const apiOnly = makeHubs(ta.t.db);
    const publish = (b: readonly Block[]) => {
      apiOnly.transactions.publish(b);
      apiOnly.accounts.publish(b);
    };
    let published = 0;
    const feed: CommittedFeed = startCommittedFeed({ db: ta.t.db, url: net.url, commitment: 'confirmed', demand: apiOnly.demand, publish: (b) => ((published += b.length), publish(b)), pollMs: 50 });
    const app = await buildApp({
      db: ta.t.db, logger: log, tokens: createFileTokenRegistry('/nonexistent/tokens.json'), explorerTxUrl: 'https://explorer.test/tx/', upstreamRpc: upstream,
      pubsub: { upstream: createUpstreamSocketFactory(pubsubUrlOf(net.url)), transactions: apiOnly.transactions, accounts: apiOnly.accounts },
    });
    const port = await freePort();
    await app.listen({ port, host: '127.0.0.1' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(published).toBe(0); // nobody listens: no blocks read
      const Y = await generateKeyPairSigner();
      const c = await open(`ws://127.0.0.1:${port}/?api-key=${ta.key}`);
      call(c, 1, 'transactionSubscribe', [{ accountInclude: [Y.address] }, { transactionDetails: 'signatures', encoding: 'json' }]);
      call(c, 2, 'accountSubscribe', [Y.address, { commitment: 'confirmed', encoding: 'base64' }]);
      const [txSub, accSub] = [(await answer(c, 1)).result, (await answer(c, 2)).result];
      expect(accSub).toBeGreaterThanOrEqual(1_000_000_000);

      const t1 = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: Y.address, amount: 1_000_000_000n })]);
      const tn = await until('the transaction notification', () => notes(c, 'transactionNotification', txSub)[0]);
      expect(tn.params.result).toMatchObject({ signature: t1.signature, slot: t1.slot });
      expect((await getCheckpoint(ta.t.db))!).toBeGreaterThanOrEqual(t1.slot);
      const an = await until('the account notification', () => notes(c, 'accountNotification', accSub)[0]);
      expect(an.params.result.value.lamports).toBe(1_000_000_000);

      const t2 = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: Y.address, amount: 1_000_000n })]);
      await until('the second', () => notes(c, 'transactionNotification', txSub)[1]);
      expect(notes(c, 'transactionNotification', txSub).map((m) => m.params.result.signature)).toEqual([t1.signature, t2.signature]);
      c.sock.close();
      await until('the feed stops', () => (apiOnly.demand.active ? undefined : true));

      // A client that reconnects later resumes from its first transaction's slot: the past, then a live one, once each.
      const r = await open(`ws://127.0.0.1:${port}/?api-key=${ta.key}`);
      call(r, 1, 'transactionSubscribe', [{ accountInclude: [Y.address] }, { transactionDetails: 'signatures', encoding: 'json', fromSlot: t1.slot }]);
      const resumed = (await answer(r, 1)).result;
      await until('the past', () => notes(r, 'transactionNotification', resumed)[1]);
      const t3 = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: Y.address, amount: 2_000_000n })]);
      await until('the live one', () => notes(r, 'transactionNotification', resumed)[2]);
      await new Promise((res) => setTimeout(res, 300));
      expect(notes(r, 'transactionNotification', resumed).map((m) => m.params.result.signature)).toEqual([t1.signature, t2.signature, t3.signature]);
      r.sock.close();
    } finally {
      await app.close();
      await feed.close();
    }
  });
});
