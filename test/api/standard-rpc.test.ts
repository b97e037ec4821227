/**
 * Standard Solana JSON-RPC on the gateway's `/`, forwarded to the cluster RPC (the built-in localnet here): an
 * unmodified `@solana/kit` client pointed at solgate's URL reads balances and blockhashes and sends and confirms a
 * transfer; the node's errors come back unchanged; u64 values keep every digit; single and batch requests mix
 * standard, DAS and ZK Compression methods; batches respect the archival caps; calls are charged (1 credit, 10 for
 * getProgramAccounts and archival calls) and counted per method; an unreachable node is a clear -32002.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendTransactionMessageInstruction, createSolanaRpc, createTransactionMessage, generateKeyPairSigner, getBase64EncodedWireTransaction,
  getSignatureFromTransaction, lamports, pipe, setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners, type Address,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createUpstreamRpc, type UpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { createMeter } from '../../src/accounts/meter.js';
import { createUsageRecorder, utcDay, type UsageRecorder } from '../../src/accounts/usage.js';
import { DEFAULT_PLAN_TABLE } from '../../src/accounts/plans.js';
import { createApiKey } from '../../src/store/keys.js';
import { usageOf } from '../../src/store/usage.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { localnetSender } from '../localnet/helpers.js';
import { freePort } from '../helpers/net.js';

let net: Localnet;
let upstream: UpstreamRpc;
let ta: TestApp;
let usage: UsageRecorder;
let url: string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(body: unknown, key = ta.key): Promise<{ status: number; text: string; json: any }> {
  const r = await fetch(`${url}/?api-key=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, text, json: JSON.parse(text) };
}

async function direct(body: unknown): Promise<any> {
  return (await fetch(net.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
}

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 20 });
  upstream = createUpstreamRpc({ url: net.url, timeoutMs: 10_000 });
  ta = await createTestApp((db) => {
    usage = createUsageRecorder(db, { flushMs: 60_000 });
    return { upstreamRpc: upstream, meter: createMeter({ db, plans: DEFAULT_PLAN_TABLE, usage }) };
  });
  const port = await freePort();
  await ta.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await usage?.close();
  await ta?.close();
  await upstream?.close();
  await net?.close();
});

describe('standard JSON-RPC through solgate', () => {
  it('@solana/kit pointed at solgate reads, sends and confirms a transfer', async () => {
    const rpc = createSolanaRpc(`${url}/?api-key=${ta.key}`);
    const payer = await generateKeyPairSigner();
    const to = (await generateKeyPairSigner()).address;
    expect(typeof (await rpc.getSlot().send())).toBe('bigint');
    const sig = await rpc.requestAirdrop(payer.address, lamports(2_000_000_000n)).send();
    for (let i = 0; i < 200; i++) {
      const st = (await rpc.getSignatureStatuses([sig]).send()).value[0];
      if (st?.confirmationStatus === 'confirmed' || st?.confirmationStatus === 'finalized') break;
      await sleep(20);
    }
    expect((await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value).toBe(2_000_000_000n);
    const { value: blockhash } = await rpc.getLatestBlockhash().send();
    const msg = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: payer, destination: to as Address, amount: 1_000_000n }), m),
    );
    const signed = await signTransactionMessageWithSigners(msg);
    const sent = await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
    expect(sent).toBe(getSignatureFromTransaction(signed));
    let status = null;
    for (let i = 0; i < 200 && !status; i++) {
      const st = (await rpc.getSignatureStatuses([sent]).send()).value[0];
      if (st?.confirmationStatus === 'confirmed' || st?.confirmationStatus === 'finalized') status = st;
      else await sleep(20);
    }
    expect(status?.err).toBeNull();
    expect((await rpc.getBalance(to as Address, { commitment: 'confirmed' }).send()).value).toBe(1_000_000n);
    const tx = await rpc.getTransaction(sent, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    expect(tx?.meta?.err).toBeNull();
  });

  it('passes the node\'s errors back unchanged, under the client\'s id', async () => {
    const body = { jsonrpc: '2.0', id: 'abc', method: 'getAccountInfo', params: ['not-a-key'] };
    const [mine, theirs] = [await post(body), await direct(body)];
    expect(theirs.error).toBeDefined();
    expect(mine.json).toEqual(theirs);
    expect(mine.status).toBe(200);
  });

  it('keeps u64 values exact (rentEpoch)', async () => {
    const key = (await generateKeyPairSigner()).address;
    await direct({ jsonrpc: '2.0', id: 1, method: 'requestAirdrop', params: [key, 1_000_000] });
    await sleep(100);
    const body = { jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: [key, { encoding: 'base64', commitment: 'processed' }] };
    const theirs = await (await fetch(net.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).text();
    const m = /"rentEpoch":(\d+)/.exec(theirs);
    expect(m, theirs).not.toBeNull();
    expect((await post(body)).text).toContain(`"rentEpoch":${m![1]}`);
  });

  it('mixes standard, DAS and ZK Compression methods in one batch, in order', async () => {
    const r = await post([
      { jsonrpc: '2.0', id: 1, method: 'getSlot' },
      { jsonrpc: '2.0', id: 2, method: 'getAsset', params: { id: '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY' } },
      { jsonrpc: '2.0', id: 3, method: 'getIndexerSlot' },
      { jsonrpc: '2.0', id: 4, method: 'getVersion' },
      { jsonrpc: '2.0', id: 5, method: 'noSuchMethod' },
    ]);
    expect(r.json.map((x: { id: number }) => x.id)).toEqual([1, 2, 3, 4, 5]);
    expect(typeof r.json[0].result).toBe('number');
    expect(r.json[1].error.code).toBe(-32000); // DAS: asset not found
    expect(typeof r.json[2].result).toBe('number');
    expect(r.json[3].result['solana-core']).toEqual(expect.any(String));
    expect(r.json[4].error).toEqual({ code: -32601, message: 'Method not found' });
  });

  it('refuses a batch over the archival caps', async () => {
    const r = await post(Array.from({ length: 11 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'getBlock', params: [1] })));
    expect(r.json.error).toEqual({ code: -32600, message: 'Batch too large: at most 10 getBlock calls per batch (this one has 11)' });
  });

  it('charges 1 credit per standard call, 10 for getProgramAccounts and archival calls, by method', async () => {
    const { key, record } = await createApiKey(ta.t.db, { name: 'metered', plan: 'developer' });
    await post({ jsonrpc: '2.0', id: 1, method: 'getSlot' }, key);
    await post({ jsonrpc: '2.0', id: 1, method: 'getProgramAccounts', params: ['11111111111111111111111111111111', { dataSlice: { offset: 0, length: 0 } }] }, key);
    await post({ jsonrpc: '2.0', id: 1, method: 'getBlock', params: [1] }, key);
    await usage.flush();
    const today = utcDay(new Date());
    const rows = await usageOf(ta.t.db, record.id, today, today);
    const credits = Object.fromEntries(rows.map((r) => [r.method, r.credits]));
    expect(credits).toEqual({ getSlot: 1, getProgramAccounts: 10, getBlock: 10 });
  });

  it('an unreachable node is a -32002 with the cause', async () => {
    const dead = createUpstreamRpc({ url: `http://127.0.0.1:${await freePort()}`, timeoutMs: 2000 });
    const other = await createTestApp({ upstreamRpc: dead });
    try {
      const r = await other.app.inject({ method: 'POST', url: `/?api-key=${other.key}`, payload: { jsonrpc: '2.0', id: 7, method: 'getSlot' } });
      expect(r.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32002, message: expect.stringMatching(/^The cluster RPC could not be reached \(.*ECONNREFUSED/) } });
    } finally {
      await other.close();
      await dead.close();
    }
  });

  it('/docs/openrpc.json lists the forwarded methods with their credits', async () => {
    const doc = (await (await fetch(`${url}/docs/openrpc.json`)).json()) as { methods: { name: string; summary: string; 'x-forwarded'?: boolean }[] };
    const byName = new Map(doc.methods.map((m) => [m.name, m]));
    expect(byName.get('getBalance')).toMatchObject({ summary: 'getBalance (1 credit)', 'x-forwarded': true });
    expect(byName.get('getProgramAccounts')).toMatchObject({ summary: 'getProgramAccounts (10 credits)', 'x-forwarded': true });
    expect(byName.get('getAsset')?.['x-forwarded']).toBeUndefined();
    expect((await fetch(`${url}/docs`)).status).toBe(200);
  });

  it('getTokenAccountsByOwnerV2 / getProgramAccountsV2 page the cluster\'s accounts by pubkey', async () => {
    const sender = localnetSender(net);
    const [payer, owner] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    await sender.airdrop(payer.address, 10_000_000_000n);
    for (let i = 0; i < 3; i++) {
      const mint = await generateKeyPairSigner();
      await sender.send(payer, (await sender.mintSetup(payer, mint, 0, [owner.address])).instructions);
    }
    const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
    const listed = await direct({ jsonrpc: '2.0', id: 1, method: 'getTokenAccountsByOwner', params: [owner.address, { programId: TOKEN }, { encoding: 'base64' }] });
    expect(listed.error).toBeUndefined();
    const whole = listed.result.value as { pubkey: string }[];
    expect(whole).toHaveLength(3);
    for (const [method, first, cfg] of [
      ['getTokenAccountsByOwnerV2', [owner.address, { programId: TOKEN }], {}],
      ['getProgramAccountsV2', [TOKEN], { filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: owner.address } }] }],
    ] as const) {
      const seen: string[] = [];
      let key: string | null = null;
      const pages: number[] = [];
      for (;;) {
        const r: any = (await post({ jsonrpc: '2.0', id: 1, method, params: [...first, { encoding: 'base64', limit: 2, ...cfg, ...(key ? { paginationKey: key } : {}) }] })).json;
        expect(r.error, method).toBeUndefined();
        const v: any = method === 'getTokenAccountsByOwnerV2' ? r.result.value : r.result;
        expect(v.totalResults).toBe(3);
        pages.push(v.accounts.length);
        seen.push(...v.accounts.map((a: { pubkey: string }) => a.pubkey));
        if (!v.accounts.length) {
          expect(v.paginationKey).toBeNull();
          break;
        }
        key = v.paginationKey;
      }
      expect(pages, method).toEqual([2, 1, 0]);
      expect([...seen].sort()).toEqual(whole.map((a) => a.pubkey).sort());
    }
    const r = (await post({ jsonrpc: '2.0', id: 1, method: 'getProgramAccountsV2', params: [TOKEN, { changedSinceSlot: 5 }] })).json;
    expect(r.error.code).toBe(-32602);
  });

  it('without a cluster RPC, standard methods are not found', async () => {
    const other = await createTestApp();
    try {
      const r = await other.app.inject({ method: 'POST', url: `/?api-key=${other.key}`, payload: { jsonrpc: '2.0', id: 1, method: 'getSlot' } });
      expect(r.json().error).toEqual({ code: -32601, message: 'Method not found' });
    } finally {
      await other.close();
    }
  });
});
