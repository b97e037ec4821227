/**
 * Standard Solana JSON-RPC on the gateway's `/`, forwarded to the cluster RPC (the built-in localnet here): an
 * unmodified `@solana/kit` client pointed at solgate's URL reads balances and blockhashes and sends and confirms a
 * transfer; the node's errors come back unchanged; u64 values keep every digit; single and batch requests mix
 * standard, DAS and ZK Compression methods; batches respect the archival caps; calls are charged (1 credit, 10 for
 * getProgramAccounts and archival calls) and counted per method; an unreachable node is a clear -32002. The V2
 * paging methods' `changedSinceSlot`, with a live-ingesting index: exactly the accounts written from a transfer's
 * slot (a token account in, a mint the transfers only read out, a failed transfer writing only its fee payer); bad
 * values, a slot before the index began and the System program refused; no index at the cluster's slot is -32016.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendTransactionMessageInstruction, createSolanaRpc, createTransactionMessage, generateKeyPairSigner, getBase64EncodedWireTransaction,
  getSignatureFromTransaction, lamports, pipe, setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners, type Address,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import pino from 'pino';
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
import { createIngester } from '../../src/ingest/pipeline.js';
import { createRpcPoller } from '../../src/sources/rpc-poller.js';
import { getIndexOrigin } from '../../src/store/coverage.js';
import { CHANGED_SINCE_WAIT_MS } from '../../src/api/rpc/changed-since.js';

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
    net.chain.settle(); // the reads below are at the default commitment, finalized
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
  });

  it('changedSinceSlot keeps the accounts the index saw written from that slot through the list\'s slot', async () => {
    const ingester = createIngester(ta.t.db, pino({ level: 'silent' }));
    const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', concurrency: 2, pollIntervalMs: 20 });
    const ctl = new AbortController();
    const running = ingester.run(poller, { startSlot: net.chain.slot, signal: ctl.signal }).finally(() => poller.close());
    try {
      const sender = localnetSender(net);
      const [payer, O, Q] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
      const mint = await generateKeyPairSigner();
      await sender.airdrop(payer.address, 10_000_000_000n);
      const setup = await sender.mintSetup(payer, mint, 0, [O.address, Q.address], 100n);
      const [ataO, ataQ] = setup.atas;
      const made = await sender.send(payer, setup.instructions);
      // O signs the transfer read-only; the mint is only read.
      const transfer = (amount: bigint) => [spl.getTransferCheckedInstruction({ source: ataO, mint: mint.address, destination: ataQ, authority: O, amount, decimals: 0 })];
      const ok = await sender.send(payer, transfer(10n));
      // Fails (more than the balance): only its fee payer is written, not the token accounts it names writable.
      const bad = await sender.send(payer, transfer(1_000_000n));
      // The slots the transactions landed in (the localnet also produces slots on its own clock).
      const status = (await direct({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[made.signature, ok.signature, bad.signature], { searchTransactionHistory: true }] })).result.value;
      const [s1, s2, s3] = status.map((x: { slot: number }) => x.slot);
      expect(status.map((x: { err: unknown }) => x.err === null)).toEqual([true, true, false]);
      expect(s1 < s2 && s2 < s3).toBe(true);
      for (let i = 0; i < 500; i++) {
        const confirmed = (await direct({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'confirmed' }] })).result;
        if (confirmed > s3) break;
        await sleep(20);
      }

      const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
      const ofMint = [TOKEN, { commitment: 'confirmed', encoding: 'base64', filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint.address } }] }] as const;
      const mintsOfPayer = [TOKEN, { commitment: 'confirmed', encoding: 'base64', filters: [{ dataSize: 82 }, { memcmp: { offset: 4, bytes: payer.address } }] }] as const;
      const gpa = async (params: readonly [string, Record<string, unknown>], extra: Record<string, unknown>) => {
        const r = (await post({ jsonrpc: '2.0', id: 1, method: 'getProgramAccountsV2', params: [params[0], { ...params[1], ...extra }] })).json;
        expect(r.error, JSON.stringify(r.error)).toBeUndefined();
        return r.result as { accounts: { pubkey: string }[]; paginationKey: string | null; totalResults: number };
      };
      const keys = (v: { accounts: { pubkey: string }[] }) => v.accounts.map((a) => a.pubkey).sort();
      expect(keys(await gpa(ofMint, {}))).toEqual([ataO, ataQ].sort());
      expect(keys(await gpa(ofMint, { changedSinceSlot: s1 }))).toEqual([ataO, ataQ].sort());
      expect(keys(await gpa(ofMint, { changedSinceSlot: s2 }))).toEqual([ataO, ataQ].sort());
      expect(await gpa(ofMint, { changedSinceSlot: s2 + 1 })).toEqual({ accounts: [], paginationKey: null, totalResults: 0 });
      expect(keys(await gpa(mintsOfPayer, { changedSinceSlot: s1 }))).toEqual([mint.address]);
      expect((await gpa(mintsOfPayer, { changedSinceSlot: s1 + 1 })).totalResults).toBe(0); // the transfers only read it
      // Paging and totalResults apply to the kept accounts.
      const first = await gpa(ofMint, { changedSinceSlot: s2, limit: 1 });
      expect([first.accounts.length, first.totalResults]).toEqual([1, 2]);
      const second = await gpa(ofMint, { changedSinceSlot: s2, limit: 1, paginationKey: first.paginationKey });
      expect([second.accounts.length, second.totalResults]).toEqual([1, 2]);
      expect([first.accounts[0].pubkey, second.accounts[0].pubkey].sort()).toEqual([ataO, ataQ].sort());

      const gta = async (owner: string, since: number) => {
        const r = (await post({ jsonrpc: '2.0', id: 1, method: 'getTokenAccountsByOwnerV2', params: [owner, { mint: mint.address }, { commitment: 'confirmed', encoding: 'base64', changedSinceSlot: since }] })).json;
        expect(r.error, JSON.stringify(r.error)).toBeUndefined();
        return r.result.value as { accounts: { pubkey: string }[]; totalResults: number };
      };
      expect(keys(await gta(O.address, s2))).toEqual([ataO]);
      expect((await gta(O.address, s2 + 1)).totalResults).toBe(0);

      // The index's rows: the failed transfer wrote its fee payer only; O signed the good one read-only.
      const { rows } = await ta.t.db.query<{ address: string; signature: string; writable: boolean | null }>(
        'SELECT a.address, t.signature, a.writable FROM address_transactions a JOIN transactions t ON t.slot = a.slot AND t.tx_index = a.tx_index WHERE t.signature = ANY($1) AND a.relation = 1',
        [[ok.signature, bad.signature]],
      );
      const flag = (sig: string, a: string) => rows.find((r) => r.signature === sig && r.address === a)?.writable;
      expect([flag(ok.signature, payer.address), flag(ok.signature, ataO), flag(ok.signature, ataQ), flag(ok.signature, O.address), flag(ok.signature, mint.address)]).toEqual([true, true, true, false, false]);
      expect([flag(bad.signature, payer.address), flag(bad.signature, ataO), flag(bad.signature, ataQ)]).toEqual([true, false, false]);

      // Refusals: bad values, a slot before the index began, accounts the runtime writes outside transactions.
      for (const v of [-1, 1.5, '5', true, {}]) {
        const r = (await post({ jsonrpc: '2.0', id: 1, method: 'getProgramAccountsV2', params: [TOKEN, { changedSinceSlot: v }] })).json;
        expect(r.error?.code, String(v)).toBe(-32602);
        expect(r.error.message).toContain('changedSinceSlot must be a non-negative integer');
      }
      const origin = (await getIndexOrigin(ta.t.db))!;
      expect(origin).toBeGreaterThan(0);
      for (const [method, params] of [['getProgramAccountsV2', ofMint], ['getTokenAccountsByOwnerV2', [O.address, { mint: mint.address }, { commitment: 'confirmed', encoding: 'base64' }]]] as const) {
        const r = (await post({ jsonrpc: '2.0', id: 1, method, params: [...params.slice(0, -1), { ...(params[params.length - 1] as object), changedSinceSlot: origin - 1 }] })).json;
        expect(r.error?.code, method).toBe(-32602);
        expect(r.error.message).toContain(`the index answers from slot ${origin} on`);
      }
      const sys = (await post({ jsonrpc: '2.0', id: 1, method: 'getProgramAccountsV2', params: ['11111111111111111111111111111111', { changedSinceSlot: s1 }] })).json;
      expect(sys.error?.code).toBe(-32602);
    } finally {
      ctl.abort();
      await running.catch(() => {});
    }
  });

  it('changedSinceSlot without an index at the cluster\'s slot: a bounded wait, then -32016', async () => {
    const other = await createTestApp({ upstreamRpc: upstream });
    try {
      const t0 = Date.now();
      const r = await other.app.inject({ method: 'POST', url: `/?api-key=${other.key}`, payload: { jsonrpc: '2.0', id: 1, method: 'getProgramAccountsV2', params: ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', { changedSinceSlot: 0, dataSlice: { offset: 0, length: 0 } }] } });
      expect(r.json().error).toEqual({ code: -32016, message: expect.stringMatching(/^changedSinceSlot: the index holds no slot yet \(the cluster's list is at slot \d+\); try again/) });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(CHANGED_SINCE_WAIT_MS);
    } finally {
      await other.close();
    }
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
