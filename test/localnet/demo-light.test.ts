/**
 * The demo workload's ZK Compression activity (`demo-light.ts`) on a localnet with the Light genesis: every Light
 * transaction it sends lands successfully, and the compressed state rebuilt from those transactions alone (with
 * solgate's Light parser) is consistent with the chain: V1 tree next indices, V2 output-queue next indices, every
 * by-index spend naming an earlier unspent output of its tree, compressed SOL equal to the SOL pool's lamports and
 * compressed tokens equal to the token pool's balance and the mint's supply. The V2 budget per output queue stops
 * V2 activity cleanly (no refused or failed transaction, one log line) while V1 compressions go on; the demo still
 * runs without Light; `startDemoChain` (serve --demo, localnet --demo) loads Light unless told not to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { createLocalnet, startDemoWorkload, type LocalChain, type Localnet } from '../../src/sources/localnet/index.js';
import { toNormalizedTx } from '../../src/sources/localnet/block-source.js';
import { buildWireTransaction, type DemoWorkload } from '../../src/sources/localnet/demo.js';
import {
  COMPRESSED_TOKEN_PROGRAM, LIGHT_SOL_POOL_PDA, LIGHT_STATE_TREES_V1, LIGHT_STATE_TREES_V2, LIGHT_SYSTEM_PROGRAM,
  v1StateTreeNextIndex, v2OutputQueueCounters,
} from '../../src/sources/localnet/light.js';
import { getCompressSolInstruction, getCompressedTokenPoolAddress } from '../../src/sources/localnet/light-instructions.js';
import { LIGHT_TREE_TYPE, parseLightTransaction, type LightOutputAccount } from '../../src/parsers/light/index.js';
import { startDemoChain } from '../../src/cli/demo-chain.js';
import type { LocalTx } from '../../src/sources/localnet/types.js';
import { genesisStateTrees } from './helpers.js';

const trees = genesisStateTrees;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every transaction of the chain's blocks from `first` on (the open slot must have been produced). */
function txsSince(chain: LocalChain, first: number): LocalTx[] {
  return chain.getBlocks(first, chain.slot).flatMap((s) => chain.getBlock(s)!.transactions);
}
const isLight = (t: LocalTx) => [...t.staticKeys, ...t.loadedAddresses.writable, ...t.loadedAddresses.readonly]
  .some((k) => k === LIGHT_SYSTEM_PROGRAM || k === COMPRESSED_TOKEN_PROGRAM);

/** Runs the chain's slots until `done()` (or fails after `ms`). */
async function runUntil(chain: LocalChain, done: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(3);
    chain.produceSlot();
  }
}

/**
 * Rebuilds the compressed state from the Light transactions (parsed by solgate's parser) and checks it against
 * the chain. Returns what it counted.
 */
function checkLightHistory(chain: LocalChain, txs: LocalTx[], mint: string) {
  const light = txs.filter(isLight);
  const outputs = new Map<string, LightOutputAccount & { spent: boolean }>();
  let solTransfers = 0;
  let tokenTransfers = 0;
  let tokenMints = 0;
  for (const tx of light) {
    expect(tx.meta.err, tx.meta.logMessages.join('\n')).toBeNull();
    const u = parseLightTransaction(toNormalizedTx(tx), { trees });
    expect(u.failures).toEqual([]);
    expect(u.unknownTrees).toEqual([]);
    if (!u.outputAccounts.length) {
      // The mint's creation (create_token_pool) is the one compressed-token transaction without outputs.
      expect(tx.meta.logMessages.join('\n')).toContain('Instruction: CreateTokenPool');
      continue;
    }
    for (const input of u.nullifierQueue) {
      const spent = outputs.get(`${input.tree}:${input.leafIndex}`);
      expect(spent, `input ${input.tree}:${input.leafIndex}`).toBeDefined();
      expect(spent!.treeType).toBe(LIGHT_TREE_TYPE.StateV2);
      expect(spent!.spent).toBe(false);
      expect(input.proveByIndex).toBe(true);
      expect(input.accountHash).toBe(spent!.hash);
      spent!.spent = true;
      for (const o of u.outputAccounts) expect(o.tree, 'outputs stay in the input tree').toBe(input.tree);
    }
    expect(u.inputAccountHashes.length).toBe(u.nullifierQueue.length); // no V1 spend (that would need a prover)
    for (const o of u.outputAccounts) {
      const key = `${o.tree}:${o.leafIndex}`;
      expect(outputs.has(key), key).toBe(false);
      outputs.set(key, { ...o, spent: false });
      if (o.tokenData) expect(o.tokenData.mint).toBe(mint);
    }
    const token = u.outputAccounts.some((o) => o.tokenData);
    if (u.nullifierQueue.length) token ? tokenTransfers++ : solTransfers++;
    else if (token) tokenMints++;
  }
  const all = [...outputs.values()];
  // Tree and queue counters on chain = the outputs seen.
  for (const t of LIGHT_STATE_TREES_V1) {
    expect(Number(v1StateTreeNextIndex(chain.getAccount(t.tree)!.data)), t.tree).toBe(all.filter((o) => o.tree === t.tree).length);
  }
  for (const t of LIGHT_STATE_TREES_V2) {
    const leaves = all.filter((o) => o.tree === t.tree).map((o) => o.leafIndex).sort((a, b) => a - b);
    const next = Number(v2OutputQueueCounters(chain.getAccount(t.queue)!.data).nextIndex);
    expect(leaves, t.queue).toEqual(Array.from({ length: next }, (_, i) => i));
    for (const o of all.filter((x) => x.tree === t.tree)) expect(o.inOutputQueue).toBe(true);
  }
  // Value is conserved: compressed SOL = the SOL pool; compressed tokens = the token pool = the mint's supply.
  const live = all.filter((o) => !o.spent);
  const solLive = live.filter((o) => !o.tokenData).reduce((s, o) => s + o.lamports, 0n);
  expect(chain.getAccount(LIGHT_SOL_POOL_PDA)!.lamports).toBe(solLive);
  const tokenLive = live.reduce((s, o) => s + (o.tokenData?.amount ?? 0n), 0n);
  return { light, all, live, solTransfers, tokenTransfers, tokenMints, solLive, tokenLive };
}

async function tokenPoolAmount(chain: LocalChain, mint: string): Promise<{ pool: bigint; supply: bigint }> {
  const pool = chain.getAccount(await getCompressedTokenPoolAddress(mint))!.data;
  const m = chain.getAccount(mint)!.data;
  const u64 = (d: Uint8Array, at: number) => new DataView(d.buffer, d.byteOffset).getBigUint64(at, true);
  return { pool: u64(pool, 64), supply: u64(m, 36) };
}

describe('demo workload with ZK Compression', () => {
  let net: Localnet;
  beforeAll(async () => {
    net = await createLocalnet({ slotMs: 0, light: true });
  });
  afterAll(async () => net?.close());

  it('compresses SOL into V1 and V2 trees, mints compressed tokens and transfers both by index; every Light transaction lands', async () => {
    const first = net.chain.slot + 1;
    const demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 3 });
    const l = demo.light!;
    expect(l).not.toBeNull();
    await runUntil(net.chain, () => l.stats.solTransfers >= 6 && l.stats.tokenTransfers >= 6 && l.stats.v1Outputs >= 10);
    await demo.stop();
    net.chain.produceSlot();
    expect(demo.stats.errors).toBe(0);
    expect(l.stats.refused).toBe(0);
    expect(l.v2Stopped()).toBe(false);

    const txs = txsSince(net.chain, first);
    const h = checkLightHistory(net.chain, txs, l.mint);
    expect(h.solTransfers).toBe(l.stats.solTransfers);
    expect(h.tokenTransfers).toBe(l.stats.tokenTransfers);
    expect(h.tokenMints).toBe(l.stats.tokenMints);
    expect(h.light.length).toBe(1 + l.stats.compressions + l.stats.tokenMints + l.stats.solTransfers + l.stats.tokenTransfers);
    expect(h.all.filter((o) => o.treeType === LIGHT_TREE_TYPE.StateV1).length).toBe(l.stats.v1Outputs);
    expect(h.all.filter((o) => o.treeType === LIGHT_TREE_TYPE.StateV2).length).toBe(l.stats.v2Outputs);
    // Token outputs in both tree versions; the wallets spread over several V2 trees.
    expect(new Set(h.all.filter((o) => o.tokenData).map((o) => o.treeType))).toEqual(new Set([LIGHT_TREE_TYPE.StateV1, LIGHT_TREE_TYPE.StateV2]));
    expect(new Set(h.all.filter((o) => o.treeType === LIGHT_TREE_TYPE.StateV2).map((o) => o.tree)).size).toBeGreaterThanOrEqual(3);
    const { pool, supply } = await tokenPoolAmount(net.chain, l.mint);
    expect(pool).toBe(h.tokenLive);
    expect(supply).toBe(h.tokenLive);
    // Every wallet holds compressed SOL and compressed tokens; the first (the banner's) holds both kinds in V1 too.
    for (const w of demo.wallets) {
      expect(h.live.some((o) => !o.tokenData && o.owner === w), w).toBe(true);
      expect(h.live.some((o) => o.tokenData?.owner === w), w).toBe(true);
    }
    expect(h.live.some((o) => o.treeType === LIGHT_TREE_TYPE.StateV1 && o.tokenData?.owner === demo.wallets[0])).toBe(true);
    // Transfers moved value between different wallets.
    const recipients = new Set(h.live.filter((o) => o.tokenData).map((o) => o.tokenData!.owner));
    expect(recipients.size).toBe(3);
  });
});

describe('V2 output budget', () => {
  it('stops V2 outputs cleanly at the budget of each queue (and at a queue someone else filled), V1 compressions go on', async () => {
    const net = await createLocalnet({ slotMs: 0, light: true });
    try {
      // Another user fills most of the third V2 queue before the demo starts.
      const other: KeyPairSigner = await generateKeyPairSigner();
      await net.chain.requestAirdrop(other.address, 1_000_000_000_000n);
      net.chain.produceSlot();
      const crowded = LIGHT_STATE_TREES_V2[2];
      for (let i = 0; i < 97; i++) {
        const wire = await buildWireTransaction({ feePayer: other, instructions: [getCompressSolInstruction({ payer: other, lamports: 1_000_000n + BigInt(i), outputTree: crowded })], blockhash: net.chain.latestBlockhash().blockhash });
        expect(net.chain.sendTransaction(wire).kind).toBe('committed');
        if (i % 20 === 19) net.chain.produceSlot();
      }
      net.chain.produceSlot();

      const first = net.chain.slot + 1;
      const logs: { message: string; level: string }[] = [];
      const demo: DemoWorkload = await startDemoWorkload(net.chain, {
        intervalMs: 1, wallets: 2, lightOptions: { v2OutputsPerQueue: 4 },
        log: (message, _c, level) => logs.push({ message, level: level ?? 'debug' }),
      });
      const l = demo.light!;
      await runUntil(net.chain, () => l.v2Stopped());
      const v1AtStop = l.stats.v1Outputs;
      const v2AtStop = l.stats.v2Outputs;
      await runUntil(net.chain, () => l.stats.v1Outputs >= v1AtStop + 8);
      await demo.stop();
      net.chain.produceSlot();

      expect(demo.stats.errors).toBe(0);
      expect(l.stats.refused).toBe(0);
      expect(l.stats.v2Outputs).toBe(v2AtStop); // nothing more after the stop
      expect(l.openV2Queues()).toEqual([]);
      for (const t of LIGHT_STATE_TREES_V2) {
        expect(Number(v2OutputQueueCounters(net.chain.getAccount(t.queue)!.data).nextIndex), t.queue).toBe(t === crowded ? 100 : 4);
      }
      expect(l.stats.v2Outputs).toBe(4 * 4 + 3);
      const stopLines = logs.filter((x) => /V2 activity stopped/.test(x.message));
      expect(stopLines).toHaveLength(1);
      expect(stopLines[0].level).toBe('info');
      expect(logs.filter((x) => x.level === 'warn')).toEqual([]);

      const txs = txsSince(net.chain, first);
      const light = txs.filter(isLight);
      for (const t of light) expect(t.meta.err).toBeNull();
      // The history check needs the other user's outputs too: include them (they are Light transactions as well).
      checkLightHistory(net.chain, txsSince(net.chain, 1), l.mint);
    } finally {
      await net.close();
    }
  });
});

describe('on a chain that starts after slot 0 (serve --demo restarted on an indexed database)', () => {
  it('sets up (lookup table from the SlotHashes sysvar) and runs, Light included', async () => {
    const net = await createLocalnet({ slotMs: 0, light: true, startSlot: 1234 });
    try {
      const demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 2 });
      await runUntil(net.chain, () => demo.stats.sent >= 24);
      await demo.stop();
      net.chain.produceSlot();
      expect(demo.stats.errors).toBe(0);
      const txs = txsSince(net.chain, 1234);
      expect(txs.some((t) => t.loadedAddresses.writable.length > 0)).toBe(true); // v0 transfers through the table
      checkLightHistory(net.chain, txs, demo.light!.mint);
    } finally {
      await net.close();
    }
  });
});

describe('without Light', () => {
  it('runs the plain workload on a chain without the Light genesis, and refuses light: true there', async () => {
    const net = await createLocalnet({ slotMs: 0 });
    try {
      await expect(startDemoWorkload(net.chain, { intervalMs: 1, wallets: 2, light: true })).rejects.toThrow(/no Light programs/);
      const first = net.chain.slot + 1;
      const demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 2 });
      expect(demo.light).toBeNull();
      await runUntil(net.chain, () => demo.stats.sent >= 12);
      await demo.stop();
      net.chain.produceSlot();
      expect(demo.stats.errors).toBe(0);
      const txs = txsSince(net.chain, first);
      expect(txs.length).toBeGreaterThan(12);
      expect(txs.filter(isLight)).toEqual([]);
    } finally {
      await net.close();
    }
  });

  it('light: false keeps a Light chain free of compressed activity', async () => {
    const net = await createLocalnet({ slotMs: 0, light: true });
    try {
      const first = net.chain.slot + 1;
      const demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 2, light: false });
      await runUntil(net.chain, () => demo.stats.sent >= 8);
      await demo.stop();
      net.chain.produceSlot();
      expect(demo.light).toBeNull();
      expect(txsSince(net.chain, first).filter(isLight)).toEqual([]);
    } finally {
      await net.close();
    }
  });
});

describe('over JSON-RPC and through startDemoChain', () => {
  it('runs the compressed activity against a localnet URL with the slot timer', async () => {
    const net = await createLocalnet({ slotMs: 20, light: true });
    try {
      const demo = await startDemoWorkload(net.url, { intervalMs: 2, wallets: 2 });
      const l = demo.light!;
      const end = Date.now() + 60_000;
      while ((l.stats.solTransfers < 2 || l.stats.tokenTransfers < 2) && Date.now() < end) await sleep(10);
      await demo.stop();
      await sleep(60);
      expect(demo.stats.errors).toBe(0);
      expect(l.stats.refused).toBe(0);
      expect(l.stats.solTransfers).toBeGreaterThanOrEqual(2);
      expect(l.stats.tokenTransfers).toBeGreaterThanOrEqual(2);
      checkLightHistory(net.chain, txsSince(net.chain, 1), l.mint);
    } finally {
      await net.close();
    }
  });

  it('startDemoChain (serve --demo, localnet --demo) loads Light unless light is false', async () => {
    const logger = pino({ level: 'silent' });
    const on = await startDemoChain({ port: 0, slotMs: 20, startSlot: 5, logger, light: true });
    try {
      expect(on.lightGenesis).toBe(true);
      expect(on.light?.mint).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      expect(on.light!.stats.tokenMints).toBeGreaterThan(0);
      expect(on.localnet.chain.getAccount(on.light!.mint)?.owner).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    } finally {
      await on.stop();
    }
    const off = await startDemoChain({ port: 0, slotMs: 20, startSlot: 5, logger, light: false });
    try {
      expect(off.lightGenesis).toBe(false);
      expect(off.light).toBeNull();
      expect(off.localnet.chain.getAccount(LIGHT_SYSTEM_PROGRAM)).toBeNull();
      expect(off.wallets).toHaveLength(4);
    } finally {
      await off.stop();
    }
  });
});
