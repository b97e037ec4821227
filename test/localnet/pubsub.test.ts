/**
 * The localnet's WebSocket PubSub (agave's `*Subscribe` methods): unmodified `@solana/web3.js` and `@solana/kit`
 * clients confirm transactions and receive account, signature, logs and slot notifications against it, web3.js at the
 * URL it derives by itself (port + 1) and kit on the HTTP port; raw WebSocket tests check the wire shapes, the
 * moments of the notifications, the errors, and that subscriptions end with their connection, are limited, and that
 * a client that stops reading is cut off.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction, sendAndConfirmTransaction, type Logs, type SlotInfo,
} from '@solana/web3.js';
import {
  airdropFactory, appendTransactionMessageInstruction, assertIsTransactionWithBlockhashLifetime, createSolanaRpc,
  createSolanaRpcSubscriptions, createTransactionMessage, generateKeyPairSigner, getSignatureFromTransaction, lamports, pipe,
  sendAndConfirmTransactionFactory, setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners, type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { fundedLocalnet, openWs, sendTx, setupSplMint, signTx, type RpcClient, type WsClient } from './helpers.js';

const SYSTEM = '11111111111111111111111111111111';


async function until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('real clients against a localnet producing slots', () => {
  let net: Localnet;
  beforeAll(async () => {
    net = await createLocalnet({ slotMs: 100 });
  });
  afterAll(async () => {
    // web3.js closes an idle socket 500 ms after its last subscription; closing the server first makes it reconnect.
    await until(() => net.pubsub.connectionCount === 0, 10_000).catch(() => {});
    await net?.close();
  });

  it('serves PubSub on the HTTP port and on port + 1, which web3.js derives by itself', () => {
    expect(net.wsUrl).toBe(`ws://127.0.0.1:${net.port}`);
    expect(net.pubsubUrl).toBe(`ws://127.0.0.1:${net.port + 1}`);
    const conn = new Connection(net.url);
    expect((conn as unknown as { _rpcWsEndpoint: string })._rpcWsEndpoint).toBe(net.pubsubUrl);
  });

  it('@solana/web3.js: sendAndConfirmTransaction, onAccountChange, onSignature, onLogs and onSlotChange', async () => {
    const conn = new Connection(net.url); // no wsEndpoint, no default commitment (finalized)
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    const airdrop = await conn.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL);
    const t0 = Date.now();
    await conn.confirmTransaction({ signature: airdrop, ...(await conn.getLatestBlockhash()) });

    const changes: { lamports: number; slot: number }[] = [];
    const logs: Logs[] = [];
    const allLogs: Logs[] = [];
    const slots: SlotInfo[] = [];
    const listeners = [
      conn.onAccountChange(to, (a, ctx) => changes.push({ lamports: a.lamports, slot: ctx.slot }), { commitment: 'confirmed' }),
      conn.onLogs(payer.publicKey, (l) => logs.push(l), 'confirmed'),
      conn.onLogs('all', (l) => allLogs.push(l), 'confirmed'),
    ];
    const slotListener = conn.onSlotChange((s) => slots.push(s));
    const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 10_000_000 }));
    const signature = await sendAndConfirmTransaction(conn, tx, [payer]);
    expect(Date.now() - t0).toBeLessThan(10_000); // was a 30 s timeout without PubSub (≈0.4 s here)
    // Without a commitment web3.js settles on the first status it reads, processed included: read it once confirmed.
    await conn.confirmTransaction({ signature, ...(await conn.getLatestBlockhash()) }, 'confirmed');
    const landed = await conn.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.err).toBeNull();

    // The payer's logs may also carry its airdrop: web3.js without a commitment can settle the airdrop's confirmation
    // at processed, before the subscription, and the airdrop is then notified once confirmed.
    const transferLogs = () => logs.find((l) => l.signature === signature);
    await until(() => changes.length > 0 && transferLogs() !== undefined && allLogs.some((l) => l.signature === signature) && slots.length > 1);
    expect(changes[0]).toEqual({ lamports: 10_000_000, slot: landed!.slot });
    expect(logs.every((l) => l.signature === signature || l.signature === airdrop)).toBe(true);
    expect(transferLogs()).toMatchObject({ signature, err: null });
    expect(transferLogs()!.logs).toEqual(landed!.meta!.logMessages);
    expect(slots[1].slot).toBeGreaterThan(slots[0].slot);
    expect(slots[0].parent).toBeLessThan(slots[0].slot);
    // The root is the newest finalized block: confirmed 1 slot and finalized 4 slots more behind (empty slots produce
    // blocks), the genesis block (slot 0) until then.
    expect(slots[0].root).toBe(Math.max(0, slots[0].slot - net.chain.finality.confirmed - net.chain.finality.finalized));

    // onSignature of a transaction sent afterwards, and of one already final (answered at once)
    const tx2 = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000 }));
    tx2.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    tx2.sign(payer);
    const sig2 = await conn.sendRawTransaction(tx2.serialize());
    const seen = await new Promise<{ err: unknown; slot: number }>((resolve) => {
      conn.onSignature(sig2, (r, ctx) => resolve({ err: r.err, slot: ctx.slot }), 'confirmed');
    });
    expect(seen.err).toBeNull();
    expect(seen.slot).toBe((await conn.getSignatureStatus(sig2)).value?.slot);
    const again = await new Promise<{ err: unknown; slot: number }>((resolve) => {
      conn.onSignature(signature, (r, ctx) => resolve({ err: r.err, slot: ctx.slot }), 'finalized');
    });
    expect(again).toEqual({ err: null, slot: landed!.slot });

    for (const l of listeners.slice(0, 1)) await conn.removeAccountChangeListener(l);
    for (const l of listeners.slice(1)) await conn.removeOnLogsListener(l);
    await conn.removeSlotChangeListener(slotListener);
  });

  it('@solana/kit: createSolanaRpcSubscriptions + sendAndConfirmTransactionFactory confirm a transfer; accountNotifications yields it', async () => {
    const rpc = createSolanaRpc(net.url);
    const rpcSubscriptions = createSolanaRpcSubscriptions(net.wsUrl);
    const payer = await generateKeyPairSigner();
    const to = (await generateKeyPairSigner()).address;
    await airdropFactory({ rpc, rpcSubscriptions })({ recipientAddress: payer.address, lamports: lamports(2_000_000_000n), commitment: 'confirmed' });

    const ctl = new AbortController();
    const notes = await rpcSubscriptions.accountNotifications(to, { commitment: 'confirmed', encoding: 'base64' }).subscribe({ abortSignal: ctl.signal });
    const first = (async () => {
      for await (const n of notes) return n;
    })();
    const { value: blockhash } = await rpc.getLatestBlockhash().send();
    const signed = await signTransactionMessageWithSigners(pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: payer, destination: to, amount: 5_000_000n }), m),
    ));
    assertIsTransactionWithBlockhashLifetime(signed);
    const t0 = Date.now();
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(signed, { commitment: 'confirmed' });
    expect(Date.now() - t0).toBeLessThan(10_000);
    const n = await first;
    ctl.abort();
    const status = await rpc.getSignatureStatuses([getSignatureFromTransaction(signed)]).send();
    expect(n?.value).toMatchObject({ lamports: 5_000_000n, owner: SYSTEM, executable: false, space: 0n, data: ['', 'base64'] });
    expect(n?.context.slot).toBe(status.value[0]?.slot);
  });
});

describe('raw WebSocket: shapes, moments and errors', () => {
  let net: Localnet;
  let rpc: RpcClient;
  let payer: KeyPairSigner;
  let c: WsClient;
  beforeAll(async () => {
    ({ net, rpc, payer } = await fundedLocalnet(100_000_000_000));
    c = await openWs(net.wsUrl);
  });
  afterAll(async () => {
    await c?.close();
    await net?.close();
  });

  const transfer = (to: string, amount: bigint, opts: { skipPreflight?: boolean } = {}) =>
    sendTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: to as never, amount })], opts);

  it('answers errors as agave: parse, request, method, params, unknown subscription id', async () => {
    c.send('{"jsonrpc":"2.0","id":1,"method":');
    expect(await c.next()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    c.send({ jsonrpc: '2.0', id: 7 });
    expect(await c.next((m) => m.id === 7)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: 7 });
    const err = async (method: string, params?: unknown[]) => (await c.request(method, params)).error;
    expect(await err('nope')).toEqual({ code: -32601, message: 'Method not found' });
    expect(await err('voteSubscribe')).toEqual({ code: -32601, message: 'Method not found' });
    expect(await err('accountSubscribe', [])).toEqual({ code: -32602, message: '`params` should have at least 1 argument(s)' });
    expect(await err('accountSubscribe', ['not-a-key'])).toEqual({ code: -32602, message: 'Invalid Request: Invalid pubkey provided' });
    expect(await err('accountSubscribe', [payer.address, { encoding: 'hex' }])).toMatchObject({ code: -32602 });
    expect(await err('accountSubscribe', [payer.address, { commitment: 'soon' }])).toMatchObject({ code: -32602 });
    expect(await err('programSubscribe', [SYSTEM, { filters: [{ dataSize: 1 }, { dataSize: 1 }, { dataSize: 1 }, { dataSize: 1 }, { dataSize: 1 }] }]))
      .toEqual({ code: -32602, message: 'Too many filters provided; max 4' });
    expect(await err('signatureSubscribe', ['xyz'])).toEqual({ code: -32602, message: 'Invalid Request: Invalid signature provided' });
    expect(await err('logsSubscribe', [{ mentions: [payer.address, SYSTEM] }])).toEqual({ code: -32602, message: 'Invalid Request: Only 1 address supported' });
    expect(await err('logsSubscribe', [{ mentions: ['bad'] }])).toEqual({ code: -32602, message: 'Invalid Request: Invalid mentions provided' });
    expect(await err('logsSubscribe', ['some'])).toMatchObject({ code: -32602 });
    expect(await err('blockSubscribe', ['all', { commitment: 'processed' }])).toEqual({ code: -32602, message: 'Method does not support commitment below `confirmed`' });
    expect(await err('slotSubscribe', [1])).toMatchObject({ code: -32602 });
    expect(await err('accountUnsubscribe', [123456])).toEqual({ code: -32602, message: 'Invalid subscription id.' });
    expect(await err('slotUnsubscribe', ['x'])).toMatchObject({ code: -32602 });
    expect(net.pubsub.subscriptionCount).toBe(0);
  });

  it('sends nothing back for notifications (no id), such as the clients\' pings; answers batches with an array', async () => {
    c.send({ jsonrpc: '2.0', method: 'ping' });
    c.send({ jsonrpc: '2.0', method: 'slotSubscribe' });
    const r = await c.request('getHealth');
    expect(r.error.code).toBe(-32601);
    expect(c.queue).toEqual([]);
    expect(net.pubsub.subscriptionCount).toBe(0);

    c.send([{ jsonrpc: '2.0', id: 'a', method: 'rootSubscribe' }, { jsonrpc: '2.0', method: 'ping' }, { jsonrpc: '2.0', id: 'b', method: 'rootUnsubscribe', params: [999999] }]);
    const batch = await c.next(Array.isArray);
    expect(batch).toHaveLength(2);
    expect(batch[0]).toMatchObject({ jsonrpc: '2.0', id: 'a' });
    expect(typeof batch[0].result).toBe('number');
    expect(batch[1]).toEqual({ jsonrpc: '2.0', error: { code: -32602, message: 'Invalid subscription id.' }, id: 'b' });
    // Any *Unsubscribe ends any subscription of the connection (one id space, as agave).
    expect(await c.request('slotUnsubscribe', [batch[0].result])).toEqual({ jsonrpc: '2.0', result: true, id: expect.any(Number) });
    expect(net.pubsub.subscriptionCount).toBe(0);
  });

  it('signatureSubscribe: receivedSignature when it executes, {err} when its block is produced, then ended; at once when already final', async () => {
    const to = (await generateKeyPairSigner()).address;
    // The signature is known before sending: sign first, subscribe, then send.
    const { value } = await rpc.call('getLatestBlockhash');
    const signed = await signTx(payer, [getTransferSolInstruction({ source: payer, destination: to, amount: 1_000_000_000n })], value.blockhash);
    const sub = await c.subscribe('signatureSubscribe', [signed.signature, { commitment: 'finalized', enableReceivedNotification: true }]);
    const plain = await c.subscribe('signatureSubscribe', [signed.signature, { commitment: 'processed' }]);
    await rpc.call('sendTransaction', [signed.base64, { encoding: 'base64' }]);
    const received = await c.notification(sub);
    expect(received).toEqual({
      jsonrpc: '2.0', method: 'signatureNotification', params: { result: { context: { slot: net.chain.currentSlot }, value: 'receivedSignature' }, subscription: sub },
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(c.pending(plain)).toEqual([]); // nothing before the block
    const block = net.chain.produceSlot()!;
    for (const s of [sub, plain]) {
      expect((await c.notification(s)).params.result).toEqual({ context: { slot: block.slot }, value: { err: null } });
    }
    expect((await c.request('signatureUnsubscribe', [sub])).error.message).toBe('Invalid subscription id.');

    // Already in a block: the answer first, then the notification.
    c.send({ jsonrpc: '2.0', id: 'final', method: 'signatureSubscribe', params: [signed.signature] });
    const answer = await c.next();
    expect(answer).toEqual({ jsonrpc: '2.0', result: expect.any(Number), id: 'final' });
    expect(await c.next()).toEqual({
      jsonrpc: '2.0', method: 'signatureNotification', params: { result: { context: { slot: block.slot }, value: { err: null } }, subscription: answer.result },
    });

    // A failed transaction lands with its error.
    const poor = await generateKeyPairSigner();
    await rpc.call('requestAirdrop', [poor.address, 10_000_000]);
    net.chain.produceSlot();
    const { value: bh } = await rpc.call('getLatestBlockhash');
    const bad = await signTx(poor, [getTransferSolInstruction({ source: poor, destination: to, amount: 50_000_000n })], bh.blockhash);
    const badSub = await c.subscribe('signatureSubscribe', [bad.signature, { commitment: 'confirmed' }]);
    await rpc.call('sendTransaction', [bad.base64, { encoding: 'base64', skipPreflight: true }]);
    const failed = net.chain.produceSlot()!;
    expect((await c.notification(badSub)).params.result).toEqual({ context: { slot: failed.slot }, value: { err: { InstructionError: [0, { Custom: 1 }] } } });
    expect(net.pubsub.subscriptionCount).toBe(0);
  });

  it('accountSubscribe: the state after the block that wrote it, in the requested encoding; a closed account as agave shows it', async () => {
    const holder = await generateKeyPairSigner();
    const b64 = await c.subscribe('accountSubscribe', [holder.address, { encoding: 'base64', commitment: 'confirmed' }]);
    const dflt = await c.subscribe('accountSubscribe', [holder.address]);
    const parsed = await c.subscribe('accountSubscribe', [holder.address, { encoding: 'jsonParsed' }]);
    const other = await c.subscribe('accountSubscribe', [(await generateKeyPairSigner()).address]);
    await transfer(holder.address, 2_000_000n);
    await transfer(holder.address, 3_000_000n); // two writes in one block: one notification
    await new Promise((r) => setTimeout(r, 100));
    expect(c.pending(b64)).toEqual([]);
    const block = net.chain.produceSlot()!;
    const n = await c.notification(b64);
    expect(n).toEqual({
      jsonrpc: '2.0', method: 'accountNotification',
      params: {
        result: { context: { slot: block.slot }, value: { data: ['', 'base64'], executable: false, lamports: 5_000_000, owner: SYSTEM, rentEpoch: 18446744073709552000, space: 0 } },
        subscription: b64,
      },
    });
    expect((await c.notification(dflt)).params.result.value.data).toBe(''); // binary: legacy base58 string
    expect((await c.notification(parsed)).params.result.value.data).toEqual(['', 'base64']); // not parseable: base64
    net.chain.produceSlot();
    await new Promise((r) => setTimeout(r, 100));
    expect(c.pending(b64)).toEqual([]);
    expect(c.pending(other)).toEqual([]);

    // holder sends everything away: closed.
    const sink = (await generateKeyPairSigner()).address;
    const r = await sendTx(rpc, payer, [getTransferSolInstruction({ source: holder, destination: sink as never, amount: 5_000_000n })]);
    expect(r.reply.error).toBeUndefined();
    const closed = net.chain.produceSlot()!;
    expect((await c.notification(b64)).params.result).toEqual({
      context: { slot: closed.slot }, value: { data: ['', 'base64'], executable: false, lamports: 0, owner: SYSTEM, rentEpoch: 0, space: 0 },
    });
    for (const s of [dflt, parsed]) expect((await c.notification(s)).params.result.value.lamports).toBe(0);
    for (const s of [b64, dflt, parsed, other]) expect((await c.request('accountUnsubscribe', [s])).result).toBe(true);
    expect(net.pubsub.subscriptionCount).toBe(0);
  });

  it('programSubscribe with dataSize/memcmp filters and jsonParsed; logsSubscribe all and mentions', async () => {
    const owner = await generateKeyPairSigner();
    const tokenAccounts = await c.subscribe('programSubscribe', [spl.TOKEN_PROGRAM_ADDRESS, { encoding: 'jsonParsed', filters: [{ dataSize: 165 }] }]);
    const mints = await c.subscribe('programSubscribe', [spl.TOKEN_PROGRAM_ADDRESS, { encoding: 'base64', filters: [{ dataSize: 82 }] }]);
    const byOwner = await c.subscribe('programSubscribe', [spl.TOKEN_PROGRAM_ADDRESS, { filters: [{ memcmp: { offset: 32, bytes: owner.address } }], encoding: 'base64' }]);
    const all = await c.subscribe('logsSubscribe', ['all']);
    const mentions = await c.subscribe('logsSubscribe', [{ mentions: [owner.address] }, { commitment: 'finalized' }]);
    const nobody = await c.subscribe('logsSubscribe', [{ mentions: [(await generateKeyPairSigner()).address] }]);

    const { mint, atas } = await setupSplMint(rpc, payer, 6, [payer.address, owner.address], 1_000n);
    const block = net.chain.produceSlot()!;
    const [sig] = block.transactions.map((t) => t.signature);

    const accNotes = [await c.notification(tokenAccounts), await c.notification(tokenAccounts)];
    expect(accNotes.map((m) => m.params.result.value.pubkey).sort()).toEqual([...atas].sort());
    const payerAta = accNotes.find((m) => m.params.result.value.pubkey === atas[0])!.params.result;
    expect(payerAta.context).toEqual({ slot: block.slot });
    expect(payerAta.value.account.data).toMatchObject({
      program: 'spl-token', space: 165,
      parsed: { type: 'account', info: { mint, owner: payer.address, tokenAmount: { amount: '1000', decimals: 6 } } },
    });
    expect(payerAta.value.account.owner).toBe(spl.TOKEN_PROGRAM_ADDRESS);
    const mintNote = await c.notification(mints);
    expect(mintNote.params.result.value.pubkey).toBe(mint);
    expect(mintNote.params.result.value.account.space).toBe(82);
    expect((await c.notification(byOwner)).params.result.value.pubkey).toBe(atas[1]);

    const logsAll = await c.notification(all);
    expect(logsAll).toMatchObject({ method: 'logsNotification', params: { result: { context: { slot: block.slot }, value: { signature: sig, err: null } }, subscription: all } });
    expect(logsAll.params.result.value.logs).toEqual(block.transactions[0].meta.logMessages);
    expect((await c.notification(mentions)).params.result.value.signature).toBe(sig);
    await new Promise((r) => setTimeout(r, 100));
    for (const s of [tokenAccounts, mints, byOwner, nobody]) expect(c.pending(s)).toEqual([]);
    for (const s of [tokenAccounts, mints, byOwner, all, mentions, nobody]) expect((await c.request('programUnsubscribe', [s])).result).toBe(true);
  });

  it('slotSubscribe, rootSubscribe and blockSubscribe per produced block', async () => {
    const slot = await c.subscribe('slotSubscribe');
    const root = await c.subscribe('rootSubscribe', []);
    const blockAll = await c.subscribe('blockSubscribe', ['all', { transactionDetails: 'signatures' }]);
    const blockFull = await c.subscribe('blockSubscribe', [{ mentionsAccountOrProgram: SYSTEM }, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    const blockNobody = await c.subscribe('blockSubscribe', [{ mentionsAccountOrProgram: (await generateKeyPairSigner()).address }]);
    const sent = await transfer((await generateKeyPairSigner()).address, 1_000_000n);
    const block = net.chain.produceSlot()!;
    expect((await c.notification(slot)).params).toEqual({ result: { parent: block.parentSlot, root: block.slot, slot: block.slot }, subscription: slot });
    expect((await c.notification(root)).params).toEqual({ result: block.slot, subscription: root });
    const all = (await c.notification(blockAll)).params.result;
    expect(all.context).toEqual({ slot: block.slot });
    expect(all.value).toMatchObject({ slot: block.slot, err: null, block: { blockhash: block.blockhash, parentSlot: block.parentSlot, signatures: [sent.signature] } });
    const full = (await c.notification(blockFull)).params.result.value.block;
    expect(full.transactions[0].transaction.signatures).toEqual([sent.signature]);
    expect(full.transactions[0].meta.err).toBeNull();
    await new Promise((r) => setTimeout(r, 100));
    expect(c.pending(blockNobody)).toEqual([]);
    for (const s of [slot, root, blockAll, blockFull, blockNobody]) await c.request('blockUnsubscribe', [s]);
    expect(net.pubsub.subscriptionCount).toBe(0);
  });

  it('ends a connection\'s subscriptions with it, whatever their number', async () => {
    const other = await openWs(net.pubsubUrl!);
    const before = net.pubsub.subscriptionCount;
    for (let i = 0; i < 300; i++) await other.subscribe(i % 2 ? 'slotSubscribe' : 'accountSubscribe', i % 2 ? [] : [payer.address]);
    await other.subscribe('signatureSubscribe', ['1111111111111111111111111111111111111111111111111111111111111111']);
    expect(net.pubsub.subscriptionCount).toBe(before + 301);
    await other.close();
    await until(() => net.pubsub.subscriptionCount === before && net.pubsub.connectionCount === 1);
    // Port + 1 answers plain HTTP with 426.
    expect((await fetch(net.pubsubUrl!.replace('ws:', 'http:'))).status).toBe(426);
  });
});

describe('limits', () => {
  it('refuses subscriptions past the node limit with agave\'s error', async () => {
    const net = await createLocalnet({ slotMs: 0, pubsub: { maxSubscriptions: 2 } });
    try {
      const c = await openWs(net.wsUrl);
      await c.subscribe('slotSubscribe');
      const two = await c.subscribe('rootSubscribe');
      expect((await c.request('slotSubscribe')).error).toEqual({ code: -32603, message: 'Internal Error: Subscription refused. Node subscription limit reached' });
      await c.request('rootUnsubscribe', [two]);
      await c.subscribe('slotSubscribe');
      await c.close();
    } finally {
      await net.close();
    }
  });

  it('cuts off a client that stops reading (1008) and drops its subscriptions', async () => {
    const net = await createLocalnet({ slotMs: 0, pubsub: { maxBufferedBytes: 64 * 1024 } });
    try {
      const c = await openWs(net.wsUrl);
      for (let i = 0; i < 200; i++) await c.subscribe('slotSubscribe');
      const closed = once(c.ws, 'close');
      (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
      for (let i = 0; i < 5000 && net.pubsub.subscriptionCount > 0; i++) net.chain.produceSlot();
      expect(net.pubsub.subscriptionCount).toBe(0);
      (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
      const [code] = (await closed) as [number];
      expect([1008, 1006]).toContain(code);
      await until(() => net.pubsub.connectionCount === 0);
    } finally {
      await net.close();
    }
  });

  it('with a given port, also listens on port + 1 or fails like agave when it is busy', async () => {
    const a = await createLocalnet({ slotMs: 0 });
    try {
      // HTTP on a.port - 1 leaves PubSub on a.port: taken.
      await expect(createLocalnet({ slotMs: 0, port: a.port - 1 })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      const b = await createLocalnet({ slotMs: 0, pubsubPortPlusOne: false });
      expect(b.pubsubUrl).toBeNull();
      await b.close();
    } finally {
      await a.close();
    }
  });
});
