/**
 * End to end: the built-in localnet executes real transactions sent over its JSON-RPC; the RPC poller ingests
 * them into the database; every Wallet endpoint answers with values derived from what this test sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { upsertIdentities } from '../../src/store/identities.js';
import { createTestApp, getOk, type TestApp } from '../helpers/app.js';
import { ingestUntil, localnetSender, type LocalnetSender } from '../localnet/helpers.js';

const SOL = 1_000_000_000n;
const DECIMALS = 6;
const NATIVE = 'So11111111111111111111111111111111111111112';

let net: Localnet;
let sender: LocalnetSender;
let ta: TestApp;
let A: KeyPairSigner, B: KeyPairSigner, C: KeyPairSigner, mint: KeyPairSigner;
let ataA: Address, ataB: Address;

/** What the test sent, in order: the expectations are derived from this log only. */
interface Sent {
  signature: string;
  slot: number;
  kind: 'airdrop' | 'sol' | 'token' | 'setup' | 'fail';
  from?: string;
  to?: string;
  amount?: bigint;
  involves: string[];
}
const sent: Sent[] = [];

async function send(payer: KeyPairSigner, ixs: Instruction[], meta: Omit<Sent, 'signature' | 'slot'>): Promise<string> {
  const { signature, slot } = await sender.send(payer, ixs);
  sent.push({ ...meta, signature, slot });
  return signature;
}

const get = (path: string) => getOk(ta, path);

beforeAll(async () => {
  net = await createLocalnet({ port: 0, slotMs: 0 });
  sender = localnetSender(net);
  ta = await createTestApp();
  [A, B, C, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);

  // A is funded by the faucet; B and C are funded by A (their first incoming SOL).
  const air = await sender.airdrop(A.address, 50n * SOL);
  sent.push({ ...air, kind: 'airdrop', from: net.chain.faucet.address, to: A.address, amount: 50n * SOL, involves: [A.address] });
  const solAmounts = [3n * SOL, 1_234_567n, 2n * SOL + 1n];
  for (const amount of solAmounts) {
    await send(A, [getTransferSolInstruction({ source: A, destination: B.address, amount })], { kind: 'sol', from: A.address, to: B.address, amount, involves: [A.address, B.address] });
  }
  await send(A, [getTransferSolInstruction({ source: A, destination: C.address, amount: SOL })], { kind: 'sol', from: A.address, to: C.address, amount: SOL, involves: [A.address, C.address] });

  // An SPL mint owned by A, ATAs for A and B, 1,000 tokens minted to A.
  const setup = await sender.mintSetup(A, mint, DECIMALS, [A.address, B.address], 1_000_000_000n);
  [ataA, ataB] = setup.atas;
  await send(A, setup.instructions, { kind: 'setup', involves: [A.address, B.address] });

  // Token transfers A → B (B's wallet is not an account key of these: only its token account is).
  const tokenAmounts = [1_500_000n, 250_000n, 42n, 7_000_000n, 1n];
  for (const amount of tokenAmounts) {
    await send(A, [getTransferCheckedInstruction({ source: ataA, mint: mint.address, destination: ataB, authority: A, amount, decimals: DECIMALS })], {
      kind: 'token', from: A.address, to: B.address, amount, involves: [A.address, B.address],
    });
  }
  // B tries to send more tokens than it has: fails on chain, fee charged.
  await send(B, [getTransferCheckedInstruction({ source: ataB, mint: mint.address, destination: ataA, authority: B, amount: 10n ** 15n, decimals: DECIMALS })], {
    kind: 'fail', involves: [B.address],
  });
  // Empty slots in between must not matter.
  net.chain.produceSlot();
  net.chain.produceSlot();
  const last = sent[sent.length - 1].slot;

  // Ingest through the poller, exactly as from a real cluster.
  await ingestUntil(ta.t.db, net.url, last);
  await upsertIdentities(ta.t.db, [{ address: net.chain.faucet.address, name: 'Test Faucet', type: 'faucet', category: 'Infrastructure', tags: ['test'] }]);
}, 120_000);

afterAll(async () => {
  await net?.close();
  await ta?.close();
});

describe('Wallet REST over an indexed localnet', () => {
  it('balances: SOL equals the chain balance, tokens equal minted minus sent', async () => {
    const chainA = BigInt(await sender.rpc<{ value: number }>('getBalance', [A.address]).then((r) => r.value));
    const body = await get(`/v1/wallet/${A.address}/balances`);
    expect(body.balances[0]).toMatchObject({ mint: NATIVE, decimals: 9 });
    expect(BigInt(Math.round(body.balances[0].balance * 1e9))).toBe(chainA);
    const sentTokens = sent.filter((s) => s.kind === 'token').reduce((t, s) => t + s.amount!, 0n);
    const tokA = body.balances.find((b: { mint: string }) => b.mint === mint.address);
    expect(tokA).toMatchObject({ decimals: DECIMALS, tokenProgram: 'spl-token', pricePerToken: null, usdValue: null });
    expect(BigInt(Math.round(tokA.balance * 10 ** DECIMALS))).toBe(1_000_000_000n - sentTokens);
    const bodyB = await get(`/v1/wallet/${B.address}/balances?showNative=false`);
    expect(bodyB.balances).toHaveLength(1);
    expect(BigInt(Math.round(bodyB.balances[0].balance * 10 ** DECIMALS))).toBe(sentTokens);
    expect(bodyB.pagination).toEqual({ page: 1, limit: 100, hasMore: false });
  });

  it('balances: priced tokens sort before unpriced, and pages split the list', async () => {
    ta.tokens.set(mint.address, { symbol: 'TST', name: 'Test', priceUsd: 0.5 });
    const body = await get(`/v1/wallet/${A.address}/balances`);
    expect(body.balances.map((b: { mint: string }) => b.mint)).toEqual([NATIVE, mint.address]);
    expect(body.balances[1]).toMatchObject({ symbol: 'TST', name: 'Test', pricePerToken: 0.5 });
    expect(body.totalUsdValue).toBeCloseTo(body.balances[1].usdValue, 6);
    const p1 = await get(`/v1/wallet/${A.address}/balances?limit=1`);
    const p2 = await get(`/v1/wallet/${A.address}/balances?limit=1&page=2`);
    expect(p1.balances[0].mint).toBe(NATIVE);
    expect(p1.pagination.hasMore).toBe(true);
    expect(p2.balances[0].mint).toBe(mint.address);
    expect(p2.pagination).toEqual({ page: 2, limit: 1, hasMore: false });
    ta.tokens.delete(mint.address);
  });

  it('history: every transaction involving B, newest first; paginating to exhaustion has no gaps or duplicates', async () => {
    const expected = sent.filter((s) => s.involves.includes(B.address)).map((s) => s.signature).reverse();
    const all = await get(`/v1/wallet/${B.address}/history`);
    expect(all.data.map((d: { signature: string }) => d.signature)).toEqual(expected);
    expect(all.pagination).toEqual({ hasMore: false, nextCursor: null });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/v1/wallet/${B.address}/history?limit=2${cursor ? `&before=${cursor}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((d: { signature: string }) => d.signature));
      cursor = page.pagination.nextCursor;
      expect(page.pagination.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(expected);
    // `after` pages forwards, oldest first.
    const fwd = await get(`/v1/wallet/${B.address}/history?after=${expected[expected.length - 1]}&limit=100`);
    expect(fwd.data.map((d: { signature: string }) => d.signature)).toEqual(expected.slice(0, -1).reverse());
  });

  it('history: records carry fee, fee payer, signed balance changes and errors', async () => {
    const body = await get(`/v1/wallet/${B.address}/history`);
    const bySig = new Map(body.data.map((d: { signature: string }) => [d.signature, d]));
    const failed = sent.find((s) => s.kind === 'fail')!;
    const f = bySig.get(failed.signature) as { error: string | null; feePayer: string; fee: number; balanceChanges: { mint: string; amount: number }[] };
    expect(f.error).toMatch(/InstructionError/);
    expect(f.feePayer).toBe(B.address);
    expect(f.fee).toBeGreaterThan(0);
    expect(f.balanceChanges).toEqual([{ mint: NATIVE, amount: -f.fee, decimals: 9 }]);
    const tok = sent.filter((s) => s.kind === 'token')[1];
    const t = bySig.get(tok.signature) as { balanceChanges: { mint: string; amount: number; decimals: number }[]; feePayer: string };
    expect(t.feePayer).toBe(A.address);
    expect(t.balanceChanges).toEqual([{ mint: mint.address, amount: Number(tok.amount) / 10 ** DECIMALS, decimals: DECIMALS }]);
    const sol = sent.filter((s) => s.kind === 'sol')[1];
    expect((bySig.get(sol.signature) as { balanceChanges: unknown[] }).balanceChanges).toEqual([{ mint: NATIVE, amount: Number(sol.amount) / 1e9, decimals: 9 }]);
  });

  it('history: tokenAccounts=none leaves out transfers that only touched B’s token account', async () => {
    const none = await get(`/v1/wallet/${B.address}/history?tokenAccounts=none`);
    const tokenSigs = new Set(sent.filter((s) => s.kind === 'token').map((s) => s.signature));
    const got = none.data.map((d: { signature: string }) => d.signature);
    expect(got.some((s: string) => tokenSigs.has(s))).toBe(false);
    expect(got).toEqual(sent.filter((s) => s.involves.includes(B.address) && s.kind !== 'token').map((s) => s.signature).reverse());
    const all = await get(`/v1/wallet/${B.address}/history?tokenAccounts=all`);
    expect(all.data.length).toBeGreaterThanOrEqual(got.length + tokenSigs.size);
  });

  it('transfers: B sees each SOL and token transfer in, with A as counterparty, newest first, paginated', async () => {
    const expected = sent
      .filter((s) => (s.kind === 'sol' || s.kind === 'token') && s.to === B.address)
      .reverse()
      .map((s) => ({ signature: s.signature, direction: 'in', counterparty: A.address, mint: s.kind === 'sol' ? NATIVE : mint.address, amountRaw: s.amount!.toString() }));
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/v1/wallet/${B.address}/transfers?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      for (const d of page.data) {
        expect(d.amount).toBeCloseTo(Number(d.amountRaw) / 10 ** d.decimals, 12);
        seen.push({ signature: d.signature, direction: d.direction, counterparty: d.counterparty, mint: d.mint, amountRaw: d.amountRaw });
      }
      cursor = page.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected);
    const outA = await get(`/v1/wallet/${A.address}/transfers?limit=100`);
    const toC = outA.data.find((d: { counterparty: string }) => d.counterparty === C.address);
    expect(toC).toMatchObject({ direction: 'out', mint: NATIVE, amountRaw: SOL.toString(), symbol: 'SOL' });
  });

  it('funded-by: B was first funded by A with the first amount; A by the faucet', async () => {
    const first = sent.find((s) => s.kind === 'sol' && s.to === B.address)!;
    const fb = await get(`/v1/wallet/${B.address}/funded-by`);
    expect(fb).toMatchObject({ funder: A.address, mint: NATIVE, symbol: 'SOL', amountRaw: first.amount!.toString(), decimals: 9, signature: first.signature, slot: first.slot });
    expect(fb.explorerUrl).toContain(first.signature);
    expect(new Date(fb.date).getTime()).toBe(fb.timestamp * 1000);
    const fa = await get(`/v1/wallet/${A.address}/funded-by`);
    expect(fa).toMatchObject({ funder: net.chain.faucet.address, funderName: 'Test Faucet', funderType: 'faucet', amountRaw: (50n * SOL).toString() });
  });

  it('identity and batch-identity: known entities answer, unknown ones are absent or 404', async () => {
    const id = await get(`/v1/wallet/${net.chain.faucet.address}/identity`);
    expect(id).toEqual({ address: net.chain.faucet.address, type: 'faucet', name: 'Test Faucet', category: 'Infrastructure', tags: ['test'] });
    const r = await ta.app.inject({ method: 'POST', url: '/v1/wallet/batch-identity', headers: { 'x-api-key': ta.key }, payload: { addresses: [B.address, net.chain.faucet.address] } });
    expect(r.json()).toEqual([id]);
    const miss = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${B.address}/identity`, headers: { 'x-api-key': ta.key } });
    expect(miss.statusCode).toBe(404);
  });
});
