/**
 * End to end, `serve --demo` stopped and started again on the same data directory: the demo chain (with Light) and
 * the RPC poller + ingester run as `serve` runs them (src/cli/demo-chain.ts; shutdown: settle → stop ingestion →
 * stop → save), over one database. The second run must continue the first run's chain from its snapshot — same
 * slots onward, same wallets and balances, the Light trees' leaves and sequence numbers going on — so a V1
 * compressed account created in the second run has a Merkle proof, and so do the first run's (each proof checked
 * here against the root it names, that root against the tree account on chain). Without a snapshot matching the
 * checkpoint a fresh chain starts after it, with a warning that chain state restarted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { address } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { DEMO_SNAPSHOT_DIR, startDemoChain, type DemoChain } from '../../src/cli/demo-chain.js';
import { LocalChain } from '../../src/sources/localnet/index.js';
import { LIGHT_STATE_TREES_V1, v1StateTreeNextIndex } from '../../src/sources/localnet/light.js';
import { createRpcPoller, fetchAccounts } from '../../src/sources/rpc-poller.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { drainAssetIndex } from '../../src/ingest/asset-index.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { queryHoldings, querySolBalance } from '../../src/store/tokens.js';
import { base58ToBytes } from '../../src/core/encoding.js';
import { initPoseidon } from '../../src/proofs/light/poseidon.js';
import { verifyLightProof } from '../../src/proofs/light/merkle-proof.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const V1_TREES = new Set(LIGHT_STATE_TREES_V1.map((t) => t.tree));

let ta: TestApp;
const dataDir = mkdtempSync(join(tmpdir(), 'solgate-demo-restart-'));
const snapshotDir = join(dataDir, DEMO_SNAPSHOT_DIR);
const logs: { level: number; msg: string; [k: string]: unknown }[] = [];
const logger = pino({ level: 'info' }, new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
    done();
  },
}));
const warnings = () => logs.filter((l) => l.level === 40).map((l) => l.msg);

interface Run {
  demo: DemoChain;
  /** What `serve` does on SIGINT: returns the saved slot (null when not saved). */
  shutdown(): Promise<number | null>;
}

/** Starts the demo chain and the ingester on the shared database, as `serve --demo` does. */
async function startRun(): Promise<Run> {
  const cp = await getCheckpoint(ta.t.db);
  const demo = await startDemoChain({
    port: 0, slotMs: 25, startSlot: cp === null ? 0 : cp + 1, logger, light: true, snapshotDir, checkpoint: cp,
    demo: { intervalMs: 4, wallets: 3 },
  });
  const poller = createRpcPoller({ url: demo.url, pollIntervalMs: 20, concurrency: 4, backoffBaseMs: 5 });
  const ingester = createIngester(ta.t.db, pino({ level: 'silent' }), { fetchAccounts: (keys) => fetchAccounts(demo.url, keys) });
  const ctl = new AbortController();
  const running = ingester.run(poller, { startSlot: demo.startSlot, signal: ctl.signal });
  return {
    demo,
    async shutdown() {
      const settled = await demo.settle({ indexedSlot: () => getCheckpoint(ta.t.db), timeoutMs: 60_000 });
      ctl.abort();
      await running;
      await poller.close();
      await demo.stop();
      return settled ? demo.save() : null;
    },
  };
}

async function until(what: string, done: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(20);
  }
}

async function rpc(method: string, params: unknown): Promise<any> {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method, params } });
  const body = r.json();
  expect(body.error, `${method}: ${JSON.stringify(body.error)}`).toBeUndefined();
  return body.result;
}

/** Every indexed V1 compressed SOL account of the wallets. */
async function v1Accounts(wallets: string[]): Promise<{ hash: string; tree: string; leafIndex: number; slotCreated: number }[]> {
  const out = [];
  for (const w of wallets) {
    for (const a of (await rpc('getCompressedAccountsByOwner', { owner: w })).value.items) if (V1_TREES.has(a.tree)) out.push(a);
  }
  return out;
}

const tokenAmount = (chain: LocalChain, account: string) => {
  const d = chain.getAccount(account)!.data;
  return new DataView(d.buffer, d.byteOffset).getBigUint64(64, true);
};

let run1: DemoChain;
let run2: DemoChain;
let saved1: number;
let saved2: number;
/** The first run's chain at its end. */
let end1: { balances: bigint[]; faucet: bigint; v1Next: bigint[] };
let firstV1: Awaited<ReturnType<typeof v1Accounts>>;
/** The first run's NFT holders at its end. */
let holders1: Map<string, string>;

beforeAll(async () => {
  await initPoseidon();
  ta = await createTestApp();
  expect(existsSync(snapshotDir)).toBe(false);

  // Run 1: a fresh chain from slot 0; stop once there is V1 and V2 compressed activity.
  const r1 = await startRun();
  run1 = r1.demo;
  expect(run1.restored).toBe(false);
  const l1 = run1.light!;
  await until('run 1 compressed activity and NFT transfers', () => l1.stats.v1Outputs >= 6 && l1.stats.solTransfers >= 2 && l1.stats.tokenTransfers >= 1 && run1.workload!.assets.stats.nftTransfers >= 2);
  saved1 = (await r1.shutdown())!;
  // What run 2 must start from: the snapshot holds run 1's last state.
  const snap = await LocalChain.loadSnapshot(join(snapshotDir, 'chain'), { slotMs: 0 });
  expect(snap.slot).toBe(saved1);
  for (const w of run1.wallets) expect(snap.getBalance(w)).toBe(run1.localnet.chain.getBalance(w));
  // The NFTs are in it where run 1 left them.
  holders1 = run1.workload!.assets.holders();
  for (const [mint, w] of holders1) {
    const [ata] = await findAssociatedTokenPda({ owner: address(w), mint: address(mint), tokenProgram: address(TOKEN_2022_PROGRAM) });
    expect(tokenAmount(snap, ata), mint).toBe(1n);
  }
  snap.stop();
  const c1 = run1.localnet.chain;
  end1 = {
    balances: run1.wallets.map((w) => c1.getBalance(w)),
    faucet: c1.getBalance(run1.faucet),
    v1Next: LIGHT_STATE_TREES_V1.map((t) => v1StateTreeNextIndex(c1.getAccount(t.tree)!.data)),
  };
  firstV1 = await v1Accounts(run1.wallets);

  // Run 2 on the same database and data directory.
  const r2 = await startRun();
  run2 = r2.demo;
  const l2 = run2.light!;
  await until('run 2 compressed activity and NFT transfers', () => l2.stats.v1Outputs >= 4 && l2.stats.solTransfers + l2.stats.tokenTransfers >= 2 && run2.workload!.assets.stats.nftTransfers >= 2);
  saved2 = (await r2.shutdown())!;
  await drainAssetIndex(ta.t.db); // the DAS list index refreshes in the background after each write
}, 180_000);

afterAll(async () => {
  await run1?.stop();
  await run2?.stop();
  await ta?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('serve --demo restarted on the same data directory', () => {
  it('saves the chain at shutdown once the index has its last slot (atomically: no temporary left behind)', async () => {
    expect(saved1).toBe(run1.localnet.chain.slot);
    expect(saved2).toBe(run2.localnet.chain.slot);
    expect(saved2).toBeGreaterThan(saved1);
    expect(await getCheckpoint(ta.t.db)).toBe(saved2);
    const manifest = JSON.parse(readFileSync(join(snapshotDir, 'manifest.json'), 'utf8'));
    expect(manifest.slot).toBe(saved2);
    expect(existsSync(`${snapshotDir}.tmp`)).toBe(false);
    expect(existsSync(`${snapshotDir}.old`)).toBe(false);
  });

  it('the second run continues the first run\'s chain: slots, wallets, mints, balances, tree leaves', async () => {
    expect(run2.restored).toBe(true);
    expect(run2.startSlot).toBe(saved1 + 1);
    expect(run2.localnet.chain.firstAvailableBlock).toBe(saved1);
    // The first run's shutdown skipped the slots that finalize its last block (the ingester follows the chain at
    // confirmed): the second run's first block comes after them, child of the saved one.
    const { confirmed, finalized } = run1.localnet.chain.finality;
    const first = saved1 + 1 + confirmed + finalized;
    expect(run2.localnet.chain.getBlocks(saved1 + 1, first)).toEqual([first]);
    expect(run2.localnet.chain.getBlock(first)?.parentSlot).toBe(saved1);
    expect(run2.wallets).toEqual(run1.wallets);
    expect(run2.mints).toEqual(run1.mints);
    expect(run2.light!.mint).toBe(run1.light!.mint);
    expect(run2.faucet).toBe(run1.faucet);
    expect(logs.some((l) => l.msg.includes('chain restored from its snapshot'))).toBe(true);
    expect(warnings().filter((m) => /FRESH chain|not saved|could not/.test(m))).toEqual([]);
    // Run 2 went on from the state run 1 ended with: the V1 trees only grew, the faucet was not refilled.
    const c2 = run2.localnet.chain;
    LIGHT_STATE_TREES_V1.forEach((t, k) => expect(v1StateTreeNextIndex(c2.getAccount(t.tree)!.data)).toBeGreaterThan(end1.v1Next[k] - 1n));
    expect(c2.getBalance(run2.faucet)).toBeLessThanOrEqual(end1.faucet);
    expect(c2.getBalance(run2.faucet)).toBeGreaterThan(0n);
    for (const b of end1.balances) expect(b).toBeGreaterThan(0n);
  });

  it('the index and the chain agree on the SOL and token balances of the first run\'s wallets', async () => {
    const c2 = run2.localnet.chain;
    for (const w of run1.wallets) {
      expect(await querySolBalance(ta.t.db, w), w).toBe(c2.getBalance(w));
      const holdings = await queryHoldings(ta.t.db, w);
      for (const mint of [run1.mints.splToken, run1.mints.token2022]) {
        const h = holdings.find((x) => x.mint === mint);
        expect(h, `${w} ${mint}`).toBeDefined();
        const program = mint === run1.mints.splToken ? TOKEN_PROGRAM : TOKEN_2022_PROGRAM;
        const [ata] = await findAssociatedTokenPda({ owner: address(w), mint: address(mint), tokenProgram: address(program) });
        expect(BigInt(h!.amount), `${w} ${mint}`).toBe(tokenAmount(c2, ata));
      }
    }
  });

  it('the demo NFTs survive the restart: same mints and group, holders continued from the chain, DAS answers them', async () => {
    expect(run2.assets).toEqual(run1.assets);
    expect(run2.workload!.resumed).toBe(true);
    const c2 = run2.localnet.chain;
    const a = run2.assets!;
    // Run 2 moved NFTs on from where run 1 left them (holders read back from the restored chain); every move is on chain.
    const holders2 = run2.workload!.assets.holders();
    expect(run2.workload!.assets.stats.nftTransfers).toBeGreaterThanOrEqual(2);
    for (const [mint, w] of holders2) {
      const [ata] = await findAssociatedTokenPda({ owner: address(w), mint: address(mint), tokenProgram: address(TOKEN_2022_PROGRAM) });
      expect(tokenAmount(c2, ata), mint).toBe(1n);
    }
    const group = await rpc('getAsset', { id: a.collection });
    expect(group.mint_extensions.token_group.size).toBe(a.nfts.length); // no second set of members after the restart
    for (const [k, id] of a.nfts.entries()) {
      const asset = await rpc('getAsset', { id });
      expect(asset.content.metadata.name).toBe(`Solgate Demo NFT #${k + 1}`);
      expect(asset.mint_extensions.token_group_member.group).toBe(a.collection);
    }
    for (const w of run2.wallets) {
      const held: string[] = [...holders2].filter(([, h]) => h === w).map(([m]) => m);
      const ids = (await rpc('getAssetsByOwner', { ownerAddress: w, displayOptions: { showFungible: true }, limit: 100 })).items.map((i: any) => i.id);
      for (const m of a.nfts) expect(ids.includes(m), `${w} ${m}`).toBe(held.includes(m));
    }
  });

  it('V1 compressed accounts of both runs have verified Merkle proofs against the tree\'s current root on chain', async () => {
    const all = await v1Accounts(run1.wallets);
    const first = all.filter((a) => a.slotCreated <= saved1);
    const second = all.filter((a) => a.slotCreated > saved1);
    expect(first.map((a) => a.hash).sort()).toEqual(firstV1.map((a) => a.hash).sort());
    expect(second.length).toBeGreaterThan(0);
    // Leaf indexes continue after the first run's in the same tree (no reuse after the restart).
    for (const a of second) {
      const k = LIGHT_STATE_TREES_V1.findIndex((t) => t.tree === a.tree);
      expect(BigInt(a.leafIndex)).toBeGreaterThanOrEqual(end1.v1Next[k]);
    }
    const chain = run2.localnet.chain;
    const check = (p: any, a: { hash: string; tree: string; leafIndex: number }) => {
      expect(p.hash).toBe(a.hash);
      expect(p.merkleTree).toBe(a.tree);
      expect(p.leafIndex).toBe(a.leafIndex);
      expect(verifyLightProof({ root: p.root, leaf: p.hash, proof: p.proof, leafIndex: p.leafIndex }), a.hash).toBe(true);
      // The root is the tree's on chain (its root history holds it).
      expect(Buffer.from(chain.getAccount(a.tree)!.data).indexOf(Buffer.from(base58ToBytes(p.root))), a.hash).toBeGreaterThanOrEqual(0);
    };
    const one = await rpc('getCompressedAccountProof', { hash: second[0].hash });
    check(one.value, second[0]);
    const sample = [...first.slice(0, 4), ...second.slice(0, 4)];
    const many = await rpc('getMultipleCompressedAccountProofs', sample.map((a) => a.hash));
    expect(many.value).toHaveLength(sample.length);
    many.value.forEach((p: any, k: number) => check(p, sample[k]));
  });
});

describe('without a snapshot matching the checkpoint', () => {
  it('starts a fresh chain after the checkpoint and warns that chain state restarted', async () => {
    const cp = (await getCheckpoint(ta.t.db))!;
    const before = logs.length;
    // A snapshot of another database: its last slot is not this checkpoint.
    const other = await startDemoChain({ port: 0, slotMs: 0, startSlot: 0, logger, light: false, snapshotDir, checkpoint: cp + 7 });
    try {
      expect(other.restored).toBe(false);
      expect(other.startSlot).toBe(0);
      expect(other.wallets).not.toEqual(run2.wallets);
    } finally {
      await other.stop();
    }
    const warned = logs.slice(before).filter((l) => l.level === 40);
    expect(warned).toHaveLength(1);
    expect(warned[0].msg).toMatch(/no chain snapshot matches the index checkpoint.*FRESH chain.*Merkle proofs of the earlier run's compressed accounts are no longer available/);
    expect(warned[0].snapshotSlots).toEqual([cp]);

    // No snapshot at all (a crash): the same fallback.
    rmSync(snapshotDir, { recursive: true, force: true });
    const at = logs.length;
    const fresh = await startDemoChain({ port: 0, slotMs: 0, startSlot: cp + 1, logger, light: false, snapshotDir, checkpoint: cp, workload: false });
    try {
      expect(fresh.restored).toBe(false);
      expect(fresh.localnet.chain.slot).toBe(cp + 1);
      expect(fresh.localnet.chain.getBalance(run2.wallets[0])).toBe(0n);
    } finally {
      await fresh.stop();
    }
    expect(logs.slice(at).filter((l) => l.level === 40).map((l) => l.msg)).toEqual([expect.stringMatching(/FRESH chain at slot/)]);
    // Stopping a chain that was not settled saves nothing.
    expect(fresh.save()).toBeNull();
  });
});
