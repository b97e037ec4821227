/**
 * The WebSocket endpoint on the gateway's own port, bridged to the cluster's PubSub (the built-in localnet here):
 * unmodified `@solana/kit` (`createSolanaRpcSubscriptions` + `sendAndConfirmTransactionFactory` at confirmed and at
 * finalized — resolved only once the localnet confirmed, finalized the block — account notifications) and
 * `@solana/web3.js` (`sendAndConfirmTransaction`, `onAccountChange`, `onSignature`, `getParsedTransaction`) pointed at
 * solgate's one URL;
 * keys are required at the upgrade; only PubSub methods pass; per-key connection and per-connection subscription
 * limits answer with their close code / error; a node that cannot be reached closes the connection with 1011.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendTransactionMessageInstruction, assertIsTransactionWithBlockhashLifetime, createSolanaRpc, createSolanaRpcSubscriptions,
  createTransactionMessage, generateKeyPairSigner, getSignatureFromTransaction, lamports, pipe, sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash, signTransactionMessageWithSigners, airdropFactory,
  type Address,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction, TransactionInstruction, sendAndConfirmTransaction,
  type ParsedInstruction,
} from '@solana/web3.js';
import { MEMO_PROGRAM } from '../../src/core/programs.js';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createUpstreamRpc, type UpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { createUpstreamSocketFactory, pubsubUrlOf } from '../../src/sources/upstream-ws.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/net.js';
import { openWs, until } from '../helpers/ws.js';

let net: Localnet;
let upstream: UpstreamRpc;
let ta: TestApp;
let http: string;
let ws: string;

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 50 });
  upstream = createUpstreamRpc({ url: net.url });
  ta = await createTestApp({
    upstreamRpc: upstream,
    pubsub: { upstream: createUpstreamSocketFactory(pubsubUrlOf(net.url)) },
  });
  const port = await freePort();
  await ta.app.listen({ port, host: '127.0.0.1' });
  http = `http://127.0.0.1:${port}/?api-key=${ta.key}`;
  ws = `ws://127.0.0.1:${port}/?api-key=${ta.key}`;
});

afterAll(async () => {
  await ta?.close();
  await upstream?.close();
  await net?.close();
});

describe('WebSockets through solgate', () => {
  it('@solana/kit: airdrop, send and confirm a transfer, account notifications — one URL', async () => {
    const rpc = createSolanaRpc(http);
    const rpcSubscriptions = createSolanaRpcSubscriptions(ws);
    const payer = await generateKeyPairSigner();
    const to = (await generateKeyPairSigner()).address;
    await airdropFactory({ rpc, rpcSubscriptions })({ recipientAddress: payer.address, lamports: lamports(2_000_000_000n), commitment: 'confirmed' });
    const ctl = new AbortController();
    const notes = await rpcSubscriptions.accountNotifications(to as Address, { commitment: 'confirmed', encoding: 'base64' }).subscribe({ abortSignal: ctl.signal });
    const first = (async () => {
      for await (const n of notes) return n;
    })();
    const { value: blockhash } = await rpc.getLatestBlockhash().send();
    const msg = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: payer, destination: to as Address, amount: 5_000_000n }), m),
    );
    const signed = await signTransactionMessageWithSigners(msg);
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(signed as Parameters<ReturnType<typeof sendAndConfirmTransactionFactory>>[0], { commitment: 'confirmed' });
    const n = await first;
    ctl.abort();
    expect(n?.value.lamports).toBe(5_000_000n);
  });

  it('@solana/web3.js: sendAndConfirmTransaction and onAccountChange through solgate', async () => {
    const conn = new Connection(http, { commitment: 'confirmed', wsEndpoint: ws });
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    const sig = await conn.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL);
    const bh = await conn.getLatestBlockhash();
    await conn.confirmTransaction({ signature: sig, ...bh }, 'confirmed');
    let seen: number | null = null;
    const sub = conn.onAccountChange(to, (acc) => (seen = acc.lamports), { commitment: 'confirmed' });
    const t0 = Date.now();
    await sendAndConfirmTransaction(conn, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 3_000_000 })), [payer]);
    expect(Date.now() - t0).toBeLessThan(20_000);
    await until('the account notification', () => seen ?? undefined);
    expect(seen).toBe(3_000_000);
    await conn.removeAccountChangeListener(sub);
    expect(new PublicKey(to).toBase58()).toBe(to.toBase58());
  });

  it('@solana/kit: confirmation at confirmed and at finalized resolves only once the localnet reached that level', async () => {
    const rpc = createSolanaRpc(http);
    const rpcSubscriptions = createSolanaRpcSubscriptions(ws);
    const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions });
    const payer = await generateKeyPairSigner();
    await airdropFactory({ rpc, rpcSubscriptions })({ recipientAddress: payer.address, lamports: lamports(2_000_000_000n), commitment: 'confirmed' });
    // When each block reached confirmed and finalized, seen in the localnet itself.
    const reached = new Map<number, { confirmed?: number; finalized?: number }>();
    const mark = (level: 'confirmed' | 'finalized') => (b: { slot: number }) => {
      reached.set(b.slot, { ...reached.get(b.slot), [level]: performance.now() });
    };
    const off = [net.chain.onBlock(mark('confirmed'), 'confirmed'), net.chain.onBlock(mark('finalized'), 'finalized')];
    const to = (await generateKeyPairSigner()).address;
    const transfer = async (amount: bigint) => {
      const { value: blockhash } = await rpc.getLatestBlockhash().send();
      const signed = await signTransactionMessageWithSigners(pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
        (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: payer, destination: to, amount }), m),
      ));
      assertIsTransactionWithBlockhashLifetime(signed);
      return signed;
    };
    const statusOf = async (sig: string) => (await rpc.getSignatureStatuses([sig as never]).send()).value[0];
    try {
      const a = await transfer(1_000_000n);
      await sendAndConfirm(a, { commitment: 'confirmed' });
      const atConfirmed = performance.now();
      const sa = await statusOf(getSignatureFromTransaction(a));
      expect(['confirmed', 'finalized']).toContain(sa?.confirmationStatus);
      expect(reached.get(Number(sa!.slot))?.confirmed).toBeLessThanOrEqual(atConfirmed);

      const b = await transfer(2_000_000n);
      await sendAndConfirm(b, { commitment: 'finalized' });
      const atFinalized = performance.now();
      const sb = await statusOf(getSignatureFromTransaction(b));
      expect(sb).toMatchObject({ confirmationStatus: 'finalized', confirmations: null, err: null });
      const times = reached.get(Number(sb!.slot))!;
      expect(times.finalized).toBeLessThanOrEqual(atFinalized);
      expect(times.confirmed).toBeLessThan(times.finalized!);
      expect((await rpc.getBalance(to, { commitment: 'finalized' }).send()).value).toBe(3_000_000n);
    } finally {
      for (const f of off) f();
    }
  });

  it('@solana/web3.js: onSignature of a transfer, then getParsedTransaction reads it back parsed, through solgate', async () => {
    const conn = new Connection(http, { commitment: 'confirmed', wsEndpoint: ws });
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    const airdrop = await conn.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
    await conn.confirmTransaction({ signature: airdrop, ...(await conn.getLatestBlockhash()) }, 'confirmed');
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 2_000_000 }),
      new TransactionInstruction({ programId: new PublicKey(MEMO_PROGRAM), keys: [], data: Buffer.from('through solgate') }),
    );
    tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    tx.sign(payer);
    const signature = await conn.sendRawTransaction(tx.serialize());
    const seen = await new Promise<{ err: unknown; slot: number }>((resolve) => {
      conn.onSignature(signature, (r, ctx) => resolve({ err: r.err, slot: ctx.slot }), 'confirmed');
    });
    expect(seen.err).toBeNull();
    const status = (await conn.getSignatureStatus(signature)).value;
    expect(status?.slot).toBe(seen.slot);
    expect(['confirmed', 'finalized']).toContain(status?.confirmationStatus);

    const parsed = await conn.getParsedTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(parsed?.slot).toBe(seen.slot);
    expect(parsed?.meta?.err).toBeNull();
    const keys = parsed!.transaction.message.accountKeys;
    expect(keys[0]).toMatchObject({ signer: true, writable: true, source: 'transaction' });
    expect(keys[0].pubkey.toBase58()).toBe(payer.publicKey.toBase58());
    const [transfer, memo] = parsed!.transaction.message.instructions as ParsedInstruction[];
    expect(transfer.program).toBe('system');
    expect(transfer.programId.toBase58()).toBe(SystemProgram.programId.toBase58());
    expect(transfer.parsed).toEqual({ type: 'transfer', info: { source: payer.publicKey.toBase58(), destination: to.toBase58(), lamports: 2_000_000 } });
    expect(memo).toMatchObject({ program: 'spl-memo', parsed: 'through solgate' });
    expect(parsed!.meta!.postBalances[keys.findIndex((k) => k.pubkey.equals(to))]).toBe(2_000_000);
  });

  it('needs a key at the upgrade; answers only PubSub methods', async () => {
    await expect(openWs(ws.replace(/\?api-key=.*/, ''))).rejects.toMatchObject({ status: 401 });
    await expect(openWs(ws.replace(/api-key=.*/, 'api-key=nope'))).rejects.toMatchObject({ status: 401 });
    const c = await openWs(ws);
    // Keep-alives: web3.js's id-less ping gets no answer, one with an id a pong.
    c.sock.send(JSON.stringify({ jsonrpc: '2.0', method: 'ping' }));
    c.sock.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }));
    c.sock.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: ['11111111111111111111111111111111'] }));
    c.sock.send('not json');
    const got = await until('three answers', () => (c.messages.length >= 3 ? c.messages : undefined));
    expect(got).toEqual([
      { jsonrpc: '2.0', result: 'pong', id: 0 },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 1 },
      { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null },
    ]);
    c.sock.close();
  });

  it('limits subscriptions per connection and connections per key, with clear answers', async () => {
    const limited = await createTestApp({ pubsub: { upstream: createUpstreamSocketFactory(pubsubUrlOf(net.url)), maxConnectionsPerKey: 3, maxSubscriptions: 2 } });
    const port = await freePort();
    await limited.app.listen({ port, host: '127.0.0.1' });
    const ws = `ws://127.0.0.1:${port}/?api-key=${limited.key}`;
    const c = await openWs(ws);
    for (let id = 1; id <= 3; id++) c.sock.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'slotSubscribe' }));
    const answers = await until('three answers', () => {
      const a = c.messages.filter((m) => m.id !== undefined);
      return a.length >= 3 ? a : undefined;
    });
    expect(answers.filter((m) => typeof m.result === 'number')).toHaveLength(2);
    expect(answers.find((m) => m.error)).toEqual({ jsonrpc: '2.0', error: { code: -32602, message: 'Too many subscriptions: at most 2 per connection' }, id: 3 });
    const more = [await openWs(ws), await openWs(ws)];
    const over = await openWs(ws);
    expect(await over.closed).toEqual({ code: 1008, reason: 'too many connections for this API key' });
    for (const x of [c, ...more]) x.sock.close();
    // Closed connections no longer count.
    await Promise.all([c, ...more].map((x) => x.closed));
    const again = await openWs(ws);
    again.sock.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'slotSubscribe' }));
    await until('a subscription', () => again.messages.find((m) => m.id === 9));
    again.sock.close();
    await limited.close();
  });

  it('a cluster WebSocket that cannot be reached closes the connection with 1011 and the cause', async () => {
    const other = await createTestApp({ pubsub: { upstream: createUpstreamSocketFactory(`ws://127.0.0.1:${await freePort()}/`) } });
    const port = await freePort();
    await other.app.listen({ port, host: '127.0.0.1' });
    try {
      const c = await openWs(`ws://127.0.0.1:${port}/?api-key=${other.key}`);
      c.sock.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe' }));
      const closed = await c.closed;
      expect(closed.code).toBe(1011);
      expect(closed.reason).toMatch(/^the cluster WebSocket/);
    } finally {
      await other.close();
    }
  });
});

describe('transactionSubscribe from the ingester\'s stream', () => {
  it('sends each matching committed transaction once, in the asked encoding; failed ones only when asked; unsubscribes; resumes from a slot', async () => {
    const { createTransactionHub } = await import('../../src/api/ws/transactions.js');
    const { createIngester } = await import('../../src/ingest/pipeline.js');
    const { createRpcPoller } = await import('../../src/sources/rpc-poller.js');
    const { localnetSender } = await import('../localnet/helpers.js');
    const { getTransactionDecoder, getBase64Encoder, getBase58Decoder } = await import('@solana/kit');
    const pino = (await import('pino')).default;
    const { createTransactionHistory } = await import('../../src/ingest/transaction-history.js');
    const { createRpcClient } = await import('../../src/sources/rpc-client.js');
    const client = createRpcClient({ url: net.url, maxRetries: 1 });
    let history: ReturnType<typeof createTransactionHistory> | null = null;
    const hub = createTransactionHub((f, from) => history!(f, from));
    const app = await createTestApp({ pubsub: { upstream: createUpstreamSocketFactory(pubsubUrlOf(net.url)), transactions: hub } });
    history = createTransactionHistory({ db: app.t.db, client, commitment: 'confirmed' });
    const ingester = createIngester(app.t.db, pino({ level: 'silent' }), { onBlocksWritten: (b) => hub.publish(b) });
    const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', concurrency: 2, pollIntervalMs: 20 });
    const ctl = new AbortController();
    const running = ingester.run(poller, { startSlot: net.chain.slot, signal: ctl.signal }).finally(() => poller.close());
    const port = await freePort();
    await app.app.listen({ port, host: '127.0.0.1' });
    try {
      const c = await openWs(`ws://127.0.0.1:${port}/?api-key=${app.key}`);
      const sender = localnetSender(net);
      const [payer, X] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
      await sender.airdrop(payer.address, 10_000_000_000n);
      const sub = (id: number, filter: unknown, options: unknown) => c.sock.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'transactionSubscribe', params: [filter, options] }));
      sub(1, { accountInclude: [X.address] }, { encoding: 'base64', transactionDetails: 'full', maxSupportedTransactionVersion: 0 });
      sub(2, { accountInclude: [X.address], failed: true }, { encoding: 'json', transactionDetails: 'full', maxSupportedTransactionVersion: 0 });
      sub(3, { accountInclude: [X.address] }, { transactionDetails: 'full' });
      const ids = await until('subscribed', () => {
        const a = [1, 2, 3].map((i) => c.messages.find((m) => m.id === i));
        return a.every(Boolean) ? a : undefined;
      });
      const [b64Sub, jsonSub] = [ids[0].result, ids[1].result];
      expect(ids[2].error.code).toBe(-32602); // maxSupportedTransactionVersion is required with full
      const ok = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: X.address, amount: 1_000_000_000n })]);
      const bad = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: X.address, amount: 1_000_000_000_000n })]);
      const notes = (sub: number) => c.messages.filter((m) => m.method === 'transactionNotification' && m.params.subscription === sub);
      await until('the notifications', () => (notes(b64Sub).length >= 1 && notes(jsonSub).length >= 2 ? true : undefined));
      await new Promise((r) => setTimeout(r, 300));
      expect(notes(b64Sub).map((n) => n.params.result.signature)).toEqual([ok.signature]);
      const n = notes(b64Sub)[0].params.result;
      expect(n.slot).toBe(ok.slot);
      const [wire, enc] = n.transaction.transaction;
      expect(enc).toBe('base64');
      const decoded = getTransactionDecoder().decode(getBase64Encoder().encode(wire));
      expect(getBase58Decoder().decode(Object.values(decoded.signatures)[0]!)).toBe(ok.signature);
      expect(n.transaction.meta.err).toBeNull();
      expect(notes(jsonSub).map((x) => x.params.result.signature)).toEqual([ok.signature, bad.signature]);
      expect(notes(jsonSub)[0].params.result.transaction.transaction.message.accountKeys).toContain(X.address);
      expect(notes(jsonSub)[1].params.result.transaction.meta.err).not.toBeNull();
      c.sock.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'transactionUnsubscribe', params: [b64Sub] }));
      expect(await until('unsubscribed', () => c.messages.find((m) => m.id === 9))).toMatchObject({ result: true });
      await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: X.address, amount: 1_000_000n })]);
      await until('the json subscription\'s third', () => (notes(jsonSub).length >= 3 ? true : undefined));
      expect(notes(b64Sub)).toHaveLength(1);
      const sentToX = notes(jsonSub).map((x) => x.params.result.signature);

      // A client that reconnects resumes from a slot: the past from the index first, then the live ones, none twice.
      const r = await openWs(`ws://127.0.0.1:${port}/?api-key=${app.key}`);
      r.sock.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'transactionSubscribe', params: [{ accountInclude: [X.address], failed: true }, { encoding: 'json', transactionDetails: 'signatures', fromSlot: ok.slot }] }));
      r.sock.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'transactionSubscribe', params: [{ failed: true }, { transactionDetails: 'none', fromSlot: 0 }] }));
      const resumed = (await until('resumed', () => r.messages.find((m) => m.id === 1))).result;
      expect((await until('refused', () => r.messages.find((m) => m.id === 2))).error.code).toBe(-32602);
      const later = await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: X.address, amount: 2_000_000n })]);
      const got = () => r.messages.filter((m) => m.method === 'transactionNotification' && m.params.subscription === resumed).map((m) => m.params.result.signature);
      await until('the past and the live one', () => (got().length >= sentToX.length + 1 ? true : undefined));
      await new Promise((res) => setTimeout(res, 300));
      expect(got()).toEqual([...sentToX, later.signature]);
      r.sock.close();
      c.sock.close();
    } finally {
      ctl.abort();
      await running.catch(() => {});
      await app.close();
      await client.close();
    }
  });
});
