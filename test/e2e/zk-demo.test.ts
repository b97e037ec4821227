/**
 * End to end, ZK Compression on the demo chain (what `npm start` runs): the localnet with the Light genesis runs the
 * demo workload (compressed SOL in V1 and V2 trees, a compressed-token mint, V2 by-index transfers of SOL and tokens);
 * the RPC poller + ingester index it over JSON-RPC (Light trees discovered from the chain's accounts); the Photon
 * JSON-RPC methods must answer every demo wallet's compressed accounts, balances and token balances.
 *
 * Expectations come from the chain, not from the index: the compressed accounts alive at the end are rebuilt from
 * the Light transactions the demo sent (outputs minus by-index spends), and their totals are checked against the
 * SOL pool's lamports, the token pool's balance and the mint's supply, and the trees' counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createLocalnet, startDemoWorkload, type LocalChain, type Localnet } from '../../src/sources/localnet/index.js';
import type { DemoWorkload } from '../../src/sources/localnet/demo.js';
import { toNormalizedTx } from '../../src/sources/localnet/block-source.js';
import {
  COMPRESSED_TOKEN_PROGRAM, LIGHT_SOL_POOL_PDA, LIGHT_STATE_TREES_V1, LIGHT_STATE_TREES_V2, LIGHT_SYSTEM_PROGRAM,
  v1StateTreeNextIndex, v2OutputQueueCounters,
} from '../../src/sources/localnet/light.js';
import { getCompressedTokenPoolAddress } from '../../src/sources/localnet/light-instructions.js';
import { LIGHT_TREE_TYPE, parseLightTransaction, type LightOutputAccount } from '../../src/parsers/light/index.js';
import { createRpcPoller, fetchAccounts } from '../../src/sources/rpc-poller.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { genesisStateTrees } from '../localnet/helpers.js';

const trees = genesisStateTrees;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let net: Localnet;
let demo: DemoWorkload;
let ta: TestApp;
let lastSlot: number;
/** Compressed accounts alive at the end, rebuilt from the demo's Light transactions. */
let live: LightOutputAccount[];
let spent: LightOutputAccount[];
let mint: string;

function rebuild(chain: LocalChain): { live: LightOutputAccount[]; spent: LightOutputAccount[] } {
  const outputs = new Map<string, LightOutputAccount>();
  const gone = new Set<string>();
  for (const slot of chain.getBlocks(0, chain.slot)) {
    for (const tx of chain.getBlock(slot)!.transactions) {
      if (!tx.staticKeys.some((k) => k === LIGHT_SYSTEM_PROGRAM || k === COMPRESSED_TOKEN_PROGRAM)) continue;
      expect(tx.meta.err, tx.meta.logMessages.join('\n')).toBeNull();
      const u = parseLightTransaction(toNormalizedTx(tx), { trees });
      expect(u.failures).toEqual([]);
      for (const o of u.outputAccounts) outputs.set(o.hash, o);
      for (const h of u.inputAccountHashes) gone.add(h);
    }
  }
  const all = [...outputs.values()];
  return { live: all.filter((o) => !gone.has(o.hash)), spent: all.filter((o) => gone.has(o.hash)) };
}

async function rpc(method: string, params: unknown): Promise<any> {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method, params } });
  const body = r.json();
  expect(body.error, `${method}: ${JSON.stringify(body.error)}`).toBeUndefined();
  return body.result;
}

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0, light: true });
  demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 3 });
  const l = demo.light!;
  const end = Date.now() + 60_000;
  while (l.stats.solTransfers < 5 || l.stats.tokenTransfers < 5 || l.stats.v1Outputs < 8) {
    if (Date.now() > end) throw new Error('demo did not reach its transfers');
    await sleep(3);
    net.chain.produceSlot();
  }
  await demo.stop();
  lastSlot = net.chain.produceSlot()!.slot;
  net.chain.produceSlot();
  expect(demo.stats.errors).toBe(0);
  mint = l.mint;
  ({ live, spent } = rebuild(net.chain));

  // Index the chain from slot 0 through the RPC poller, discovering the Light trees from their accounts.
  ta = await createTestApp();
  const poller = createRpcPoller({ url: net.url, pollIntervalMs: 20, concurrency: 4, backoffBaseMs: 5 });
  const ingester = createIngester(ta.t.db, pino({ level: 'silent' }), { fetchAccounts: (keys) => fetchAccounts(net.url, keys) });
  const ctl = new AbortController();
  const run = ingester.run(poller, { startSlot: 0, signal: ctl.signal });
  const deadline = Date.now() + 120_000;
  try {
    while (((await getCheckpoint(ta.t.db)) ?? -1) < lastSlot) {
      if (Date.now() > deadline) throw new Error('ingestion did not reach the last slot');
      await sleep(50);
    }
  } finally {
    ctl.abort();
    await run;
    await poller.close();
  }
}, 240_000);
afterAll(async () => {
  await ta?.close();
  await net?.close();
});

describe('ZK Compression demo → ingester → Photon JSON-RPC', () => {
  it('the rebuilt state matches the chain (pools, supply, tree counters)', async () => {
    const sol = live.filter((o) => !o.tokenData).reduce((s, o) => s + o.lamports, 0n);
    expect(net.chain.getAccount(LIGHT_SOL_POOL_PDA)!.lamports).toBe(sol);
    const tokens = live.reduce((s, o) => s + (o.tokenData?.amount ?? 0n), 0n);
    const pool = net.chain.getAccount(await getCompressedTokenPoolAddress(mint))!.data;
    expect(new DataView(pool.buffer, pool.byteOffset).getBigUint64(64, true)).toBe(tokens);
    const all = [...live, ...spent];
    for (const t of LIGHT_STATE_TREES_V1) expect(all.filter((o) => o.tree === t.tree).length).toBe(Number(v1StateTreeNextIndex(net.chain.getAccount(t.tree)!.data)));
    for (const t of LIGHT_STATE_TREES_V2) expect(all.filter((o) => o.tree === t.tree).length).toBe(Number(v2OutputQueueCounters(net.chain.getAccount(t.queue)!.data).nextIndex));
    expect(spent.length).toBeGreaterThanOrEqual(10);
  });

  it('getCompressedAccountsByOwner(V2) and getCompressedBalanceByOwner answer each wallet\'s compressed SOL', async () => {
    for (const w of demo.wallets) {
      const mine = live.filter((o) => !o.tokenData && o.owner === w);
      expect(mine.length, w).toBeGreaterThan(0);
      const v1 = await rpc('getCompressedAccountsByOwner', { owner: w });
      expect(v1.value.items.map((a: any) => a.hash).sort()).toEqual(mine.map((o) => o.hash).sort());
      for (const a of v1.value.items) {
        const o = mine.find((x) => x.hash === a.hash)!;
        expect({ lamports: BigInt(a.lamports), tree: a.tree, leafIndex: a.leafIndex, owner: a.owner }).toEqual({ lamports: o.lamports, tree: o.tree, leafIndex: o.leafIndex, owner: w });
      }
      const v2 = await rpc('getCompressedAccountsByOwnerV2', { owner: w });
      for (const a of v2.value.items) {
        const o = mine.find((x) => x.hash === a.hash)!;
        expect(a.proveByIndex, a.hash).toBe(o.treeType === LIGHT_TREE_TYPE.StateV2);
        expect(a.merkleContext.tree).toBe(o.tree);
      }
      const balance = await rpc('getCompressedBalanceByOwner', { owner: w });
      expect(BigInt(balance.value)).toBe(mine.reduce((s, o) => s + o.lamports, 0n));
    }
  });

  it('getCompressedTokenBalancesByOwnerV2 and getCompressedTokenAccountsByOwner answer each wallet\'s compressed tokens', async () => {
    for (const w of demo.wallets) {
      const mine = live.filter((o) => o.tokenData?.owner === w);
      expect(mine.length, w).toBeGreaterThan(0);
      const balances = await rpc('getCompressedTokenBalancesByOwnerV2', { owner: w });
      expect(balances.value.items.map((b: any) => ({ mint: b.mint, balance: BigInt(b.balance) })))
        .toEqual([{ mint, balance: mine.reduce((s, o) => s + o.tokenData!.amount, 0n) }]);
      const accounts = await rpc('getCompressedTokenAccountsByOwner', { owner: w });
      expect(accounts.value.items.map((a: any) => a.account.hash).sort()).toEqual(mine.map((o) => o.hash).sort());
      for (const a of accounts.value.items) expect(a.tokenData.mint).toBe(mint);
    }
  });

  it('spent accounts are gone from the lists; the token holders add up to the mint supply', async () => {
    const listed = new Set<string>();
    for (const w of demo.wallets) {
      for (const a of (await rpc('getCompressedAccountsByOwner', { owner: w })).value.items) listed.add(a.hash);
      for (const a of (await rpc('getCompressedTokenAccountsByOwner', { owner: w })).value.items) listed.add(a.account.hash);
    }
    for (const o of spent) expect(listed.has(o.hash), o.hash).toBe(false);
    const holders = await rpc('getCompressedMintTokenHolders', { mint });
    const total = holders.value.items.reduce((s: bigint, h: any) => s + BigInt(h.balance), 0n);
    const m = net.chain.getAccount(mint)!.data;
    expect(total).toBe(new DataView(m.buffer, m.byteOffset).getBigUint64(36, true));
  });

  it('a V1 account has a Merkle proof (verified by the gateway before it answers), a V2 one a proof by index; signatures are linked', async () => {
    const v1 = live.find((o) => o.treeType === LIGHT_TREE_TYPE.StateV1 && !o.tokenData)!;
    const proof = await rpc('getCompressedAccountProof', { hash: v1.hash });
    expect(proof.value.hash).toBe(v1.hash);
    expect(proof.value.leafIndex).toBe(v1.leafIndex);
    expect(proof.value.merkleTree).toBe(v1.tree);
    // A V2 account still in its output queue is proven by index: no prover, no root (what the demo spends by).
    const v2 = live.find((o) => o.treeType === LIGHT_TREE_TYPE.StateV2 && !o.tokenData)!;
    const byIndex = await rpc('getValidityProofV2', { hashes: [v2.hash] });
    expect(byIndex.value.compressedProof).toBeNull();
    expect(byIndex.value.accounts).toEqual([expect.objectContaining({
      hash: v2.hash, rootIndex: { rootIndex: 0, proveByIndex: true }, leafIndex: v2.leafIndex,
      merkleContext: expect.objectContaining({ tree: v2.tree, queue: v2.queue }),
    })]);
    const sigs = await rpc('getCompressionSignaturesForOwner', { owner: demo.wallets[0] });
    expect(sigs.value.items.length).toBeGreaterThan(0);
    const slot = await rpc('getIndexerSlot', []);
    expect(slot).toBeGreaterThanOrEqual(lastSlot);
  });
});
