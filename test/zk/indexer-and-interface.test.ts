/**
 * getIndexerSlot / getIndexerHealth (freshness against the cluster tip the ingester reports) and
 * getAccountInterface / getMultipleAccountInterfaces (hot accounts through the injected account fetcher, cold
 * compressed accounts from the store). Data is SYNTHETIC apart from bob's recorded token accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase58 } from '../../src/core/encoding.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import type { AccountUpdate, Address } from '../../src/core/model.js';
import { callRpc } from './harness.js';
import { seedBob, bobAccounts } from './seeded-cases.js';
import { accountRow, BOB, MINT, seedTrees, SMT1, synth, synthField, write } from './seed.js';

describe('getIndexerSlot and getIndexerHealth', () => {
  it('slot = the checkpoint; healthy within the allowed lag of the tip, "Node is behind N slots" beyond it', async () => {
    let tip: number | null = 130;
    const ta = await createTestApp({ ingestStatus: () => ({ lastSlot: 100, tip }) });
    const strict = await createTestApp({ ingestStatus: () => ({ lastSlot: 100, tip: 130 }), zk: { maxLagSlots: 40 } });
    const noTip = await createTestApp();
    try {
      expect((await callRpc(noTip, 'getIndexerSlot', null)).result).toBe(0);
      expect((await callRpc(noTip, 'getIndexerHealth', null)).result).toBe('ok');
      await seedTrees(ta.t.db, 100);
      await seedTrees(strict.t.db, 100);
      expect((await callRpc(ta, 'getIndexerSlot', [])).result).toBe(100);
      expect((await callRpc(ta, 'getIndexerHealth', {})).error).toEqual({ code: -32000, message: 'Node is behind 30 slots' });
      tip = 120;
      expect((await callRpc(ta, 'getIndexerHealth', {})).result).toBe('ok');
      tip = null;
      expect((await callRpc(ta, 'getIndexerHealth', {})).result).toBe('ok');
      expect((await callRpc(strict, 'getIndexerHealth', {})).result).toBe('ok');
    } finally {
      await Promise.all([ta.close(), strict.close(), noTip.close()]);
    }
  });
});

describe('account interfaces', () => {
  const hotKey = synth('iface:hot');
  const addressed = accountRow(
    { hash: synthField('iface:addressed'), address: synth('iface:address'), data: { discriminator: 7, data: 'AQID', dataHash: synthField('iface:dh') }, owner: synth('iface:program'), lamports: 9, leafIndex: 40, seq: 41, slotCreated: 50, tree: SMT1 },
  );
  let ta: TestApp;
  let fetched: string[][] = [];
  beforeAll(async () => {
    const fetchAccounts = async (keys: string[]): Promise<AccountUpdate[]> => {
      fetched.push(keys);
      return keys.map((k) => ({
        pubkey: k as Address,
        owner: '11111111111111111111111111111111' as Address,
        lamports: k === hotKey ? 5000n : 0n,
        data: k === hotKey ? Uint8Array.from([1, 2]) : new Uint8Array(),
        executable: false,
        slot: 60,
        writeVersion: 0n,
      }));
    };
    ta = await createTestApp({ fetchAccounts });
    await seedBob(ta);
    await write(ta.t.db, { accounts: [addressed] });
  });
  afterAll(async () => ta?.close());

  it('a live on-chain account answers hot; a compressed address and token owner answer cold; neither is null', async () => {
    fetched = [];
    const r = await callRpc(ta, 'getMultipleAccountInterfaces', { addresses: [hotKey, addressed.address, BOB, synth('iface:none')] });
    expect(fetched).toEqual([[hotKey, addressed.address, BOB, synth('iface:none')]]);
    const [hot, cold, owner, none] = (r.result as { value: any[] }).value;
    expect(hot).toEqual({ key: hotKey, account: { lamports: 5000, data: 'AQI=', owner: '11111111111111111111111111111111', executable: false, rentEpoch: 0, space: 2 }, cold: null });
    // discriminator (u64 LE) ‖ data
    expect(cold.account).toEqual({ lamports: 9, data: Buffer.from([7, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]).toString('base64'), owner: addressed.owner, executable: false, rentEpoch: 0, space: 11 });
    expect(cold.cold.map((a: { hash: string }) => a.hash)).toEqual([addressed.hash]);
    // bob's two token accounts, the newest synthesised as a 165-byte SPL token account
    expect(owner.cold.map((a: { hash: string }) => a.hash).sort()).toEqual(bobAccounts().live.map((a) => a.hash).sort());
    const spl = base64ToBytes(owner.account.data);
    expect(spl.length).toBe(165);
    expect(bytesToBase58(spl.subarray(0, 32))).toBe(MINT);
    expect(bytesToBase58(spl.subarray(32, 64))).toBe(BOB);
    expect([5n, 100n]).toContain(Buffer.from(spl).readBigUInt64LE(64));
    expect(spl[108]).toBe(1); // SPL state Initialized
    expect(owner.account.owner).toBe('cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m');
    expect(none).toBeNull();
    const one = await callRpc(ta, 'getAccountInterface', { address: hotKey });
    expect(one.result).toEqual({ context: { slot: 0 }, value: hot });
  });
  it('without an account fetcher, only cold accounts answer', async () => {
    const cold = await createTestApp();
    try {
      await seedTrees(cold.t.db);
      await write(cold.t.db, { accounts: [addressed] });
      expect((await callRpc(cold, 'getAccountInterface', { address: hotKey })).result).toEqual({ context: { slot: 0 }, value: null });
      expect(((await callRpc(cold, 'getAccountInterface', { address: addressed.address })).result as any).value.cold).toHaveLength(1);
    } finally {
      await cold.close();
    }
  });
});
