/**
 * Address lookup tables (v0 transactions and `meta.loadedAddresses`), the demo workload (SPL Token and
 * Token-2022 traffic, failures), snapshots, and the in-process block source.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getCreateLookupTableInstruction, getExtendLookupTableInstruction } from '../../src/sources/localnet/alt.js';
import { createLocalnet, LocalnetBlockSource, startDemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { findTx, num, rpcClient, sendTx, setupSplMint, type RpcClient } from './helpers.js';

const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
let net: Localnet;
let rpc: RpcClient;
let payer: KeyPairSigner;
/** Fee-formula disagreements reported by the chain (failed transactions are checked against LiteSVM's charge). */
const warnings: unknown[] = [];

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0, warn: (message, context) => warnings.push({ message, context }) });
  rpc = rpcClient(net.url);
  payer = await generateKeyPairSigner();
  await rpc.call('requestAirdrop', [payer.address, 5_000_000_000]);
  net.chain.produceSlot();
});
afterAll(async () => net?.close());

describe('address lookup tables', () => {
  it('executes a v0 transaction with loaded accounts and reports loadedAddresses', async () => {
    const other = await generateKeyPairSigner();
    const recipient = (await generateKeyPairSigner()).address;
    const { mint, atas } = await setupSplMint(rpc, payer, 2, [payer.address, other.address], 10_000n);
    const tableAddresses: Address[] = [recipient, atas[1], mint];
    const created = await getCreateLookupTableInstruction({ authority: payer.address, payer: payer.address, recentSlot: BigInt(await rpc.call('getSlot')) });
    const setup = await sendTx(rpc, payer, [created.instruction, getExtendLookupTableInstruction({ table: created.table, authority: payer.address, payer: payer.address, addresses: tableAddresses })]);
    expect(setup.reply.error).toBeUndefined();
    net.chain.produceSlot(); // extended addresses become usable in the next slot

    const lamports = 2_000_000n;
    const tokens = 1_234n;
    const sent = await sendTx(rpc, payer, [
      getTransferSolInstruction({ source: payer, destination: recipient, amount: lamports }),
      spl.getTransferCheckedInstruction({ source: atas[0], mint, destination: atas[1], authority: payer, amount: tokens, decimals: 2 }),
    ], { version: 0, lookupTables: { [created.table]: tableAddresses } as Record<Address, Address[]> });
    expect(sent.reply.error).toBeUndefined();
    const block = net.chain.produceSlot()!;

    const legacyClient = await rpc.reply('getBlock', [block.slot, { encoding: 'json' }]);
    expect(legacyClient.error?.code).toBe(-32015);
    expect((await rpc.reply('getTransaction', [sent.signature])).error?.code).toBe(-32015);

    const tx = findTx(await rpc.call('getBlock', [block.slot, { encoding: 'json', maxSupportedTransactionVersion: 0 }]), sent.signature);
    expect(tx.version).toBe(0);
    const [lookup] = tx.transaction.message.addressTableLookups;
    expect(lookup.accountKey).toBe(created.table);
    const writable = lookup.writableIndexes.map((i: number) => tableAddresses[i]);
    const readonly = lookup.readonlyIndexes.map((i: number) => tableAddresses[i]);
    expect(tx.meta.loadedAddresses).toEqual({ writable, readonly });
    expect(new Set(writable)).toEqual(new Set([recipient, atas[1]]));
    expect(readonly).toEqual([mint]);

    const keys: string[] = [...tx.transaction.message.accountKeys, ...writable, ...readonly];
    expect(tx.meta.preBalances).toHaveLength(keys.length);
    const r = keys.indexOf(recipient);
    expect(num(tx.meta.preBalances[r])).toBe(0n);
    expect(num(tx.meta.postBalances[r])).toBe(lamports);
    expect(num(tx.meta.fee)).toBe(5000n);
    const dst = keys.indexOf(atas[1]);
    expect(tx.meta.postTokenBalances.find((b: any) => b.accountIndex === dst).uiTokenAmount).toEqual({ amount: '1234', decimals: 2, uiAmount: 12.34, uiAmountString: '12.34' });
    expect((await rpc.call('getSignaturesForAddress', [recipient]))[0].signature).toBe(sent.signature);
  });
});

describe('fees of failed transactions', () => {
  it('charges 5000 + ceil(price × limit / 1e6) on a failed transaction with a priority fee', async () => {
    const to = (await generateKeyPairSigner()).address;
    const sent = await sendTx(rpc, payer, [
      getSetComputeUnitLimitInstruction({ units: 50_000 }),
      getSetComputeUnitPriceInstruction({ microLamports: 3_333n }), // ceil(3333 × 50000 / 1e6) = ceil(166.65) = 167
      getTransferSolInstruction({ source: payer, destination: to, amount: 10n ** 15n }),
    ], { skipPreflight: true });
    const block = net.chain.produceSlot()!;
    const tx = findTx(await rpc.call('getBlock', [block.slot, { maxSupportedTransactionVersion: 0 }]), sent.signature);
    expect(tx.meta.err).toEqual({ InstructionError: [2, { Custom: 1 }] });
    expect(num(tx.meta.fee)).toBe(5000n + 167n);
    expect(num(tx.meta.preBalances[0]) - num(tx.meta.postBalances[0])).toBe(5000n + 167n);
    expect(warnings).toEqual([]);
  });
});

describe('demo workload', () => {
  it('produces SPL Token and Token-2022 transfers, v0 lookups and failures with charged fees', async () => {
    const demo = await startDemoWorkload(net.chain, { intervalMs: 2, failureRate: 0.25, wallets: 3 });
    expect(demo.wallets).toHaveLength(3);
    const first = net.chain.slot + 1;
    while (demo.stats.sent < 45) {
      await new Promise((r) => setTimeout(r, 10));
      net.chain.produceSlot();
    }
    await demo.stop();
    net.chain.produceSlot();
    expect(demo.stats.errors).toBe(0);
    const txs = net.chain.getBlocks(first, net.chain.slot).flatMap((s) => net.chain.getBlock(s)!.transactions);
    const t22 = txs.filter((t) => t.meta.postTokenBalances.some((b) => b.programId === TOKEN_2022 && b.mint === demo.mints.token2022));
    const splTx = txs.filter((t) => t.meta.postTokenBalances.some((b) => b.mint === demo.mints.splToken));
    const failed = txs.filter((t) => t.meta.err !== null);
    expect(t22.length).toBeGreaterThan(0);
    expect(splTx.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    expect(txs.some((t) => t.loadedAddresses.writable.length > 0)).toBe(true);
    for (const t of failed) expect(t.meta.preBalances[0] - t.meta.postBalances[0]).toBe(t.meta.fee);
    expect(warnings).toEqual([]);
    for (const t of txs) expect(t.meta.preBalances[0] - t.meta.postBalances[0]).toBeGreaterThanOrEqual(t.meta.fee);
    const mintInfo = net.chain.getAccount(demo.mints.token2022)!;
    expect(mintInfo.owner).toBe(TOKEN_2022);
    expect(mintInfo.data.length).toBeGreaterThan(165); // carries extensions
  });

  it('runs against a JSON-RPC URL with the slot timer', async () => {
    const n2 = await createLocalnet({ slotMs: 20 });
    try {
      const demo = await startDemoWorkload(n2.url, { intervalMs: 5, wallets: 2 });
      while (demo.stats.sent < 6) await new Promise((r) => setTimeout(r, 10));
      await demo.stop();
      await new Promise((r) => setTimeout(r, 60));
      const sigs = await rpcClient(n2.url).call('getSignaturesForAddress', [demo.wallets[1]]);
      expect(sigs.length).toBeGreaterThan(0);
    } finally {
      await n2.close();
    }
  });
});

describe('snapshots and block source', () => {
  it('restarts from a snapshot with state, slot and blockhash window intact', async () => {
    const to = (await generateKeyPairSigner()).address;
    await sendTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: to, amount: 7_000_000n })]);
    const last = net.chain.produceSlot()!;
    const { value: bh } = await rpc.call('getLatestBlockhash');
    const path = join(mkdtempSync(join(tmpdir(), 'solgate-localnet-')), 'chain.snap');
    net.chain.saveSnapshot(path);
    const restored = await createLocalnet({ slotMs: 0, snapshot: path });
    try {
      const r2 = rpcClient(restored.url);
      expect(await r2.call('getSlot')).toBe(last.slot);
      expect(await r2.call('getFirstAvailableBlock')).toBe(last.slot);
      expect(num((await r2.call('getBalance', [to])).value)).toBe(7_000_000n);
      expect(restored.chain.faucet.address).toBe(net.chain.faucet.address);
      expect((await r2.call('isBlockhashValid', [bh.blockhash])).value).toBe(true);
      const sent = await sendTx(r2, payer, [getTransferSolInstruction({ source: payer, destination: to, amount: 1_000_000n })]);
      expect(sent.reply.error).toBeUndefined();
      const b = restored.chain.produceSlot()!;
      expect(b.parentSlot).toBe(last.slot);
      expect(b.previousBlockhash).toBe(last.blockhash);
      expect((await r2.reply('getBlock', [last.slot - 1])).error?.code).toBe(-32001);
      restored.chain.recycle();
      expect(restored.chain.getBalance(to)).toBe(8_000_000n);
    } finally {
      await restored.close();
    }
  });

  it('streams blocks in order through the in-process BlockSource', async () => {
    const from = net.chain.slot;
    const ac = new AbortController();
    const seen: number[] = [];
    const done = (async () => {
      for await (const b of new LocalnetBlockSource(net.chain).blocks(from, ac.signal)) {
        seen.push(b.slot);
        if (seen.length === 3) ac.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 10));
    net.chain.produceSlot();
    net.chain.skipSlots(1);
    await sendTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: payer.address, amount: 0n })]);
    const b = net.chain.produceSlot()!;
    await done;
    expect(seen).toEqual([from, from + 1, b.slot]);
    expect(b.slot).toBe(from + 3);
  });
});
