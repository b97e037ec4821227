/**
 * The localnet's ledger (`block-store.ts`): only the most recent blocks stay in memory, older retained ones are read
 * back from segment files, and every read answers as if everything were in memory — checked against a plain
 * in-memory reference, then end to end through the JSON-RPC of a chain whose history left its in-memory window.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { BlockStore, allKeys } from '../../src/sources/localnet/block-store.js';
import type { LocalBlock, LocalTx } from '../../src/sources/localnet/types.js';
import { fundedLocalnet, sendTx, type RpcClient } from './helpers.js';
import type { Localnet } from '../../src/sources/localnet/index.js';

const ADDRS = ['A1', 'B2', 'C3', 'D4', 'E5'];

function tx(slot: number, index: number, keys: string[]): LocalTx {
  const wire = new Uint8Array([slot & 255, index, 1, 2, 3]);
  return {
    wire, messageBytes: wire.subarray(1), signatures: [`sig-${slot}-${index}`], version: index % 2 ? 0 : 'legacy',
    header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
    staticKeys: keys.slice(0, 2), recentBlockhash: `hash-${slot - 1}`,
    instructions: [{ programIdIndex: 1, accounts: [0], data: new Uint8Array([index]), stackHeight: null }],
    addressTableLookups: [], signature: `sig-${slot}-${index}`,
    loadedAddresses: { writable: keys.slice(2), readonly: [] }, slot, indexInBlock: index, blockTime: 1_700_000_000 + slot,
    meta: {
      err: index === 2 ? { InstructionError: [0, { Custom: 1 }] } : null, fee: 5000n, preBalances: [10n ** 12n, 1n], postBalances: [10n ** 12n - 5000n, 1n],
      preTokenBalances: [], postTokenBalances: [], innerInstructions: [], logMessages: [`log ${slot}/${index}`],
      computeUnitsConsumed: 150n, returnData: null,
    },
    memo: index === 1 ? '[3] hey' : null,
  };
}

/** Block `slot` with `slot % 4` transactions, each mentioning some of ADDRS (deterministic). */
function block(slot: number): LocalBlock {
  const txs = Array.from({ length: slot % 4 }, (_, i) => tx(slot, i, ADDRS.filter((_, k) => (slot + i + k) % 3 === 0).concat('P0')));
  return { slot, parentSlot: slot - 1, blockhash: `hash-${slot}`, previousBlockhash: `hash-${slot - 1}`, blockTime: 1_700_000_000 + slot, blockHeight: slot, transactions: txs };
}

/**
 * The RPC's rule over an in-memory ledger: the address's transactions newest first, strictly older than `before` and
 * strictly newer than `until`, both positions of any ledger transaction; an unknown `before` gives nothing, an
 * unknown `until` no stop.
 */
function reference(blocks: LocalBlock[], address: string, o: { before?: string; until?: string; limit: number }): string[] {
  const ledger = blocks.flatMap((b) => b.transactions);
  const at = (sig: string | undefined) => ledger.findIndex((t) => t.signature === sig);
  if (o.before !== undefined && at(o.before) < 0) return [];
  const hi = o.before === undefined ? ledger.length : at(o.before);
  const lo = o.until === undefined ? -1 : at(o.until);
  const out: string[] = [];
  for (let i = hi - 1; i > lo && out.length < o.limit; i--) if (allKeys(ledger[i]).includes(address)) out.push(ledger[i].signature);
  return out;
}

describe('BlockStore', () => {
  it('keeps only the hot window in memory and answers every read over the retained history as before', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sg-ledger-test-')), 'ledger');
    const store = new BlockStore(40, { hotBlocks: 5, dir, segmentBlocks: 6 });
    const all: LocalBlock[] = [];
    // Skipped slots (every 7th) are simply absent, as on a real cluster.
    for (let s = 1; s <= 120; s++) {
      if (s % 7 === 0) continue;
      const b = block(s);
      all.push(b);
      store.add(b);
      expect(store.blocksInMemory).toBeLessThanOrEqual(5);
    }
    const retained = all.slice(-40);
    expect(store.first).toBe(retained[0].slot);
    expect(store.last).toBe(all[all.length - 1]);
    expect(store.range(0, 1_000)).toEqual(retained.map((b) => b.slot));
    expect(store.range(retained[3].slot, retained[9].slot, 4)).toEqual(retained.slice(3, 7).map((b) => b.slot));
    expect(store.transactionCount).toBe(all.reduce((n, b) => n + b.transactions.length, 0));
    // Every retained block and transaction reads back equal (bigints, byte arrays, errors, memos included).
    for (const b of retained) {
      expect(store.get(b.slot)).toEqual(b);
      for (const t of b.transactions) {
        expect(store.transaction(t.signature)).toEqual(t);
        expect(store.hasTransaction(t.signature)).toBe(true);
      }
    }
    // Dropped blocks and their transactions are gone.
    const dropped = all[0];
    expect(store.get(dropped.slot)).toBeUndefined();
    expect(store.get(7)).toBeUndefined();
    for (const t of all.slice(0, -40).flatMap((b) => b.transactions)) {
      expect(store.transaction(t.signature)).toBeUndefined();
      expect(store.hasTransaction(t.signature)).toBe(false);
    }
    // getSignaturesForAddress: pages, before/until inside and across the cold part, unknown signatures.
    const sigs = retained.flatMap((b) => b.transactions).map((t) => t.signature);
    for (const address of [...ADDRS, 'P0', 'nobody']) {
      const cases = [
        { limit: 1000 }, { limit: 3 }, { before: sigs[sigs.length - 2], limit: 5 }, { before: sigs[4], limit: 1000 },
        { until: sigs[3], limit: 1000 }, { before: sigs[20], until: sigs[5], limit: 1000 }, { before: sigs[5], until: sigs[20], limit: 10 },
        { before: 'sig-unknown', limit: 10 }, { until: 'sig-unknown', limit: 4 }, { before: sigs[10], until: sigs[10], limit: 10 },
      ];
      for (const c of cases) {
        expect(store.signaturesFor(address, c).map((t) => t.signature), `${address} ${JSON.stringify(c)}`).toEqual(reference(retained, address, c));
      }
    }
    // Segment files of fully dropped blocks are deleted: what is on disk is about the cold part of the ledger.
    const files = readdirSync(dir);
    expect(files.length).toBeLessThanOrEqual(Math.ceil((40 - 5) / 6) + 1);
    store.close();
    expect(existsSync(dir)).toBe(false);
    // The hot window still answers after close.
    expect(store.last.slot).toBe(all[all.length - 1].slot);
  });

  it('keeps every block by default, with a bounded number of ledger files open however many there are', () => {
    const fds = () => readdirSync('/proc/self/fd').length;
    const dir = join(mkdtempSync(join(tmpdir(), 'sg-ledger-test-')), 'ledger');
    const store = new BlockStore(Infinity, { hotBlocks: 2, dir, segmentBlocks: 2 });
    const open = fds();
    const all: LocalBlock[] = [];
    for (let s = 1; s <= 400; s++) {
      all.push(block(s));
      store.add(all[all.length - 1]);
    }
    expect(readdirSync(dir).length).toBe(199); // 398 cold blocks, two per file
    expect(store.first).toBe(1);
    for (const b of all) expect(store.get(b.slot)).toEqual(b);
    expect(fds() - open).toBeLessThanOrEqual(10);
    const sigs = all.flatMap((b) => b.transactions).map((t) => t.signature);
    expect(store.signaturesFor('P0', { limit: 1000 }).map((t) => t.signature)).toEqual([...sigs].reverse());
    store.close();
    expect(fds()).toBeLessThanOrEqual(open);
  });

  it('writes nothing to disk while the history fits in the hot window', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sg-ledger-test-')), 'ledger');
    const store = new BlockStore(3, { hotBlocks: 8, dir });
    for (let s = 1; s <= 20; s++) store.add(block(s));
    expect(store.range(0, 100)).toEqual([18, 19, 20]);
    expect(store.get(17)).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
    store.close();
  });
});

describe('localnet history beyond the in-memory window', () => {
  let net: Localnet;
  let rpc: RpcClient;
  let payer: KeyPairSigner;
  beforeAll(async () => {
    ({ net, rpc, payer } = await fundedLocalnet(5_000_000_000, { hotBlocks: 2 }));
  });
  afterAll(async () => net?.close());

  it('serves getBlock, getTransaction, getSignaturesForAddress and getSignatureStatuses from the ledger files', async () => {
    const to = await generateKeyPairSigner();
    const sent = await sendTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: to.address, amount: 1_000_000n })]);
    const landed = net.chain.produceSlot()!;
    for (let i = 0; i < 10; i++) net.chain.produceSlot();
    const cold = await rpc.call('getBlock', [landed.slot, { maxSupportedTransactionVersion: 0, transactionDetails: 'signatures' }]);
    expect(cold).toMatchObject({ blockhash: landed.blockhash, signatures: [sent.signature] });
    const txJson = await rpc.call('getTransaction', [sent.signature, { maxSupportedTransactionVersion: 0 }]);
    expect(txJson).toMatchObject({ slot: landed.slot, meta: { err: null } });
    const sigs = await rpc.call('getSignaturesForAddress', [to.address]);
    expect(sigs).toEqual([expect.objectContaining({ signature: sent.signature, slot: landed.slot, err: null })]);
    const status = await rpc.call('getSignatureStatuses', [[sent.signature]]);
    expect(status.value[0]).toMatchObject({ slot: landed.slot, confirmationStatus: 'finalized' });
    // The same signature cannot land twice, even once its block left memory.
    const count = net.chain.transactionCount;
    await rpc.reply('sendTransaction', [sent.base64, { encoding: 'base64', skipPreflight: true }]);
    net.chain.produceSlot();
    expect(net.chain.transactionCount).toBe(count);
    expect(net.chain.getSignaturesForAddress(to.address)).toHaveLength(1);
  });
});
