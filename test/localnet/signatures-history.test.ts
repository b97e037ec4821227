/**
 * getSignaturesForAddress as the real RPC answers it (newest first; `before`/`until` as ledger positions of any
 * transaction; an unknown `before` gives nothing, an unknown `until` no stop; `limit` 1..1000; `confirmationStatus`,
 * `err`, `memo`, `blockTime`), checked against the ledger read back block by block through getBlocks/getBlock, and
 * the history kept for the whole run: nothing is dropped, also past 50,000 blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, getBase58Decoder, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { fundedLocalnet, rpcClient, sendTx, type RpcClient } from './helpers.js';

const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address;
const memoIx = (text: string): Instruction => ({ programAddress: MEMO_PROGRAM, data: new TextEncoder().encode(text) });

let net: Localnet;
let rpc: RpcClient;
let payer: KeyPairSigner;
let a: KeyPairSigner;
let b: KeyPairSigner;
const sig: Record<string, string> = {};

async function send(from: KeyPairSigner, ixs: Instruction[], skipPreflight = false): Promise<string> {
  const r = await sendTx(rpc, from, ixs, { skipPreflight });
  if (r.reply.error) throw new Error(JSON.stringify(r.reply.error));
  return r.signature;
}

beforeAll(async () => {
  // Three blocks in memory: most of this history is read back from the ledger files.
  ({ net, rpc, payer } = await fundedLocalnet(10_000_000_000, { hotBlocks: 3 }));
  [a, b] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  sig.toA = await send(payer, [getTransferSolInstruction({ source: payer, destination: a.address, amount: 1_000_000_000n })]);
  net.chain.produceSlot();
  sig.toB = await send(payer, [getTransferSolInstruction({ source: payer, destination: b.address, amount: 1_000_000_000n })]);
  net.chain.produceSlot();
  // Two in one block, the second with a memo; then one of a's own that fails (more than its balance).
  sig.first = await send(payer, [getTransferSolInstruction({ source: payer, destination: a.address, amount: 1n })]);
  sig.memo = await send(payer, [memoIx('hello'), getTransferSolInstruction({ source: payer, destination: a.address, amount: 2n })]);
  net.chain.produceSlot();
  sig.failed = await send(a, [getTransferSolInstruction({ source: a, destination: b.address, amount: 5_000_000_000n })], true);
  net.chain.produceSlot();
  for (let i = 0; i < 6; i++) net.chain.produceSlot();
});
afterAll(async () => net?.close());

/** The whole ledger in order, read block by block: signature, slot, blockTime and the keys each transaction names. */
async function ledger() {
  const out: { signature: string; slot: number; blockTime: number; keys: string[]; err: unknown }[] = [];
  for (const slot of await rpc.call('getBlocks', [0])) {
    const block = await rpc.call('getBlock', [slot, { transactionDetails: 'accounts', maxSupportedTransactionVersion: 0, rewards: false }]);
    for (const t of block.transactions) {
      out.push({ signature: t.transaction.signatures[0], slot, blockTime: block.blockTime, keys: t.transaction.accountKeys.map((k: any) => k.pubkey), err: t.meta.err });
    }
  }
  return out;
}

/** What the RPC must list for `address`: newest first, between the `before` and `until` positions. */
function expected(l: Awaited<ReturnType<typeof ledger>>, address: string, o: { before?: string; until?: string; limit?: number } = {}) {
  const at = (s?: string) => l.findIndex((t) => t.signature === s);
  if (o.before !== undefined && at(o.before) < 0) return [];
  const hi = o.before === undefined ? l.length : at(o.before);
  const lo = o.until === undefined ? -1 : at(o.until);
  return l.slice(lo + 1, hi).filter((t) => t.keys.includes(address)).reverse().slice(0, o.limit ?? 1000).map((t) => t.signature);
}

describe('getSignaturesForAddress', () => {
  it('lists newest first with slot, blockTime, err, memo and confirmationStatus', async () => {
    const l = await ledger();
    const got = await rpc.call('getSignaturesForAddress', [a.address]);
    expect(got.map((x: any) => x.signature)).toEqual(expected(l, a.address));
    expect(got.map((x: any) => x.signature)).toEqual([sig.failed, sig.memo, sig.first, sig.toA]);
    for (const x of got) {
      const t = l.find((e) => e.signature === x.signature)!;
      expect(x).toEqual({
        signature: t.signature, slot: t.slot, blockTime: t.blockTime, err: t.err, confirmationStatus: 'finalized',
        memo: t.signature === sig.memo ? '[5] hello' : null,
      });
    }
    expect(got[0].err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await rpc.call('getSignaturesForAddress', [(await generateKeyPairSigner()).address])).toEqual([]);
  });

  it('before/until are ledger positions: own, foreign and unknown signatures, and paging', async () => {
    const l = await ledger();
    const unknown = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(64)));
    const cases = [
      { before: sig.memo }, { before: sig.toB }, { until: sig.toB }, { until: sig.first }, { before: sig.failed, until: sig.toA },
      { before: unknown }, { until: unknown }, { before: sig.toB, until: sig.toB }, { before: sig.toA }, { limit: 1 }, { before: sig.failed, limit: 2 },
    ];
    for (const c of cases) {
      const got = (await rpc.call('getSignaturesForAddress', [a.address, c])).map((x: any) => x.signature);
      expect(got, JSON.stringify(c)).toEqual(expected(l, a.address, c));
    }
    expect(await rpc.call('getSignaturesForAddress', [a.address, { before: unknown }])).toEqual([]);
    expect(await rpc.call('getSignaturesForAddress', [a.address, { before: sig.toB }])).toHaveLength(1); // older than b's: toA only
    // Paging with `before` = the last of the previous page walks the whole list.
    const pages: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = (await rpc.call('getSignaturesForAddress', [payer.address, { limit: 2, before }])).map((x: any) => x.signature);
      if (page.length === 0) break;
      pages.push(...page);
      before = page[page.length - 1];
    }
    expect(pages).toEqual(expected(l, payer.address));
  });

  it('refuses a limit outside 1..1000, a commitment below confirmed and bad keys with -32602', async () => {
    for (const limit of [0, 1001]) {
      expect((await rpc.reply('getSignaturesForAddress', [a.address, { limit }])).error).toEqual({ code: -32602, message: 'Invalid limit; max 1000' });
    }
    expect((await rpc.call('getSignaturesForAddress', [payer.address, { limit: 1000, commitment: 'confirmed' }])).length).toBeGreaterThan(0);
    expect((await rpc.reply('getSignaturesForAddress', [a.address, { commitment: 'processed' }])).error)
      .toEqual({ code: -32602, message: 'Method does not support commitment below `confirmed`' });
    expect((await rpc.reply('getSignaturesForAddress', ['nope!'])).error).toEqual({ code: -32602, message: 'Invalid param: Invalid' });
    expect((await rpc.reply('getSignaturesForAddress', [a.address, { before: 'abc' }])).error?.code).toBe(-32602);
    const slot = await rpc.call('getSlot');
    expect((await rpc.reply('getSignaturesForAddress', [a.address, { minContextSlot: slot + 5 }])).error).toMatchObject({ code: -32016 });
  });

  it('serves the oldest history from the ledger files: getBlock, getTransaction, first available block', async () => {
    const t = await rpc.call('getTransaction', [sig.toA, { maxSupportedTransactionVersion: 0 }]);
    expect(t.transaction.signatures[0]).toBe(sig.toA);
    expect(await rpc.call('getBlock', [t.slot, { transactionDetails: 'signatures' }])).toMatchObject({ signatures: [sig.toA] });
    expect(await rpc.call('getFirstAvailableBlock')).toBe(0);
  });
});

describe('a chain with the default options', () => {
  it('keeps every block past 50,000 (no ledger limit unless maxBlocks is set)', async () => {
    const chainNet = await createLocalnet({ slotMs: 0 });
    try {
      const r = rpcClient(chainNet.url);
      const to = (await generateKeyPairSigner()).address;
      const airdrop = await r.call('requestAirdrop', [to, 1_000_000]);
      const first = chainNet.chain.produceSlot()!.slot;
      for (let i = 0; i < 50_001; i++) chainNet.chain.produceSlot();
      expect(await r.call('getFirstAvailableBlock')).toBe(0);
      expect((await r.call('getBlocks', [0, 10])).slice(0, 2)).toEqual([0, 1]);
      expect((await r.call('getSignaturesForAddress', [to])).map((x: any) => x.signature)).toEqual([airdrop]);
      expect((await r.call('getTransaction', [airdrop])).slot).toBe(first);
      expect(await r.call('getBlock', [first, { transactionDetails: 'signatures' }])).toMatchObject({ signatures: [airdrop] });
    } finally {
      await chainNet.close();
    }
  }, 180_000);
});
