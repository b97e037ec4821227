/**
 * End to end, the DAS side of the demo (what `npm start` runs): the demo chain (src/cli/demo-chain.ts, with Light)
 * runs its workload — a Token-2022 fungible named on chain, a Token-2022 NFT collection (token group) with one
 * member NFT per wallet, NFT transfers between the wallets — and the RPC poller + ingester index it over JSON-RPC,
 * as `serve --demo` does; the gateway's token registry gets the demo overlay as `serve` gives it.
 *
 * Expectations come from the chain, not from the index: names and symbols from the mints' TokenMetadata extension,
 * holders from the wallets' token accounts. Then: `getAsset` of a demo NFT and of the collection answers their
 * on-chain metadata and group extensions; `getAssetsByOwner` and `searchAssets` list each wallet's demo assets;
 * the wallet balances and transfers name the Token-2022 fungible as DAS does, and the NFT transfers are in the
 * wallets' transfers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { address } from '@solana/kit';
import * as t22 from '@solana-program/token-2022';
import { startDemoChain, type DemoChain } from '../../src/cli/demo-chain.js';
import { DEMO_TOKENS, demoNftName } from '../../src/sources/localnet/demo.js';
import { onMintTokenMetadata } from '../../src/sources/localnet/demo-assets.js';
import { createRpcPoller, fetchAccounts } from '../../src/sources/rpc-poller.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { drainAssetIndex } from '../../src/ingest/asset-index.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { createTestApp, getOk, type TestApp } from '../helpers/app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const logger = pino({ level: 'silent' });

let ta: TestApp;
let demo: DemoChain;
/** Holder of each demo NFT (collection included) on chain at the end. */
const holders = new Map<string, string>();

async function rpc(method: string, params: unknown): Promise<any> {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method, params } });
  const body = r.json();
  expect(body.error, `${method}: ${JSON.stringify(body.error)}`).toBeUndefined();
  return body.result;
}

/** Name and symbol of a mint's TokenMetadata extension on chain. */
const onChain = (mint: string) => onMintTokenMetadata(demo.localnet.chain.getAccount(mint)!.data)!;

/** The wallet whose token account of `mint` holds its one token. */
async function holderOf(mint: string): Promise<string> {
  const found: string[] = [];
  for (const w of demo.wallets) {
    const [ata] = await t22.findAssociatedTokenPda({ owner: address(w), mint: address(mint), tokenProgram: t22.TOKEN_2022_PROGRAM_ADDRESS });
    const d = demo.localnet.chain.getAccount(ata)?.data;
    if (d && new DataView(d.buffer, d.byteOffset).getBigUint64(64, true) === 1n) found.push(w);
  }
  expect(found, mint).toHaveLength(1);
  return found[0];
}

beforeAll(async () => {
  ta = await createTestApp();
  demo = await startDemoChain({ port: 0, slotMs: 20, startSlot: 0, logger, light: true, demo: { intervalMs: 3, wallets: 3 } });
  for (const [mint, info] of demo.tokenOverlay()) ta.tokens.set(mint, info);
  const poller = createRpcPoller({ url: demo.url, pollIntervalMs: 20, concurrency: 4, backoffBaseMs: 5 });
  const ingester = createIngester(ta.t.db, logger, { fetchAccounts: (keys) => fetchAccounts(demo.url, keys) });
  const ctl = new AbortController();
  const running = ingester.run(poller, { startSlot: demo.startSlot, signal: ctl.signal });
  try {
    const w = demo.workload!;
    const end = Date.now() + 90_000;
    while (w.assets.stats.nftTransfers < 6 || w.stats.sent < 40) {
      if (Date.now() > end) throw new Error('the demo did not reach its NFT transfers');
      await sleep(20);
    }
    expect(await demo.settle({ indexedSlot: () => getCheckpoint(ta.t.db), timeoutMs: 60_000 })).toBe(true);
    expect(w.stats.errors).toBe(0);
  } finally {
    ctl.abort();
    await running;
    await poller.close();
  }
  await drainAssetIndex(ta.t.db);
  for (const mint of [demo.assets!.collection, ...demo.assets!.nfts]) holders.set(mint, await holderOf(mint));
}, 180_000);

afterAll(async () => {
  await demo?.stop();
  await ta?.close();
});

describe('demo chain → ingester → DAS', () => {
  it('the demo NFTs are Token-2022 mints of supply 1, decimals 0, named on chain, in one token group', () => {
    const a = demo.assets!;
    expect(a.nft).toBe(a.nfts[0]);
    expect(a.nfts).toHaveLength(demo.wallets.length);
    expect(a.owner).toBe(demo.wallets[0]);
    expect(a.fungible).toBe(demo.mints.token2022);
    expect(onChain(a.fungible)).toEqual({ name: DEMO_TOKENS.token2022.name, symbol: DEMO_TOKENS.token2022.symbol });
    expect(onChain(a.collection)).toEqual({ name: DEMO_TOKENS.collection.name, symbol: DEMO_TOKENS.collection.symbol });
    a.nfts.forEach((m, k) => expect(onChain(m)).toEqual({ name: demoNftName(k + 1).name, symbol: demoNftName(k + 1).symbol }));
    expect(holders.get(a.collection)).toBe(a.owner);
    // The workload's view of the holders is the chain's.
    for (const [mint, w] of demo.workload!.assets.holders()) expect(holders.get(mint), mint).toBe(w);
  });

  it('getAsset of a demo NFT answers its on-chain name, symbol, supply and group membership', async () => {
    const a = demo.assets!;
    for (const [k, id] of a.nfts.entries()) {
      const asset = await rpc('getAsset', { id, displayOptions: { showFungible: true } });
      expect(asset.id).toBe(id);
      expect(asset.content.metadata).toMatchObject({ name: demoNftName(k + 1).name, symbol: demoNftName(k + 1).symbol });
      expect(asset.content.json_uri).toBe(demoNftName(k + 1).uri);
      expect(asset.token_info).toMatchObject({ supply: 1, decimals: 0, token_program: t22.TOKEN_2022_PROGRAM_ADDRESS });
      expect(asset.token_info.mint_authority).toBeUndefined();
      expect(asset.mint_extensions.metadata).toMatchObject({ name: demoNftName(k + 1).name, symbol: demoNftName(k + 1).symbol, mint: id });
      expect(asset.mint_extensions.metadata_pointer).toEqual({ metadata_address: id });
      expect(asset.mint_extensions.group_member_pointer).toMatchObject({ member_address: id });
      expect(asset.mint_extensions.token_group_member).toEqual({ mint: id, group: a.collection, member_number: k + 1 });
    }
    const collection = await rpc('getAsset', { id: a.collection });
    expect(collection.content.metadata).toMatchObject({ name: DEMO_TOKENS.collection.name, symbol: DEMO_TOKENS.collection.symbol });
    expect(collection.mint_extensions.token_group).toMatchObject({ mint: a.collection, size: a.nfts.length, update_authority: a.owner });
    const fungible = await rpc('getAsset', { id: a.fungible });
    expect(fungible.content.metadata).toMatchObject({ name: DEMO_TOKENS.token2022.name, symbol: DEMO_TOKENS.token2022.symbol });
  });

  it('getAssetsByOwner and searchAssets list each wallet\'s demo assets (the NFTs it holds now, DEMO22)', async () => {
    for (const w of demo.wallets) {
      const held = [...holders].filter(([, h]) => h === w).map(([m]) => m);
      const list = await rpc('getAssetsByOwner', { ownerAddress: w, displayOptions: { showFungible: true }, limit: 100 });
      expect(list.total, w).toBeGreaterThan(0);
      const ids = list.items.map((i: any) => i.id);
      expect(ids, w).toContain(demo.mints.token2022);
      for (const m of held) expect(ids, `${w} holds ${m}`).toContain(m);
      // NFTs moved away are no longer listed (their emptied token accounts stay open, with 0).
      for (const m of [...holders.keys()].filter((x) => !held.includes(x))) expect(ids, `${w} gave ${m} away`).not.toContain(m);
      for (const i of list.items) expect(i.ownership.owner, i.id).toBe(w);
      const found = await rpc('searchAssets', { ownerAddress: w, tokenType: 'fungible', limit: 100 });
      expect(found.items.map((i: any) => i.id).sort()).toEqual([...ids].sort());
    }
    const named = await rpc('searchAssets', { name: 'Solgate Demo NFT', tokenType: 'all', limit: 100 });
    expect(named.items.map((i: any) => i.id).sort()).toEqual([...demo.assets!.nfts].sort());
  });

  it('the wallet balances name each Token-2022 mint as DAS does; the overlay names the SPL Token mint', async () => {
    for (const w of demo.wallets) {
      const { balances } = await getOk(ta, `/v1/wallet/${w}/balances`);
      const bySymbol = new Map<string, any>(balances.map((b: any) => [b.mint, b]));
      const fungible = bySymbol.get(demo.mints.token2022);
      const das = (await rpc('getAsset', { id: demo.mints.token2022 })).content.metadata;
      expect({ symbol: fungible.symbol, name: fungible.name }).toEqual({ symbol: das.symbol, name: das.name });
      expect(bySymbol.get(demo.mints.splToken)).toMatchObject({ symbol: DEMO_TOKENS.splToken.symbol, name: DEMO_TOKENS.splToken.name, pricePerToken: DEMO_TOKENS.splToken.priceUsd });
      for (const [mint, h] of holders) {
        if (h !== w) continue;
        const b = bySymbol.get(mint);
        const md = (await rpc('getAsset', { id: mint })).content.metadata;
        expect(b, `${w} ${mint}`).toMatchObject({ balance: 1, decimals: 0, tokenProgram: 'token-2022', symbol: md.symbol, name: md.name });
      }
    }
  });

  it('the NFT transfers are in the wallets\' transfers, named as DAS names the NFT', async () => {
    const nfts = new Set(demo.assets!.nfts);
    let seen = 0;
    for (const w of demo.wallets) {
      let cursor: string | null = null;
      do {
        const page: any = await getOk(ta, `/v1/wallet/${w}/transfers?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
        for (const t of page.data.filter((x: any) => nfts.has(x.mint))) {
          seen++;
          expect({ symbol: t.symbol, amountRaw: t.amountRaw, decimals: t.decimals }).toEqual({ symbol: onChain(t.mint).symbol, amountRaw: '1', decimals: 0 });
        }
        cursor = page.pagination.nextCursor;
      } while (cursor);
    }
    expect(seen).toBeGreaterThan(0);
  });
});
