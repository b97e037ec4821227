/**
 * getTransactionsForAddress from the history index, on transactions a real SVM (the localnet) executed and the
 * ingester indexed: the address's own transactions equal what the chain's getSignaturesForAddress lists; the token
 * account filters add the transfers into a token account it owns; pages follow `paginationToken` in both
 * directions without gaps or repeats; slot and status filters; full transactions in the requested encoding; errors
 * and the no-batch rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getMintToCheckedInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createUpstreamRpc, type UpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { createRpcTransactionFetcher } from '../../src/api/zk/transaction-fetcher.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ingestUntil, localnetSender, type LocalnetSender } from '../localnet/helpers.js';

const SOL = 1_000_000_000n;
let net: Localnet;
let sender: LocalnetSender;
let upstream: UpstreamRpc;
let ta: TestApp;
let A: KeyPairSigner, B: KeyPairSigner, mint: KeyPairSigner;
let ataB: Address;
/** A's token-only transactions: B sends tokens into A's token account (A's wallet is no account key of them). */
const tokenOnly: string[] = [];
let failed = '';

async function call(method: string, params: unknown) {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method, params } });
  return r.json() as { result?: any; error?: { code: number; message: string } };
}
const gtfa = async (cfg: Record<string, unknown> = {}) => {
  const r = await call('getTransactionsForAddress', [A.address, cfg]);
  expect(r.error, JSON.stringify(r.error)).toBeUndefined();
  return r.result as { data: any[]; paginationToken: string | null };
};

beforeAll(async () => {
  net = await createLocalnet({ port: 0, slotMs: 0 });
  sender = localnetSender(net);
  upstream = createUpstreamRpc({ url: net.url });
  ta = await createTestApp({ upstreamRpc: upstream, enhanced: { getTransaction: createRpcTransactionFetcher(net.url, { commitment: 'confirmed' }) } });
  [A, B, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  await sender.airdrop(A.address, 20n * SOL);
  await sender.airdrop(B.address, 20n * SOL);
  for (const amount of [SOL, 2n * SOL, 3n, 4n, 5n]) await sender.send(A, [getTransferSolInstruction({ source: A, destination: B.address, amount })]);
  const setup = await sender.mintSetup(B, mint, 6, [B.address, A.address]);
  [ataB] = setup.atas;
  const ataA = setup.atas[1];
  await sender.send(B, setup.instructions);
  await sender.send(B, [getMintToCheckedInstruction({ mint: mint.address, token: ataB, mintAuthority: B, amount: 9_000_000n, decimals: 6 })]);
  for (const amount of [1_000n, 2_000n])
    tokenOnly.push((await sender.send(B, [getTransferCheckedInstruction({ source: ataB, mint: mint.address, destination: ataA, authority: B, amount, decimals: 6 })])).signature);
  // Fails on chain (A pays more than it has): listed with status failed.
  failed = (await sender.send(A, [getTransferSolInstruction({ source: A, destination: B.address, amount: 1_000n * SOL })])).signature;
  const last = net.chain.produceSlot()!.slot;
  await ingestUntil(ta.t.db, net.url, last);
});

afterAll(async () => {
  await ta?.close();
  await upstream?.close();
  await net?.close();
});

describe('getTransactionsForAddress', () => {
  it('lists the address\'s transactions as the chain\'s getSignaturesForAddress does (newest first)', async () => {
    const chain = (await upstream.forward('getSignaturesForAddress', [A.address], 1, true)).result as { signature: string; slot: number; err: unknown }[];
    const r = await gtfa();
    expect(r.data.map((x) => x.signature)).toEqual(chain.map((x) => x.signature));
    expect(r.data.map((x) => x.slot)).toEqual(chain.map((x) => x.slot));
    expect(r.paginationToken).toBeNull();
    expect(r.data[0]).toMatchObject({ signature: failed, memo: null, confirmationStatus: 'finalized', transactionIndex: expect.any(Number) });
    expect(r.data[0].err).not.toBeNull();
    for (const x of r.data) expect(tokenOnly).not.toContain(x.signature);
  });

  it('tokenAccounts balanceChanged / all add the transfers into a token account it owns', async () => {
    const plain = (await gtfa()).data.map((x) => x.signature);
    const changed = (await gtfa({ filters: { tokenAccounts: 'balanceChanged' } })).data.map((x) => x.signature);
    expect(changed).toEqual(expect.arrayContaining([...plain, ...tokenOnly]));
    expect(changed.length).toBe(plain.length + tokenOnly.length);
    expect((await gtfa({ filters: { tokenAccounts: 'all' } })).data.length).toBeGreaterThanOrEqual(changed.length);
  });

  it('pages with paginationToken in both directions, without gaps or repeats', async () => {
    const all = (await gtfa()).data.map((x) => x.signature);
    for (const sortOrder of ['desc', 'asc'] as const) {
      const seen: string[] = [];
      let token: string | null = null;
      do {
        const page = await gtfa({ sortOrder, limit: 2, ...(token ? { paginationToken: token } : {}) });
        seen.push(...page.data.map((x) => x.signature));
        token = page.paginationToken;
      } while (token);
      expect(seen).toEqual(sortOrder === 'desc' ? all : [...all].reverse());
    }
  });

  it('filters on status and slot', async () => {
    const all = (await gtfa()).data;
    expect((await gtfa({ filters: { status: 'failed' } })).data.map((x) => x.signature)).toEqual([failed]);
    expect((await gtfa({ filters: { status: 'succeeded' } })).data).toHaveLength(all.length - 1);
    const mid = all[Math.floor(all.length / 2)].slot;
    const upper = (await gtfa({ filters: { slot: { gte: mid } } })).data;
    expect(upper.every((x) => x.slot >= mid)).toBe(true);
    expect(upper.length).toBe(all.filter((x) => x.slot >= mid).length);
  });

  it('full transactions come from the cluster in the requested encoding', async () => {
    const r = await gtfa({ transactionDetails: 'full', limit: 3, encoding: 'json', maxSupportedTransactionVersion: 0 });
    expect(r.data).toHaveLength(3);
    expect(r.paginationToken).not.toBeNull();
    const sigs = (await gtfa({ limit: 3 })).data;
    r.data.forEach((x, i) => {
      expect(x.transaction.signatures[0]).toBe(sigs[i].signature);
      expect(x).toMatchObject({ slot: sigs[i].slot, transactionIndex: sigs[i].transactionIndex, meta: expect.any(Object) });
    });
  });

  it('refuses bad params with -32602 and a batch with -32600', async () => {
    for (const params of [['nope'], [A.address, { limit: 1001 }], [A.address, { transactionDetails: 'full', limit: 101 }], [A.address, { colour: 1 }],
      [A.address, { filters: { slot: { near: 3 } } }], [A.address, { paginationToken: 'x' }], [A.address, { commitment: 'processed' }]]) {
      const r = await call('getTransactionsForAddress', params);
      expect(r.error?.code, JSON.stringify(params)).toBe(-32602);
    }
    const b = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: [{ jsonrpc: '2.0', id: 1, method: 'getTransactionsForAddress', params: [A.address] }] });
    expect(b.json()).toMatchObject({ error: { code: -32600, message: 'getTransactionsForAddress cannot be sent in a batch' } });
  });
});

describe('GET /v0/addresses/{address}/transactions', () => {
  const get = async (query = '') => {
    const r = await ta.app.inject({ method: 'GET', url: `/v0/addresses/${A.address}/transactions?api-key=${ta.key}${query}` });
    return { status: r.statusCode, body: r.json() };
  };

  it('answers enhanced transactions of the address, newest first, the same list as getTransactionsForAddress', async () => {
    const sigs = (await gtfa()).data.map((x) => x.signature);
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.body.map((t: { signature: string }) => t.signature)).toEqual(sigs);
    const transfer = r.body.find((t: { type: string; transactionError: unknown }) => t.type === 'TRANSFER' && t.transactionError === null);
    expect(transfer?.nativeTransfers?.[0]).toMatchObject({ fromUserAccount: A.address, toUserAccount: B.address });
  });

  it('pages with before-signature (desc) and after-signature (asc), and filters by type', async () => {
    const all = (await get()).body.map((t: { signature: string }) => t.signature);
    const first = (await get('&limit=2')).body.map((t: { signature: string }) => t.signature);
    const next = (await get(`&limit=2&before-signature=${first[1]}`)).body.map((t: { signature: string }) => t.signature);
    expect([...first, ...next]).toEqual(all.slice(0, 4));
    const asc = (await get(`&sort-order=asc&limit=3&after-signature=${all[all.length - 1]}`)).body.map((t: { signature: string }) => t.signature);
    expect(asc).toEqual([...all].reverse().slice(1, 4));
    const transfers = (await get('&type=TRANSFER')).body as { type: string }[];
    expect(transfers.length).toBeGreaterThan(0);
    expect(transfers.every((t) => t.type === 'TRANSFER')).toBe(true);
  });

  it('bad input is a 400 in the REST format', async () => {
    for (const q of ['&limit=101', '&colour=red', '&before-signature=xyz', `&before-signature=${'1'.repeat(64)}`, '&sort-order=sideways']) {
      const r = await get(q);
      expect(r.status, q).toBe(400);
      expect(r.body).toMatchObject({ error: expect.any(String), code: 400 });
    }
    const r = await ta.app.inject({ method: 'GET', url: `/v0/addresses/not-an-address/transactions?api-key=${ta.key}` });
    expect(r.statusCode).toBe(400);
  });
});
