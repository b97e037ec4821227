/**
 * getPriorityFeeEstimate from the compute-unit prices of indexed blocks: transactions with known
 * SetComputeUnitPrice values run on the localnet (a real SVM), are ingested, and the estimate's levels are the
 * nearest-rank percentiles of those prices — global and per written account (empty slots as zero when asked), the
 * larger of the two — computed here from what was sent; failed transactions do not count; by transaction the
 * writable keys are taken from the wire transaction; options and errors as the reference's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendTransactionMessageInstructions, createTransactionMessage, generateKeyPairSigner, getBase64EncodedWireTransaction, pipe,
  setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash, signTransactionMessageWithSigners, type Blockhash, type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ingestUntil, localnetSender, type LocalnetSender } from '../localnet/helpers.js';

const SOL = 1_000_000_000n;
let net: Localnet;
let sender: LocalnetSender;
let ta: TestApp;
let payer: KeyPairSigner, other: KeyPairSigner, X: KeyPairSigner;
/** What the chain holds: every successful non-vote transaction's price, its slot and whether it writes X. */
const landed: { price: number; slot: number; writesX: boolean; writesPayer: boolean }[] = [];

const rank = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : 0;
};

async function call(params: unknown) {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method: 'getPriorityFeeEstimate', params } });
  return r.json() as { result?: any; error?: { code: number; message: string } };
}

beforeAll(async () => {
  net = await createLocalnet({ port: 0, slotMs: 0 });
  sender = localnetSender(net);
  ta = await createTestApp();
  [payer, other, X] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  for (const who of [payer, other]) {
    const a = await sender.airdrop(who.address, 50n * SOL);
    landed.push({ price: 0, slot: a.slot, writesX: false, writesPayer: who === payer });
  }
  const prices = [1_000, 5_000, 20_000, 100_000, 250_000, 3_000_000];
  for (const [i, price] of prices.entries()) {
    const toX = i % 2 === 0;
    const from = toX ? payer : other;
    const r = await sender.send(from, [
      getSetComputeUnitPriceInstruction({ microLamports: BigInt(price) }),
      getTransferSolInstruction({ source: from, destination: toX ? X.address : payer.address, amount: SOL }),
    ]);
    landed.push({ price, slot: r.slot, writesX: toX, writesPayer: true });
  }
  // Fails on chain: its price must not count.
  await sender.send(other, [getSetComputeUnitPriceInstruction({ microLamports: 999_999_999n }), getTransferSolInstruction({ source: other, destination: X.address, amount: 10_000n * SOL })]);
  const last = net.chain.produceSlot()!.slot;
  await ingestUntil(ta.t.db, net.url, last);
});

afterAll(async () => {
  await ta?.close();
  await net?.close();
});

describe('getPriorityFeeEstimate', () => {
  it('global levels are the percentiles of the indexed prices; failed transactions do not count', async () => {
    const r = await call([{ options: { includeAllPriorityFeeLevels: true } }]);
    expect(r.error).toBeUndefined();
    const all = landed.map((l) => l.price);
    expect(r.result.priorityFeeLevels).toEqual({
      min: rank(all, 0), low: rank(all, 25), medium: rank(all, 50), high: rank(all, 75), veryHigh: rank(all, 95), unsafeMax: rank(all, 100),
    });
    expect(r.result.priorityFeeLevels.unsafeMax).toBe(3_000_000);
  });

  it('per account: the larger of the global and the account\'s percentile, its empty slots as zero', async () => {
    const slots = [...new Set(landed.map((l) => l.slot))];
    const xList = [...landed.filter((l) => l.writesX).map((l) => l.price), ...slots.filter((s) => !landed.some((l) => l.slot === s && l.writesX)).map(() => 0)];
    const all = landed.map((l) => l.price);
    const r = await call([{ accountKeys: [X.address], options: { includeAllPriorityFeeLevels: true } }]);
    for (const [name, p] of Object.entries({ min: 0, low: 25, medium: 50, high: 75, veryHigh: 95, unsafeMax: 100 }))
      expect(r.result.priorityFeeLevels[name], name).toBe(Math.max(rank(all, p), rank(xList, p)));
    // Without empty slots as zero, X's own prices only.
    const own = landed.filter((l) => l.writesX).map((l) => l.price);
    const r2 = await call([{ accountKeys: [X.address], options: { priorityLevel: 'Low', evaluateEmptySlotAsZero: false } }]);
    expect(r2.result).toEqual({ priorityFeeEstimate: Math.max(rank(all, 25), rank(own, 25)) });
  });

  it('by transaction: the writable keys of the wire transaction', async () => {
    const msg = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: '11111111111111111111111111111111' as Blockhash, lastValidBlockHeight: 0n }, m),
      (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: payer, destination: X.address, amount: 1n })], m),
    );
    const wire = getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(msg));
    const byTx = await call([{ transaction: wire, options: { transactionEncoding: 'Base64', includeAllPriorityFeeLevels: true } }]);
    const byKeys = await call([{ accountKeys: [payer.address, X.address], options: { includeAllPriorityFeeLevels: true } }]);
    expect(byTx.error).toBeUndefined();
    expect(byTx.result).toEqual(byKeys.result);
  });

  it('recommended, default and the priority levels pick one value', async () => {
    const levels = (await call([{ options: { includeAllPriorityFeeLevels: true } }])).result.priorityFeeLevels;
    expect((await call([{ options: { recommended: true } }])).result).toEqual({ priorityFeeEstimate: Math.ceil(Math.max(levels.medium, 10_000)) });
    expect((await call([{ options: { priorityLevel: 'VeryHigh' } }])).result).toEqual({ priorityFeeEstimate: levels.veryHigh });
    expect((await call([{ options: { priorityLevel: 'Default' } }])).result).toEqual({ priorityFeeEstimate: levels.medium });
  });

  it('bad requests are -32602 with the reference\'s words', async () => {
    expect((await call([{ options: { lookbackSlots: 151 } }])).error).toEqual({ code: -32602, message: 'Invalid Request: lookback_slots must be between 1 and 150' });
    for (const p of [[{ colour: 1 }], [{ options: { nope: true } }], [{ accountKeys: ['x'] }], [{ transaction: 'AAAA', accountKeys: [X.address] }],
      [{ options: { priorityLevel: 'Extreme' } }], [{ transaction: '!!!', options: { transactionEncoding: 'base64' } }], { accountKeys: [] }]) {
      const r = await call(p);
      expect(r.error?.code, JSON.stringify(p)).toBe(-32602);
    }
  });
});
