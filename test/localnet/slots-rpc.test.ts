/**
 * Slot production (skipped slots, blockhash rotation and expiry), JSON-RPC envelope behaviour (batches,
 * error codes) and the read methods.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { fundedLocalnet, num, sendTx, signTx, type RpcClient } from './helpers.js';

let net: Localnet;
let rpc: RpcClient;
let payer: KeyPairSigner;

beforeAll(async () => {
  ({ net, rpc, payer } = await fundedLocalnet(5_000_000_000));
});
afterAll(async () => net?.close());

const transfer = async (lamports: bigint) => {
  const to = await generateKeyPairSigner();
  return sendTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: to.address, amount: lamports })]);
};

describe('slots and blocks', () => {
  it('omits skipped slots from getBlocks and errors on getBlock for them', async () => {
    const before = net.chain.produceSlot()!; // an empty block
    net.chain.skipSlots(3);
    const sent = await transfer(1_000_000n);
    const after = net.chain.produceSlot()!;
    expect(after.slot).toBe(before.slot + 4);
    expect(after.parentSlot).toBe(before.slot);
    expect(after.previousBlockhash).toBe(before.blockhash);
    expect(after.transactions.map((t) => t.signature)).toEqual([sent.signature]);

    expect(await rpc.call('getBlocks', [before.slot, after.slot])).toEqual([before.slot, after.slot]);
    expect(await rpc.call('getBlocksWithLimit', [before.slot, 2])).toEqual([before.slot, after.slot]);
    const skipped = await rpc.reply('getBlock', [before.slot + 2, { maxSupportedTransactionVersion: 0 }]);
    expect(skipped.error?.code).toBe(-32007);
    expect(skipped.error?.message).toBe(`Slot ${before.slot + 2} was skipped, or missing due to ledger jump to recent snapshot`);
    const future = await rpc.reply('getBlock', [after.slot + 10]);
    expect(future.error).toEqual({ code: -32004, message: `Block not available for slot ${after.slot + 10}` });

    const block = await rpc.call('getBlock', [after.slot, { transactionDetails: 'signatures' }]);
    expect(block).toMatchObject({ parentSlot: before.slot, blockHeight: before.blockHeight + 1, signatures: [sent.signature], rewards: [] });
    const none = await rpc.call('getBlock', [after.slot, { transactionDetails: 'none', rewards: false }]);
    expect(Object.keys(none).sort()).toEqual(['blockHeight', 'blockTime', 'blockhash', 'parentSlot', 'previousBlockhash']);
    expect(await rpc.call('getSlot')).toBe(after.slot);
    expect(await rpc.call('getBlockHeight')).toBe(after.blockHeight);
  });

  it('skips empty slots when configured, producing blocks only for slots with transactions', async () => {
    const n2 = await createLocalnet({ slotMs: 0, emptySlots: 'skip', startSlot: 1_000 });
    try {
      const start = n2.chain.slot;
      expect(start).toBe(1_000);
      expect(n2.chain.firstAvailableBlock).toBe(1_000);
      expect(n2.chain.produceSlot()).toBeNull();
      expect(n2.chain.produceSlot()).toBeNull();
      await n2.chain.requestAirdrop(payer.address, 1_000_000n);
      const b = n2.chain.produceSlot()!;
      expect(b.slot).toBe(start + 3);
      expect(b.parentSlot).toBe(start);
      expect(n2.chain.getBlocks(start, b.slot)).toEqual([start, b.slot]);
    } finally {
      await n2.close();
    }
  });

  it('gives every block its own blockhash and expires blockhashes after 150 blocks', async () => {
    const { value: latest } = await rpc.call('getLatestBlockhash');
    const old = await signTx(payer, [getTransferSolInstruction({ source: payer, destination: (await generateKeyPairSigner()).address, amount: 1_000_000n })], latest.blockhash);
    const hashes = new Set<string>();
    for (let i = 0; i < 151; i++) hashes.add(net.chain.produceSlot()!.blockhash);
    expect(hashes.size).toBe(151);
    expect((await rpc.call('isBlockhashValid', [latest.blockhash])).value).toBe(false);
    const { value: fresh } = await rpc.call('getLatestBlockhash');
    expect((await rpc.call('isBlockhashValid', [fresh.blockhash])).value).toBe(true);
    expect(fresh.lastValidBlockHeight).toBe((await rpc.call('getBlockHeight')) + 150);

    const r = await rpc.reply('sendTransaction', [old.base64, { encoding: 'base64' }]);
    expect(r.error?.code).toBe(-32002);
    expect(r.error?.message).toBe('Transaction simulation failed: Blockhash not found');
    expect(r.error?.data.err).toBe('BlockhashNotFound');
  });

  it('rejects a duplicate transaction and a bad signature', async () => {
    const sent = await transfer(1_000_000n);
    const dup = await rpc.reply('sendTransaction', [sent.base64, { encoding: 'base64' }]);
    expect(dup.error?.data.err).toBe('AlreadyProcessed');
    const bytes = Buffer.from(sent.base64, 'base64');
    bytes[5] ^= 0xff; // corrupt the signature
    const bad = await rpc.reply('sendTransaction', [bytes.toString('base64'), { encoding: 'base64', skipPreflight: true }]);
    expect(bad.error?.code).toBe(-32003);
    net.chain.produceSlot();
  });
});

describe('JSON-RPC envelope', () => {
  it('answers batches in order, with per-item errors', async () => {
    const out = await rpc.raw([
      { jsonrpc: '2.0', id: 1, method: 'getSlot' },
      { jsonrpc: '2.0', id: 'b', method: 'getBalance', params: [payer.address] },
      { jsonrpc: '2.0', id: 3, method: 'noSuchMethod' },
      { jsonrpc: '2.0', id: 4, method: 'getBalance', params: ['not-an-address'] },
      { jsonrpc: '2.0', id: 5, method: 'getBlock', params: ['x'] },
      { id: 6, method: 'getSlot' },
    ]);
    expect(out).toHaveLength(6);
    expect(out[0]).toEqual({ jsonrpc: '2.0', result: net.chain.slot, id: 1 });
    expect(out[1].id).toBe('b');
    expect(out[1].result.context.slot).toBe(net.chain.slot);
    expect(out[2]).toEqual({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 3 });
    expect(out[3].error.code).toBe(-32602);
    expect(out[4].error.code).toBe(-32602);
    expect(out[5].error.code).toBe(-32600);
    expect(await rpc.raw('{"jsonrpc":"2.0",')).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    expect((await rpc.raw([])).error.code).toBe(-32600);
  });

  it('serves the misc methods with real shapes', async () => {
    expect(await rpc.call('getHealth')).toBe('ok');
    expect(typeof (await rpc.call('getGenesisHash'))).toBe('string');
    expect(await rpc.call('getVersion')).toMatchObject({ 'solana-core': expect.any(String), 'feature-set': expect.any(Number) });
    expect(await rpc.call('getFirstAvailableBlock')).toBe(0);
    expect(await rpc.call('getMinimumBalanceForRentExemption', [0])).toBe(890880);
    const epoch = await rpc.call('getEpochInfo');
    expect(epoch).toMatchObject({ absoluteSlot: net.chain.slot, blockHeight: net.chain.blockHeight, epoch: 0, slotsInEpoch: 432000 });
    expect(epoch.transactionCount).toBeGreaterThan(0);

    const info = await rpc.call('getAccountInfo', [payer.address, { encoding: 'base64', commitment: 'finalized' }]);
    expect(info.value).toMatchObject({ data: ['', 'base64'], executable: false, owner: '11111111111111111111111111111111', space: 0 });
    expect(num(info.value.rentEpoch)).toBe(18446744073709551615n);
    expect(num(info.value.lamports)).toBe(num((await rpc.call('getBalance', [payer.address])).value));
    const missing = (await generateKeyPairSigner()).address;
    const multi = await rpc.call('getMultipleAccounts', [[payer.address, missing], { encoding: 'base58' }]);
    expect(multi.value[0].data).toEqual(['', 'base58']);
    expect(multi.value[1]).toBeNull();
    const token = await rpc.call('getAccountInfo', ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', { encoding: 'base64' }]);
    expect(token.value.executable).toBe(true);
    // The faucet holds more than 2^53 lamports: the JSON number must stay exact.
    const faucet = await rpc.call('getBalance', [net.chain.faucet.address]);
    expect(num(faucet.value)).toBe(net.chain.getBalance(net.chain.faucet.address));
  });

  it('simulates without executing', async () => {
    const to = await generateKeyPairSigner();
    const { value } = await rpc.call('getLatestBlockhash');
    const tx = await signTx(payer, [getTransferSolInstruction({ source: payer, destination: to.address, amount: 3_000_000n })], value.blockhash);
    const sim = await rpc.call('simulateTransaction', [tx.base64, { encoding: 'base64', accounts: { addresses: [to.address], encoding: 'base64' } }]);
    expect(sim.value.err).toBeNull();
    expect(sim.value.logs.length).toBeGreaterThan(0);
    expect(num(sim.value.accounts[0].lamports)).toBe(3_000_000n);
    expect(num((await rpc.call('getBalance', [to.address])).value)).toBe(0n);
    const replaced = await rpc.call('simulateTransaction', [tx.base64, { encoding: 'base64', replaceRecentBlockhash: true }]);
    expect(replaced.value.replacementBlockhash.blockhash).toBe(value.blockhash);
  });
});
