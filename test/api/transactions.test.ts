/**
 * POST /v0/transactions against the built-in localnet (LiteSVM): real transactions (a SOL transfer, a mint with
 * ATAs and tokens minted, a token transfer, a burn) are sent, their signatures posted, and the enhanced answers
 * checked against what was sent and the cluster's own execution meta. Bad input → 400 in the REST format; an
 * unreachable or unconfigured cluster → 503 in the same format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import { createRpcTransactionFetcher } from '../../src/api/zk/transaction-fetcher.js';
import type { Localnet } from '../../src/sources/localnet/index.js';
import { fundedLocalnet, num, sendTx, setupSplMint, type RpcClient } from '../localnet/helpers.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const DECIMALS = 6;
const UNKNOWN_SIG = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

let net: Localnet;
let rpc: RpcClient;
let payer: KeyPairSigner;
let ta: TestApp;

const sigs: Record<'sol' | 'mint' | 'transfer' | 'burn', string> = { sol: '', mint: '', transfer: '', burn: '' };
let to: KeyPairSigner;
let owner2: KeyPairSigner;
let mint: Address;
let atas: Address[];

beforeAll(async () => {
  ({ net, rpc, payer } = await fundedLocalnet(10_000_000_000));
  ta = await createTestApp({ enhanced: { getTransaction: createRpcTransactionFetcher(net.url) } });

  to = await generateKeyPairSigner();
  const sol = await sendTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: to.address, amount: 1_234_567n })]);
  expect(sol.reply.error).toBeUndefined();
  sigs.sol = sol.signature;
  net.chain.produceSlot();

  owner2 = await generateKeyPairSigner();
  ({ mint, atas } = await setupSplMint(rpc, payer, DECIMALS, [payer.address, owner2.address], 10_000_000n));
  net.chain.produceSlot();
  [{ signature: sigs.mint }] = await rpc.call('getSignaturesForAddress', [payer.address, { limit: 1 }]);

  const tr = await sendTx(rpc, payer, [spl.getTransferCheckedInstruction({ source: atas[0], mint, destination: atas[1], authority: payer, amount: 2_500_000n, decimals: DECIMALS })]);
  expect(tr.reply.error).toBeUndefined();
  sigs.transfer = tr.signature;
  net.chain.produceSlot();

  const burn = await sendTx(rpc, payer, [spl.getBurnCheckedInstruction({ account: atas[0], mint, authority: payer, amount: 1_000_000n, decimals: DECIMALS })]);
  expect(burn.reply.error).toBeUndefined();
  sigs.burn = burn.signature;
  net.chain.produceSlot();
}, 60_000);

afterAll(async () => {
  await ta?.close();
  await net?.close();
});

async function post(payload: unknown, app: TestApp = ta, raw = false) {
  const r = await app.app.inject({
    method: 'POST',
    url: `/v0/transactions?api-key=${app.key}`,
    headers: { 'content-type': 'application/json' },
    payload: raw ? (payload as string) : JSON.stringify(payload),
  });
  return { status: r.statusCode, body: r.json() };
}

function expectError(r: { status: number; body: any }, status: number, re: RegExp) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.code).toBe(status);
  expect(typeof r.body.error).toBe('string');
  expect(`${r.body.error} ${r.body.details ?? ''}`).toMatch(re);
}

describe('POST /v0/transactions over a localnet', () => {
  it('answers each signature in request order with its type, source and transfers', async () => {
    const order = [sigs.burn, sigs.sol, sigs.transfer, sigs.mint];
    const r = await post({ transactions: order });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.map((t: any) => t.signature)).toEqual(order);
    const [burn, sol, transfer, minted] = r.body;

    expect([sol.type, sol.source]).toEqual(['TRANSFER', 'SYSTEM_PROGRAM']);
    expect(sol.nativeTransfers).toEqual([{ fromUserAccount: payer.address, toUserAccount: to.address, amount: 1_234_567 }]);
    expect(sol.tokenTransfers).toEqual([]);
    expect(sol.feePayer).toBe(payer.address);

    expect([minted.type, minted.source]).toEqual(['TOKEN_MINT', 'SOLANA_PROGRAM_LIBRARY']);
    expect(minted.tokenTransfers).toEqual([
      { fromUserAccount: '', toUserAccount: payer.address, fromTokenAccount: '', toTokenAccount: atas[0], tokenAmount: 10, mint, tokenStandard: 'Fungible' },
    ]);

    expect([transfer.type, transfer.source]).toEqual(['TRANSFER', 'SOLANA_PROGRAM_LIBRARY']);
    expect(transfer.tokenTransfers).toEqual([
      { fromUserAccount: payer.address, toUserAccount: owner2.address, fromTokenAccount: atas[0], toTokenAccount: atas[1], tokenAmount: 2.5, mint, tokenStandard: 'Fungible' },
    ]);
    expect(transfer.nativeTransfers).toEqual([]);

    expect([burn.type, burn.source]).toEqual(['BURN', 'SOLANA_PROGRAM_LIBRARY']);
    expect(burn.tokenTransfers).toEqual([
      { fromUserAccount: payer.address, toUserAccount: '', fromTokenAccount: atas[0], toTokenAccount: '', tokenAmount: 1, mint, tokenStandard: 'Fungible' },
    ]);
  });

  it('fee, slot, timestamp and balance changes are the cluster’s', async () => {
    const r = await post({ transactions: [sigs.sol] });
    const raw = await rpc.call('getTransaction', [sigs.sol, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    const [e] = r.body;
    expect(e.fee).toBe(Number(num(raw.meta.fee)));
    expect(e.slot).toBe(Number(raw.slot));
    expect(e.timestamp).toBe(Number(raw.blockTime));
    const keys: string[] = raw.transaction.message.accountKeys;
    expect(e.accountData.map((a: any) => [a.account, a.nativeBalanceChange])).toEqual(
      keys.map((k, i) => [k, Number(num(raw.meta.postBalances[i]) - num(raw.meta.preBalances[i]))]),
    );
    expect(e.transactionError).toBeNull();
    expect(e.instructions).toHaveLength(1);
  });

  it('unknown signatures are left out; duplicates are answered twice', async () => {
    const r = await post({ transactions: [UNKNOWN_SIG, sigs.sol, UNKNOWN_SIG, sigs.sol] });
    expect(r.status).toBe(200);
    expect(r.body.map((t: any) => t.signature)).toEqual([sigs.sol, sigs.sol]);
    const none = await post({ transactions: [UNKNOWN_SIG] });
    expect(none).toEqual({ status: 200, body: [] });
  });

  it('bad bodies and signatures → 400 naming the problem', async () => {
    expectError(await post({}), 400, /transactions/);
    expectError(await post({ transactions: 'abc' }), 400, /transactions/);
    expectError(await post({ transactions: [] }), 400, /must not be empty/);
    expectError(await post({ transactions: Array(101).fill(sigs.sol) }), 400, /Too many transactions.*at most 100.*got 101/);
    expectError(await post({ transactions: [sigs.sol, 'not-a-signature'] }), 400, /Invalid transaction signature.*transactions\[1\]/);
    expectError(await post({ transactions: [sigs.sol, 42] }), 400, /transactions\[1\]/);
    // a base58 public key (32 bytes) is not a signature
    expectError(await post({ transactions: [payer.address] }), 400, /transactions\[0\]/);
    expectError(await post('{"transactions": [', ta, true), 400, /Invalid JSON/);
    // 100 is allowed
    const ok = await post({ transactions: Array(100).fill(sigs.sol) });
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveLength(100);
  });

  it('a missing or wrong key → 401', async () => {
    const r = await ta.app.inject({ method: 'POST', url: '/v0/transactions', payload: { transactions: [sigs.sol] } });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toMatchObject({ code: 401, error: expect.stringMatching(/API key required/) });
    const bad = await ta.app.inject({ method: 'POST', url: '/v0/transactions?api-key=nope', payload: { transactions: [sigs.sol] } });
    expect(bad.statusCode).toBe(401);
  });
});

describe('POST /v0/transactions without a reachable cluster', () => {
  let down: TestApp;
  let none: TestApp;
  beforeAll(async () => {
    // A port nothing listens on: connection refused.
    down = await createTestApp({ enhanced: { getTransaction: createRpcTransactionFetcher('http://127.0.0.1:9/', { timeoutMs: 2_000 }) } });
    none = await createTestApp();
  });
  afterAll(async () => {
    await down?.close();
    await none?.close();
  });

  it('an unreachable cluster RPC → 503 in the REST format', async () => {
    const r = await post({ transactions: [sigs.sol] }, down);
    expectError(r, 503, /Cluster RPC unavailable.*fetching transaction/);
  });

  it('a cluster answering with an error → 503 with the cause', async () => {
    const failing = async (): Promise<never> => {
      throw new Error('getTransaction: HTTP 502');
    };
    const app2 = await createTestApp({ enhanced: { getTransaction: failing } });
    try {
      expectError(await post({ transactions: [sigs.sol] }, app2), 503, /HTTP 502/);
    } finally {
      await app2.close();
    }
  });

  it('no cluster RPC configured → 503 saying so', async () => {
    expectError(await post({ transactions: [sigs.sol] }, none), 503, /no cluster RPC is configured/);
  });

  it('bad input is still a 400 without a cluster', async () => {
    expectError(await post({ transactions: ['x'] }, none), 400, /transactions\[0\]/);
  });
});
