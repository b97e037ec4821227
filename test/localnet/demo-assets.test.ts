/**
 * The demo's Token-2022 NFTs on the localnet (no ingestion): the workload creates a token-group collection and one
 * member NFT per wallet (supply 1, decimals 0, no mint authority left, metadata on the mint), moves them between
 * the wallets, and continues them from its saved state on the same chain — holders read back from the chain — or,
 * given a state saved before the demo had NFTs, sets them up on the restored chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address } from '@solana/kit';
import * as t22 from '@solana-program/token-2022';
import { createLocalnet, startDemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { DEMO_TOKENS, demoNftName, type DemoState } from '../../src/sources/localnet/demo.js';

let net: Localnet;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs slots by hand until `done()`. */
async function runUntil(done: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(5);
    net.chain.produceSlot();
  }
}

const mintOf = (m: string) => t22.getMintDecoder().decode(net.chain.getAccount(m)!.data);

async function amount(owner: string, mint: string): Promise<bigint> {
  const [ata] = await t22.findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: t22.TOKEN_2022_PROGRAM_ADDRESS });
  const d = net.chain.getAccount(ata)?.data;
  return d ? new DataView(d.buffer, d.byteOffset).getBigUint64(64, true) : 0n;
}

/** Every holder's NFTs agree with the chain: exactly one wallet has the token. */
async function expectHoldersOnChain(holders: Map<string, string>, wallets: string[]): Promise<void> {
  for (const [mint, w] of holders) {
    for (const x of wallets) expect(await amount(x, mint), `${x} ${mint}`).toBe(x === w ? 1n : 0n);
  }
}

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0 });
});
afterAll(async () => {
  await net?.close();
});

describe('demo NFTs', () => {
  let saved: DemoState;

  it('creates a token-group collection and one member NFT per wallet, named on chain, and moves them', async () => {
    const demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 3, failureRate: 0 });
    await runUntil(() => demo.assets.stats.nftTransfers >= 4);
    await demo.stop();
    net.chain.produceSlot();
    expect(demo.stats.errors).toBe(0);
    const { collection, nfts } = demo.assets;
    expect(nfts).toHaveLength(3);
    const ext = (m: string) => {
      const e = mintOf(m).extensions;
      return e.__option === 'Some' ? e.value : [];
    };
    const group = mintOf(collection);
    expect({ supply: group.supply, decimals: group.decimals, mintAuthority: group.mintAuthority.__option }).toEqual({ supply: 1n, decimals: 0, mintAuthority: 'None' });
    expect(ext(collection)).toEqual(expect.arrayContaining([
      expect.objectContaining({ __kind: 'TokenMetadata', name: DEMO_TOKENS.collection.name, symbol: DEMO_TOKENS.collection.symbol }),
      expect.objectContaining({ __kind: 'TokenGroup', mint: collection, size: 3n }),
    ]));
    expect(await amount(demo.wallets[0], collection)).toBe(1n);
    nfts.forEach((m, k) => {
      const mint = mintOf(m);
      expect({ supply: mint.supply, decimals: mint.decimals, mintAuthority: mint.mintAuthority.__option }).toEqual({ supply: 1n, decimals: 0, mintAuthority: 'None' });
      expect(ext(m)).toEqual(expect.arrayContaining([
        expect.objectContaining({ __kind: 'TokenMetadata', name: demoNftName(k + 1).name, uri: demoNftName(k + 1).uri }),
        expect.objectContaining({ __kind: 'TokenGroupMember', mint: m, group: collection, memberNumber: BigInt(k + 1) }),
      ]));
    });
    // The Token-2022 fungible is named on chain as DEMO_TOKENS says.
    expect(ext(demo.mints.token2022)).toEqual(expect.arrayContaining([
      expect.objectContaining({ __kind: 'TokenMetadata', name: DEMO_TOKENS.token2022.name, symbol: DEMO_TOKENS.token2022.symbol }),
    ]));
    await expectHoldersOnChain(demo.assets.holders(), demo.wallets);
    saved = demo.state();
    expect(saved.assets).toEqual({ collection, nfts });
  });

  it('resumes the saved NFTs with their holders read from the chain', async () => {
    const demo = await startDemoWorkload(net.chain, { intervalMs: 1, failureRate: 0, resume: saved });
    await runUntil(() => demo.assets.stats.nftTransfers >= 4);
    await demo.stop();
    net.chain.produceSlot();
    expect(demo.stats.errors).toBe(0);
    expect(demo.assets.collection).toBe(saved.assets!.collection);
    expect(demo.assets.nfts).toEqual(saved.assets!.nfts);
    await expectHoldersOnChain(demo.assets.holders(), demo.wallets);
    saved = demo.state();
  });

  it('sets the NFTs up on a chain whose saved workload predates them', async () => {
    const { assets: _, ...old } = saved;
    const demo = await startDemoWorkload(net.chain, { intervalMs: 1, failureRate: 0, resume: old });
    await runUntil(() => demo.assets.stats.nftTransfers >= 1);
    await demo.stop();
    expect(demo.stats.errors).toBe(0);
    expect(demo.assets.collection).not.toBe(saved.assets!.collection);
    expect(demo.assets.nfts).toHaveLength(saved.walletKeys.length);
    await expectHoldersOnChain(demo.assets.holders(), demo.wallets);
  });
});
