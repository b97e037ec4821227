/**
 * getSignaturesForAddress answered from the index where it is authoritative (src/api/rpc/indexed/): an older page
 * (`before` an indexed, finalized signature) of an address the index holds from genesis is the index's answer — equal,
 * field for field (memo, err, blockTime, confirmationStatus), to the cluster's own — while the head of the list and
 * the cases the index cannot vouch for are forwarded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { address, generateKeyPairSigner, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createUpstreamRpc, type UpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { createRpcPoller } from '../../src/sources/rpc-poller.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { recordIndexOrigin } from '../../src/store/coverage.js';
import { registry } from '../../src/core/metrics.js';
import { MEMO_PROGRAM } from '../../src/core/programs.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { localnetSender } from '../localnet/helpers.js';

let net: Localnet;
let upstream: UpstreamRpc;
let ta: TestApp;
let ctl: AbortController;
let running: Promise<void>;
let W: KeyPairSigner;
const sent: string[] = [];

const memo = (text: string): Instruction => ({ programAddress: address(MEMO_PROGRAM), data: new TextEncoder().encode(text) });

async function call(method: string, params: unknown[]): Promise<any> {
  const r = await ta.app.inject({ method: 'POST', url: '/', headers: { 'x-api-key': ta.key }, payload: { jsonrpc: '2.0', id: 1, method, params } });
  return r.json();
}
async function node(method: string, params: unknown[]): Promise<any> {
  return upstream.forward(method, params, 1, true);
}
async function fromIndex(): Promise<number> {
  const m = (await registry.getSingleMetricAsString('solgate_rpc_index_answers_total')).match(/method="getSignaturesForAddress"} (\d+)/);
  return m ? Number(m[1]) : 0;
}

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 50 });
  upstream = createUpstreamRpc({ url: net.url });
  ta = await createTestApp({ upstreamRpc: upstream, indexCommitment: 'finalized' });
  const ingester = createIngester(ta.t.db, pino({ level: 'silent' }));
  const poller = createRpcPoller({ url: net.url, commitment: 'finalized', concurrency: 2, pollIntervalMs: 20 });
  // The index begins at genesis (what `serve` records when it starts on an empty index).
  await recordIndexOrigin(ta.t.db, 0);
  ctl = new AbortController();
  running = ingester.run(poller, { startSlot: 0, signal: ctl.signal }).finally(() => poller.close());
  const sender = localnetSender(net);
  W = await generateKeyPairSigner();
  const other = await generateKeyPairSigner();
  await sender.airdrop(W.address, 10_000_000_000n);
  let last = 0;
  for (let i = 0; i < 6; i++) {
    const ixs: Instruction[] = [getTransferSolInstruction({ source: W, destination: other.address, amount: 1_000_000n })];
    if (i % 2 === 0) ixs.push(memo(`payment ${i}`));
    if (i === 2) ixs.push(memo('🦖 second memo'));
    // One that fails: more than the wallet holds.
    if (i === 3) ixs[0] = getTransferSolInstruction({ source: W, destination: other.address, amount: 1_000_000_000_000n });
    const landed = await sender.send(W, ixs);
    sent.push(landed.signature);
    last = landed.slot;
  }
  for (let i = 0; i < 400 && ((await getCheckpoint(ta.t.db)) ?? -1) < last; i++) await new Promise((r) => setTimeout(r, 25));
}, 60_000);

afterAll(async () => {
  ctl?.abort();
  await running?.catch(() => {});
  await ta?.close();
  await upstream?.close();
  await net?.close();
});

describe('getSignaturesForAddress from the index', () => {
  it('an older page is the index\'s answer, equal to the cluster\'s (memos, the failed one, block times)', async () => {
    const n0 = await fromIndex();
    for (const params of [
      [W.address, { before: sent[5] }],
      [W.address, { before: sent[4], limit: 2 }],
      [W.address, { before: sent[5], until: sent[1], commitment: 'confirmed' }],
    ]) {
      const ours = await call('getSignaturesForAddress', params);
      const theirs = await node('getSignaturesForAddress', params);
      expect(ours.result, JSON.stringify(params)).toEqual(theirs.result);
    }
    expect(await fromIndex()).toBe(n0 + 3);
    const page = (await call('getSignaturesForAddress', [W.address, { before: sent[5] }])).result as any[];
    expect(page.map((s) => s.signature).slice(0, 5)).toEqual(sent.slice(0, 5).reverse());
    expect(page.find((s) => s.signature === sent[2]).memo).toBe('[9] payment 2; [16] 🦖 second memo'); // byte lengths
    expect(page.find((s) => s.signature === sent[3]).err).not.toBeNull();
  });

  it('the head of the list, unknown `before`, unknown fields and processed commitment go to the cluster', async () => {
    const n0 = await fromIndex();
    const head = await call('getSignaturesForAddress', [W.address, { limit: 3 }]);
    expect(head.result).toEqual((await node('getSignaturesForAddress', [W.address, { limit: 3 }])).result);
    const unknownBefore = '5'.repeat(88);
    await call('getSignaturesForAddress', [W.address, { before: unknownBefore }]);
    await call('getSignaturesForAddress', [W.address, { before: sent[5], foo: 1 }]);
    const processed = await call('getSignaturesForAddress', [W.address, { before: sent[5], commitment: 'processed' }]);
    expect(processed).toEqual(await node('getSignaturesForAddress', [W.address, { before: sent[5], commitment: 'processed' }]));
    expect(await fromIndex()).toBe(n0);
  });

  it('minContextSlot: at or below the index\'s checkpoint the index answers; above it the cluster does (and checks it)', async () => {
    const at = (await getCheckpoint(ta.t.db))!;
    const n0 = await fromIndex();
    const params = [W.address, { before: sent[5], minContextSlot: at }];
    expect((await call('getSignaturesForAddress', params)).result).toEqual((await node('getSignaturesForAddress', params)).result);
    expect(await fromIndex()).toBe(n0 + 1);
    // A slot the index has not reached: never an older view from it — the cluster's answer, or its -32016.
    const ahead = [W.address, { before: sent[5], minContextSlot: at + 1_000_000 }];
    const ours = await call('getSignaturesForAddress', ahead);
    // agave's -32016 (its data.contextSlot is the node's slot at that moment).
    expect(ours.error).toMatchObject({ code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: expect.any(Number) } });
    expect(await fromIndex()).toBe(n0 + 1);
  });
});
