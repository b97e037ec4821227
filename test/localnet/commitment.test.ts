/**
 * The localnet's commitment levels: a produced block is processed, confirmed `confirmedDepth` slots later and
 * finalized `finalizedDepth` slots after that (skipped slots count), never rolled back. On a manual chain with depths
 * 1 and 3: what each HTTP method answers at each level while a transfer's block moves from processed to finalized
 * (statuses and their `confirmations`, slots, block heights, blockhashes, blocks, transactions, signatures, balances at
 * the end of each level's block, `minContextSlot`), and when each PubSub subscription is notified (signature,
 * account with the state of its block, root, slot). Plus the defaults (1 and 4 with the slot timer, 0 and 0 for a
 * manual chain) and `settle()`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { CLUSTER_FINALIZED_DEPTH } from '../../src/sources/localnet/commitment.js';
import { LocalChain, createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { fundedLocalnet, num, openWs, sendTx, type RpcClient, type WsClient } from './helpers.js';

let net: Localnet;
let rpc: RpcClient;
let payer: KeyPairSigner;

beforeAll(async () => {
  ({ net, rpc, payer } = await fundedLocalnet(10_000_000_000, { confirmedDepth: 1, finalizedDepth: 3 }));
  net.chain.skipSlots(4); // the airdrop's block finalized
});
afterAll(async () => {
  await net?.close();
});

const transfer = async (to: string, amount: bigint) => {
  const r = await sendTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: to as never, amount })]);
  if (r.reply.error) throw new Error(JSON.stringify(r.reply.error));
  return r.signature;
};
const status = async (sig: string) => (await rpc.call('getSignatureStatuses', [[sig]])).value[0];
const balance = async (a: string, commitment?: string) => num((await rpc.call('getBalance', [a, commitment ? { commitment } : {}])).value);
const slotAt = async (commitment: string) => Number(await rpc.call('getSlot', [{ commitment }]));

describe('HTTP methods at processed, confirmed and finalized', () => {
  it('a transfer moves from processed to confirmed one slot later and to finalized three slots after that', async () => {
    const to = (await generateKeyPairSigner()).address;
    const sig = await transfer(to, 1_000_000n);
    // Executed into the open slot: only processed reads see it.
    expect(await balance(to, 'processed')).toBe(1_000_000n);
    expect(await balance(to, 'confirmed')).toBe(0n);
    expect(await status(sig)).toBeNull();

    const block = net.chain.produceSlot()!;
    const s = block.slot;
    expect(await status(sig)).toMatchObject({ slot: s, confirmationStatus: 'processed', confirmations: 0, err: null });
    expect(await slotAt('processed')).toBe(s);
    expect(await slotAt('confirmed')).toBeLessThan(s);
    expect(await slotAt('finalized')).toBeLessThanOrEqual(await slotAt('confirmed'));
    expect(await rpc.call('getTransaction', [sig, { commitment: 'confirmed' }])).toBeNull();
    expect((await rpc.reply('getTransaction', [sig, { commitment: 'processed' }])).error).toEqual({
      code: -32602, message: 'Method does not support commitment below `confirmed`',
    });
    expect((await rpc.reply('getBlock', [s, { commitment: 'confirmed' }])).error).toEqual({ code: -32004, message: `Block not available for slot ${s}` });
    expect(await rpc.call('getSignaturesForAddress', [to, { commitment: 'confirmed' }])).toEqual([]);
    expect(await rpc.call('getBlocks', [s - 1, s, { commitment: 'confirmed' }])).not.toContain(s);

    net.chain.produceSlot(); // an empty block at s + 1 confirms s
    expect(await status(sig)).toMatchObject({ confirmationStatus: 'confirmed', confirmations: 1 });
    expect(await slotAt('confirmed')).toBe(s);
    expect(Number(await rpc.call('getBlockHeight', [{ commitment: 'confirmed' }]))).toBe(block.blockHeight);
    expect((await rpc.call('getLatestBlockhash', [{ commitment: 'confirmed' }])).value.blockhash).toBe(block.blockhash);
    expect((await rpc.call('getLatestBlockhash', [])).value.blockhash).not.toBe(block.blockhash);
    expect((await rpc.call('getTransaction', [sig, { commitment: 'confirmed' }])).slot).toBe(s);
    expect(await rpc.call('getTransaction', [sig])).toBeNull(); // default: finalized
    expect((await rpc.call('getBlock', [s, { commitment: 'confirmed', transactionDetails: 'signatures' }])).signatures).toEqual([sig]);
    expect((await rpc.reply('getBlock', [s])).error?.code).toBe(-32004);
    expect(await rpc.call('getSignaturesForAddress', [to, { commitment: 'confirmed' }])).toMatchObject([{ signature: sig, slot: s, confirmationStatus: 'confirmed' }]);
    expect(await rpc.call('getSignaturesForAddress', [to])).toEqual([]);
    expect(await balance(to, 'confirmed')).toBe(1_000_000n);
    expect(await balance(to)).toBe(0n);
    // minContextSlot is checked against the asked level's slot.
    expect((await rpc.reply('getBalance', [to, { minContextSlot: s }])).error).toMatchObject({
      code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: await slotAt('finalized') },
    });
    expect((await rpc.call('getBalance', [to, { commitment: 'confirmed', minContextSlot: s }])).context.slot).toBe(s);

    // Skipped slots move time on too: finalized once 1 + 3 slots have passed since s.
    net.chain.skipSlots(2);
    expect(await status(sig)).toMatchObject({ confirmationStatus: 'confirmed', confirmations: 1 });
    net.chain.skipSlots(1);
    expect(await status(sig)).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });
    expect(await slotAt('finalized')).toBe(s);
    expect((await rpc.call('getTransaction', [sig])).slot).toBe(s);
    expect(await rpc.call('getSignaturesForAddress', [to])).toMatchObject([{ signature: sig, confirmationStatus: 'finalized' }]);
    expect(await balance(to)).toBe(1_000_000n);
    expect(await rpc.call('getBlocks', [s, s + 10])).toEqual([s]);
  });

  it('account reads at a level give the state at the end of that level\'s block, for single reads and scans alike', async () => {
    const to = (await generateKeyPairSigner()).address;
    await transfer(to, 1_000_000n);
    net.chain.settle();
    await transfer(to, 7_000n);
    net.chain.produceSlot();
    await transfer(to, 11_000n); // still in the open slot
    expect(await balance(to, 'processed')).toBe(1_018_000n);
    expect(await balance(to, 'confirmed')).toBe(1_000_000n); // the 7,000 block is not confirmed yet
    expect(await balance(to, 'finalized')).toBe(1_000_000n);
    net.chain.produceSlot();
    expect(await balance(to, 'confirmed')).toBe(1_007_000n);
    const multi = await rpc.call('getMultipleAccounts', [[to], { commitment: 'confirmed', encoding: 'base64' }]);
    expect(num(multi.value[0].lamports)).toBe(1_007_000n);
    const info = await rpc.call('getAccountInfo', [to, { encoding: 'base64' }]);
    expect(num(info.value.lamports)).toBe(1_000_000n);
    expect(info.context.slot).toBe(net.chain.slotAt('finalized'));
    // A new account is absent from reads at a level its creation has not reached.
    const fresh = (await generateKeyPairSigner()).address;
    await transfer(fresh, 1_000_000n);
    net.chain.produceSlot();
    expect((await rpc.call('getAccountInfo', [fresh, { commitment: 'confirmed' }])).value).toBeNull();
    const scan = async (commitment: string) => (await rpc.call('getProgramAccounts', ['11111111111111111111111111111111', { commitment, encoding: 'base64', dataSlice: { offset: 0, length: 0 } }]))
      .map((x: { pubkey: string }) => x.pubkey);
    expect(await scan('processed')).toContain(fresh);
    expect(await scan('finalized')).not.toContain(fresh);
    net.chain.settle();
    expect(await scan('finalized')).toContain(fresh);
    expect(await balance(to)).toBe(1_018_000n);
  });
});

describe('PubSub notifications at the subscription\'s commitment', () => {
  let c: WsClient;
  beforeAll(async () => {
    c = await openWs(net.wsUrl);
  });
  afterAll(async () => {
    await c?.close();
  });

  it('signature, account (the state of the notified block), slot and root notifications come when the block reaches each level', async () => {
    const to = (await generateKeyPairSigner()).address;
    const account = Object.fromEntries(await Promise.all((['processed', 'confirmed', 'finalized'] as const).map(async (commitment) =>
      [commitment, await c.subscribe('accountSubscribe', [to, { commitment, encoding: 'base64' }])] as const)));
    const root = await c.subscribe('rootSubscribe');
    const slot = await c.subscribe('slotSubscribe');
    const sig = await transfer(to, 1_000_000n);
    const signature = Object.fromEntries(await Promise.all((['processed', 'confirmed', 'finalized'] as const).map(async (commitment) =>
      [commitment, await c.subscribe('signatureSubscribe', [sig, { commitment }])] as const)));
    const s = net.chain.produceSlot()!.slot;
    await transfer(to, 2_000n); // in s + 1: later notifications of s still carry the state at the end of s

    expect((await c.notification(signature.processed)).params.result).toEqual({ context: { slot: s }, value: { err: null } });
    expect((await c.notification(account.processed)).params.result).toMatchObject({ context: { slot: s }, value: { lamports: 1_000_000 } });
    expect((await c.notification(slot)).params.result).toEqual({ parent: net.chain.getBlock(s)!.parentSlot, root: net.chain.slotAt('finalized'), slot: s });
    expect(net.chain.slotAt('finalized')).toBeLessThan(s);
    expect(c.pending(signature.confirmed)).toEqual([]);
    expect(c.pending(account.confirmed)).toEqual([]);

    net.chain.produceSlot(); // s + 1 (with the 2,000 transfer) confirms s
    expect((await c.notification(signature.confirmed)).params.result).toEqual({ context: { slot: s }, value: { err: null } });
    expect((await c.notification(account.confirmed)).params.result).toMatchObject({ context: { slot: s }, value: { lamports: 1_000_000 } });
    expect((await c.notification(account.processed)).params.result).toMatchObject({ context: { slot: s + 1 }, value: { lamports: 1_002_000 } });
    // A subscription made once the transaction is confirmed is answered at once at confirmed, not at finalized.
    const lateConfirmed = await c.subscribe('signatureSubscribe', [sig, { commitment: 'confirmed' }]);
    expect((await c.notification(lateConfirmed)).params.result.context.slot).toBe(s);
    const lateFinalized = await c.subscribe('signatureSubscribe', [sig]);
    await new Promise((r) => setTimeout(r, 100));
    expect(c.pending(signature.finalized)).toEqual([]);
    expect(c.pending(lateFinalized)).toEqual([]);

    net.chain.skipSlots(3);
    expect((await c.notification(signature.finalized)).params.result).toEqual({ context: { slot: s }, value: { err: null } });
    expect((await c.notification(lateFinalized)).params.result).toEqual({ context: { slot: s }, value: { err: null } });
    expect((await c.notification(account.finalized)).params.result).toMatchObject({ context: { slot: s }, value: { lamports: 1_000_000 } });
    let rooted: number;
    do rooted = (await c.notification(root)).params.result; while (rooted < s); // blocks before s finalized in the meantime
    expect(rooted).toBe(s);
    net.chain.skipSlots(1);
    expect((await c.notification(account.finalized)).params.result).toMatchObject({ context: { slot: s + 1 }, value: { lamports: 1_002_000 } });
    expect((await c.notification(root)).params.result).toBe(s + 1);
    for (const [m, id] of [...Object.values(account).map((id) => ['accountUnsubscribe', id] as const), ['rootUnsubscribe', root] as const, ['slotUnsubscribe', slot] as const]) {
      expect((await c.request(m, [id])).result).toBe(true);
    }
  });
});

describe('defaults', () => {
  it('1 and 4 slots with the slot timer, 0 and 0 for a manual chain, any depth when asked (32 as a real cluster)', async () => {
    const timed = await LocalChain.create({ slotMs: 10_000 });
    const manual = await LocalChain.create({ slotMs: 0 });
    const cluster = await LocalChain.create({ slotMs: 0, finalizedDepth: CLUSTER_FINALIZED_DEPTH, confirmedDepth: 1 });
    try {
      expect(timed.finality).toEqual({ confirmed: 1, finalized: 4 });
      expect(manual.finality).toEqual({ confirmed: 0, finalized: 0 });
      const b = manual.produceSlot()!;
      expect([manual.slotAt('confirmed'), manual.slotAt('finalized')]).toEqual([b.slot, b.slot]);
      cluster.produceSlot();
      cluster.skipSlots(32);
      expect(cluster.levelOf(cluster.slot)).toBe('confirmed');
      cluster.skipSlots(1);
      expect(cluster.levelOf(cluster.slot)).toBe('finalized');
      await expect(LocalChain.create({ slotMs: 0, finalizedDepth: -1 })).rejects.toThrow(/finalizedDepth must be a non-negative integer/);
    } finally {
      for (const ch of [timed, manual, cluster]) ch.close();
    }
  });

  it('createLocalnet passes the depths on; settle() finalizes every produced block by skipping slots', async () => {
    const n = await createLocalnet({ slotMs: 0, confirmedDepth: 2, finalizedDepth: 5 });
    try {
      const last = n.chain.produceSlot()!.slot;
      expect(n.chain.levelOf(last)).toBe('processed');
      n.chain.settle();
      expect(n.chain.slot).toBe(last);
      expect(n.chain.slotAt('finalized')).toBe(last);
      expect(n.chain.currentSlot).toBe(last + 8);
    } finally {
      await n.close();
    }
  });
});
