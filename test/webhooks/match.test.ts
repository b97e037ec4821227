/**
 * The pure parts of delivery on real recorded transactions (the Light Protocol getTransaction responses recorded by
 * the Photon reference): the raw payload equals what the RPC recorded (decoded independently with @solana/kit), and
 * the matcher's filters (address incl. token-account owners, txnStatus, transactionTypes, failed transactions, a
 * classifier failure).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase58 } from '../../src/core/encoding.js';
import { normalizeRpcTransaction } from '../../src/sources/normalize-rpc.js';
import { classifyTransaction } from '../../src/enhanced/index.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { rawTransaction } from '../../src/webhooks/raw-payload.js';
import type { Subscription } from '../../src/core/webhook-types.js';
import { matchTransactions } from '../../src/webhooks/match.js';

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'photon-transactions');
const recorded = readdirSync(ROOT, { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile())
  .map((d) => JSON.parse(readFileSync(join(d.parentPath, d.name), 'utf8')));

describe('raw payload', () => {
  it('equals the recorded RPC transaction, field by field', () => {
    expect(recorded.length).toBeGreaterThan(200);
    for (const raw of recorded) {
      const tx = normalizeRpcTransaction(raw);
      const p = rawTransaction(tx);
      const wire = getTransactionDecoder().decode(base64ToBytes(raw.transaction[0]));
      const msg = getCompiledTransactionMessageDecoder().decode(wire.messageBytes) as unknown as { staticAccounts: string[]; lifetimeToken: string; header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number }; instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[] };
      const sigs = Object.values(wire.signatures).map((s) => bytesToBase58(s as Uint8Array));
      expect(p.slot).toBe(raw.slot);
      expect(p.blockTime).toBe(raw.blockTime);
      expect(p.transaction.signatures).toEqual(sigs);
      expect(p.transaction.message.accountKeys).toEqual(msg.staticAccounts);
      expect(p.transaction.message.recentBlockhash).toBe(msg.lifetimeToken);
      expect(p.transaction.message.header).toEqual({
        numRequiredSignatures: msg.header.numSignerAccounts,
        numReadonlySignedAccounts: msg.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: msg.header.numReadonlyNonSignerAccounts,
      });
      expect(p.transaction.message.instructions.map((i) => [i.programIdIndex, i.accounts, i.data])).toEqual(
        msg.instructions.map((i) => [i.programAddressIndex, [...(i.accountIndices ?? [])], bytesToBase58(i.data ?? new Uint8Array())]),
      );
      const m = p.meta!;
      expect(m.err).toEqual(raw.meta.err);
      expect(m.fee).toBe(raw.meta.fee);
      expect(m.preBalances).toEqual(raw.meta.preBalances);
      expect(m.postBalances).toEqual(raw.meta.postBalances);
      expect(m.loadedAddresses).toEqual(raw.meta.loadedAddresses ?? { writable: [], readonly: [] });
      expect(m.logMessages).toEqual(raw.meta.logMessages);
      expect(m.innerInstructions.map((g) => [g.index, g.instructions.map((i) => [i.programIdIndex, i.accounts, i.data])])).toEqual(
        raw.meta.innerInstructions.map((g: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string }[] }) =>
          [g.index, g.instructions.map((i) => [i.programIdIndex, i.accounts, i.data])]),
      );
      const tb = (l: { accountIndex: number; mint: string; owner?: string; uiTokenAmount: { amount: string; decimals: number; uiAmountString: string } }[]) =>
        l.map((b) => [b.accountIndex, b.mint, b.owner, b.uiTokenAmount.amount, b.uiTokenAmount.decimals, b.uiTokenAmount.uiAmountString]);
      expect(tb(m.preTokenBalances)).toEqual(tb(raw.meta.preTokenBalances ?? []));
      expect(tb(m.postTokenBalances)).toEqual(tb(raw.meta.postTokenBalances ?? []));
    }
  });
});

describe('matchTransactions', () => {
  const items = recorded.map((raw) => {
    const tx = normalizeRpcTransaction(raw);
    return { tx, events: parseTransaction(tx) };
  });
  const classify = (p: (typeof items)[number]) => classifyTransaction(p.tx, p.events);
  const sub = (over: Partial<Subscription>): Subscription => ({ id: 'w', webhookType: 'raw', transactionTypes: [], txnStatus: 'all', ...over });

  it('matches a watched account key (token-account owners: test/webhooks/delivery.test.ts)', () => {
    const p = items[0];
    const m = matchTransactions([p], new Map([[p.tx.accountKeys[0], [sub({})]]]), classify);
    expect(m.events).toEqual([{ webhookId: 'w', signature: p.tx.signature, slot: p.tx.slot, position: expect.any(Number) }]);
    expect(JSON.parse(m.payloads[0].raw).transaction.signatures[0]).toBe(p.tx.signature);
    expect(JSON.parse(m.payloads[0].enhanced!).signature).toBe(p.tx.signature);
    expect(matchTransactions([p], new Map([['11111111111111111111111111111112', [sub({})]]]), classify).events).toHaveLength(0);
  });

  it('applies txnStatus, transactionTypes and the no-failed-transactions rule of typed webhooks', () => {
    const p = items[0];
    expect(p.tx.meta?.err).toBeNull();
    const key = p.tx.accountKeys[0];
    const type = classify(p).type;
    const run = (s: Subscription) => matchTransactions([p], new Map([[key, [s]]]), classify).events.length;
    expect(run(sub({ txnStatus: 'success' }))).toBe(1);
    expect(run(sub({ txnStatus: 'failed' }))).toBe(0);
    expect(run(sub({ webhookType: 'enhanced', transactionTypes: ['ANY'] }))).toBe(1);
    expect(run(sub({ webhookType: 'enhanced', transactionTypes: [type] }))).toBe(1);
    expect(run(sub({ webhookType: 'discordDevnet', transactionTypes: [type === 'NFT_SALE' ? 'SWAP' : 'NFT_SALE'] }))).toBe(0);
    // The same transaction as a failed one (its error recorded): raw webhooks with all/failed get it, typed ones never.
    const failed = { ...p, tx: { ...p.tx, meta: { ...p.tx.meta!, err: { InstructionError: [0, { Custom: 1 }] } } } };
    const runF = (s: Subscription) => matchTransactions([failed], new Map([[key, [s]]]), classify);
    expect(runF(sub({ txnStatus: 'failed' })).events).toHaveLength(1);
    expect(runF(sub({ txnStatus: 'failed' })).payloads[0].enhanced).toBeNull();
    expect(runF(sub({ webhookType: 'enhanced', transactionTypes: ['ANY'] })).events).toHaveLength(0);
  });

  it('a transaction the classifier cannot handle still reaches raw webhooks only', () => {
    const p = items[0];
    const key = p.tx.accountKeys[0];
    const m = matchTransactions([p], new Map([[key, [sub({ id: 'raw' }), sub({ id: 'enh', webhookType: 'enhanced', transactionTypes: ['ANY'] })]]]), () => null);
    expect(m.events.map((e) => e.webhookId)).toEqual(['raw']);
    expect(m.payloads[0].enhanced).toBeNull();
  });
});
