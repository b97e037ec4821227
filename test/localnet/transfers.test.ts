/**
 * SOL and SPL Token transfers sent through HTTP `sendTransaction` show up in `getBlock` (json and base64) and
 * `getTransaction` with balances, token balances and fees derived from what the test sent; under `jsonParsed`, with
 * annotated keys and the System and Memo instructions parsed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { MEMO_PROGRAM, SYSTEM_PROGRAM, TOKEN_PROGRAM } from '../../src/core/programs.js';
import type { Localnet } from '../../src/sources/localnet/index.js';
import { findTx, fundedLocalnet, num, sendTx, setupSplMint, type RpcClient } from './helpers.js';

const LAMPORTS_PER_SIGNATURE = 5000n;
const BLOCK_OPTS = { encoding: 'json', maxSupportedTransactionVersion: 0, transactionDetails: 'full', rewards: false };

let net: Localnet;
let rpc: RpcClient;
let payer: KeyPairSigner;

beforeAll(async () => {
  ({ net, rpc, payer } = await fundedLocalnet(10_000_000_000));
});
afterAll(async () => net?.close());

describe('localnet SOL transfer', () => {
  it('records balances and fee in getBlock (json + base64) and getTransaction', async () => {
    const recipient = await generateKeyPairSigner();
    const amount = 1_234_567n;
    const payerBefore = num((await rpc.call('getBalance', [payer.address])).value);
    const sent = await sendTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: recipient.address, amount })]);
    expect(sent.reply.error).toBeUndefined();
    expect(sent.reply.result).toBe(sent.signature);
    const block = net.chain.produceSlot()!;

    const json = await rpc.call('getBlock', [block.slot, BLOCK_OPTS]);
    const tx = findTx(json, sent.signature);
    expect(tx.version).toBe('legacy');
    const keys: string[] = tx.transaction.message.accountKeys;
    const p = keys.indexOf(payer.address);
    const r = keys.indexOf(recipient.address);
    expect(p).toBe(0);
    expect(tx.meta.err).toBeNull();
    expect(tx.meta.status).toEqual({ Ok: null });
    expect(num(tx.meta.fee)).toBe(LAMPORTS_PER_SIGNATURE);
    expect(num(tx.meta.preBalances[p])).toBe(payerBefore);
    expect(num(tx.meta.postBalances[p])).toBe(payerBefore - amount - LAMPORTS_PER_SIGNATURE);
    expect(num(tx.meta.preBalances[r])).toBe(0n);
    expect(num(tx.meta.postBalances[r])).toBe(amount);
    expect(tx.meta.preTokenBalances).toEqual([]);
    expect(tx.meta.innerInstructions).toEqual([]);
    expect(tx.meta.loadedAddresses).toEqual({ writable: [], readonly: [] });
    expect(tx.meta.logMessages.length).toBeGreaterThan(0);
    expect(tx.transaction.message.instructions[0]).toMatchObject({ programIdIndex: keys.indexOf('11111111111111111111111111111111'), stackHeight: null });
    expect(json.blockhash).not.toBe(json.previousBlockhash);
    expect('rewards' in json).toBe(false);

    const b64 = await rpc.call('getBlock', [block.slot, { ...BLOCK_OPTS, encoding: 'base64' }]);
    const i = json.transactions.indexOf(tx);
    expect(b64.transactions[i].transaction).toEqual([sent.base64, 'base64']);
    expect(b64.transactions[i].meta).toEqual(tx.meta);

    const got = await rpc.call('getTransaction', [sent.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    expect(got.slot).toBe(block.slot);
    expect(got.blockTime).toBe(json.blockTime);
    expect(got.transaction).toEqual(tx.transaction);
    expect(got.meta).toEqual(tx.meta);
    const got64 = await rpc.call('getTransaction', [sent.signature, { encoding: 'base64' }]);
    expect(got64.transaction).toEqual([sent.base64, 'base64']);

    const statuses = await rpc.call('getSignatureStatuses', [[sent.signature]]);
    expect(statuses.value[0]).toMatchObject({ slot: block.slot, err: null, confirmationStatus: 'finalized', status: { Ok: null } });
    expect(num((await rpc.call('getBalance', [recipient.address])).value)).toBe(amount);
  });

  it('charges the priority fee: ceil(price × limit / 1e6) on top of 5000 per signature', async () => {
    const recipient = await generateKeyPairSigner();
    const amount = 2_000_000n;
    // Explicit limit: 10 000 CU at 1 000 000 micro-lamports = 10 000 lamports.
    const a = await sendTx(rpc, payer, [
      getSetComputeUnitLimitInstruction({ units: 10_000 }),
      getSetComputeUnitPriceInstruction({ microLamports: 1_000_000n }),
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount }),
    ]);
    // Default limit: three builtin instructions × 3 000 CU at 1 001 micro-lamports = ceil(9.009) = 10 lamports.
    const b = await sendTx(rpc, payer, [
      getSetComputeUnitPriceInstruction({ microLamports: 1_001n }),
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount }),
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount }),
    ]);
    const block = net.chain.produceSlot()!;
    const json = await rpc.call('getBlock', [block.slot, BLOCK_OPTS]);
    const ta = findTx(json, a.signature);
    const tb = findTx(json, b.signature);
    expect(num(ta.meta.fee)).toBe(LAMPORTS_PER_SIGNATURE + 10_000n);
    expect(num(tb.meta.fee)).toBe(LAMPORTS_PER_SIGNATURE + 10n);
    expect(num(ta.meta.preBalances[0]) - num(ta.meta.postBalances[0])).toBe(amount + num(ta.meta.fee));
    expect(num(tb.meta.preBalances[0]) - num(tb.meta.postBalances[0])).toBe(2n * amount + num(tb.meta.fee));
  });
});

describe('localnet SPL token transferChecked', () => {
  let owner2: KeyPairSigner;
  let mint: string;
  let atas: string[];
  const DECIMALS = 6;
  const MINTED = 10_000_000n; // 10 tokens

  beforeAll(async () => {
    owner2 = await generateKeyPairSigner();
    ({ mint, atas } = (await setupSplMint(rpc, payer, DECIMALS, [payer.address, owner2.address], MINTED)) as { mint: string; atas: string[] });
    net.chain.produceSlot();
  });

  it('records pre/post token balances with mint, owner, program and UI amounts', async () => {
    const amount = 2_500_000n; // 2.5 tokens
    const sent = await sendTx(rpc, payer, [
      spl.getTransferCheckedInstruction({ source: atas[0] as any, mint: mint as any, destination: atas[1] as any, authority: payer, amount, decimals: DECIMALS }),
    ]);
    expect(sent.reply.error).toBeUndefined();
    const block = net.chain.produceSlot()!;
    const tx = findTx(await rpc.call('getBlock', [block.slot, BLOCK_OPTS]), sent.signature);
    const keys: string[] = tx.transaction.message.accountKeys;
    const src = keys.indexOf(atas[0]);
    const dst = keys.indexOf(atas[1]);
    const entry = (list: any[], idx: number) => list.find((b) => b.accountIndex === idx);
    const common = { mint, programId: spl.TOKEN_PROGRAM_ADDRESS };
    expect(entry(tx.meta.preTokenBalances, src)).toEqual({
      accountIndex: src, ...common, owner: payer.address,
      uiTokenAmount: { amount: '10000000', decimals: DECIMALS, uiAmount: 10, uiAmountString: '10' },
    });
    expect(entry(tx.meta.postTokenBalances, src)).toEqual({
      accountIndex: src, ...common, owner: payer.address,
      uiTokenAmount: { amount: (MINTED - amount).toString(), decimals: DECIMALS, uiAmount: 7.5, uiAmountString: '7.5' },
    });
    expect(entry(tx.meta.preTokenBalances, dst)).toEqual({
      accountIndex: dst, ...common, owner: owner2.address,
      uiTokenAmount: { amount: '0', decimals: DECIMALS, uiAmount: null, uiAmountString: '0' },
    });
    expect(entry(tx.meta.postTokenBalances, dst).uiTokenAmount).toEqual({ amount: amount.toString(), decimals: DECIMALS, uiAmount: 2.5, uiAmountString: '2.5' });
    expect(tx.meta.preTokenBalances).toHaveLength(2);
    expect(num(tx.meta.fee)).toBe(LAMPORTS_PER_SIGNATURE);
    expect(num(tx.meta.preBalances[0]) - num(tx.meta.postBalances[0])).toBe(LAMPORTS_PER_SIGNATURE);

    const got = await rpc.call('getTransaction', [sent.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    expect(got.meta).toEqual(tx.meta);
  });

  it('records a failing transfer with err and a charged fee; preflight rejects it when not skipped', async () => {
    const balance = num((await rpc.call('getBalance', [payer.address])).value);
    const tooMuch = 1_000_000_000_000n;
    const ix = spl.getTransferCheckedInstruction({ source: atas[0] as any, mint: mint as any, destination: atas[1] as any, authority: payer, amount: tooMuch, decimals: DECIMALS });

    const pre = await sendTx(rpc, payer, [ix]);
    expect(pre.reply.error?.code).toBe(-32002);
    expect(pre.reply.error?.message).toBe('Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1');
    expect(pre.reply.error?.data.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(pre.reply.error?.data.logs.length).toBeGreaterThan(0);

    const memo = { programAddress: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as any, data: new TextEncoder().encode('will fail') };
    const sent = await sendTx(rpc, payer, [memo, ix], { skipPreflight: true });
    expect(sent.reply.result).toBe(sent.signature);
    const block = net.chain.produceSlot()!;
    expect(block.transactions.map((t) => t.signature)).not.toContain(pre.signature);
    const tx = findTx(await rpc.call('getBlock', [block.slot, BLOCK_OPTS]), sent.signature);
    expect(tx.meta.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
    expect(tx.meta.status).toEqual({ Err: { InstructionError: [1, { Custom: 1 }] } });
    expect(num(tx.meta.fee)).toBe(LAMPORTS_PER_SIGNATURE);
    expect(num(tx.meta.preBalances[0])).toBe(balance);
    expect(num(tx.meta.postBalances[0])).toBe(balance - LAMPORTS_PER_SIGNATURE);
    expect(tx.meta.postTokenBalances).toEqual(tx.meta.preTokenBalances);

    const statuses = await rpc.call('getSignatureStatuses', [[sent.signature, pre.signature]]);
    expect(statuses.value[0].err).toEqual({ InstructionError: [1, { Custom: 1 }] });
    expect(statuses.value[1]).toBeNull();
    const sigs = await rpc.call('getSignaturesForAddress', [payer.address, { limit: 1 }]);
    expect(sigs).toEqual([{ signature: sent.signature, slot: block.slot, err: { InstructionError: [1, { Custom: 1 }] }, memo: '[9] will fail', blockTime: block.blockTime, confirmationStatus: 'finalized' }]);
  });

  it('lists signatures for an address newest first, with before/until/limit', async () => {
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await sendTx(rpc, payer, [spl.getTransferCheckedInstruction({ source: atas[0] as any, mint: mint as any, destination: atas[1] as any, authority: payer, amount: BigInt(i + 1), decimals: DECIMALS })]);
      sent.push(s.signature);
      if (i === 1) net.chain.produceSlot(); // two in one block, one in the next
    }
    net.chain.produceSlot();
    const listed = (await rpc.call('getSignaturesForAddress', [atas[1], { limit: 3 }])).map((s: any) => s.signature);
    expect(listed).toEqual([...sent].reverse());
    // The destination wallet itself is not an account of transferChecked: only its ATA-creation tx mentions it.
    expect(await rpc.call('getSignaturesForAddress', [owner2.address])).toHaveLength(1);
    const before = (await rpc.call('getSignaturesForAddress', [atas[1], { before: sent[2], limit: 10 }])).map((s: any) => s.signature);
    expect(before.slice(0, 2)).toEqual([sent[1], sent[0]]);
    const until = (await rpc.call('getSignaturesForAddress', [atas[1], { until: sent[0] }])).map((s: any) => s.signature);
    expect(until).toEqual([sent[2], sent[1]]);
  });
});

describe('jsonParsed', () => {
  it('getTransaction and getBlock: keys with signer/writable/source, System and Memo instructions parsed (inner ones too), others partially decoded', async () => {
    const [owner, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const rent = BigInt(await rpc.call('getMinimumBalanceForRentExemption', [82]));
    const [ata] = await spl.findAssociatedTokenPda({ owner: owner.address, mint: mint.address, tokenProgram: spl.TOKEN_PROGRAM_ADDRESS });
    const sent = await sendTx(rpc, payer, [
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: 82, programAddress: spl.TOKEN_PROGRAM_ADDRESS }),
      spl.getInitializeMint2Instruction({ mint: mint.address, decimals: 0, mintAuthority: payer.address }),
      spl.getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner: owner.address, mint: mint.address }),
      { programAddress: MEMO_PROGRAM as Address, data: new TextEncoder().encode('parsed') },
    ]);
    expect(sent.reply.error).toBeUndefined();
    const block = net.chain.produceSlot()!;
    const tx = await rpc.call('getTransaction', [sent.signature, { encoding: 'jsonParsed' }]);
    const { accountKeys, instructions } = tx.transaction.message;
    expect(accountKeys[0]).toEqual({ pubkey: payer.address, signer: true, source: 'transaction', writable: true });
    expect(accountKeys.find((k: { pubkey: string }) => k.pubkey === mint.address)).toEqual({ pubkey: mint.address, signer: true, source: 'transaction', writable: true });
    expect(accountKeys.find((k: { pubkey: string }) => k.pubkey === SYSTEM_PROGRAM)).toMatchObject({ signer: false, writable: false });
    expect(instructions[0]).toEqual({
      program: 'system', programId: SYSTEM_PROGRAM, stackHeight: null,
      parsed: { type: 'createAccount', info: { source: payer.address, newAccount: mint.address, lamports: Number(rent), space: 82, owner: TOKEN_PROGRAM } },
    });
    expect(instructions[1]).toEqual({ programId: TOKEN_PROGRAM, accounts: [mint.address], data: expect.any(String), stackHeight: null });
    expect(instructions[3]).toEqual({ program: 'spl-memo', programId: MEMO_PROGRAM, parsed: 'parsed', stackHeight: null });
    const inner = tx.meta.innerInstructions.find((g: { index: number }) => g.index === 2).instructions;
    expect(inner).toContainEqual(expect.objectContaining({ program: 'system', stackHeight: 2, parsed: expect.objectContaining({ type: 'createAccount' }) }));
    expect(inner).toContainEqual(expect.objectContaining({ programId: TOKEN_PROGRAM, accounts: expect.any(Array), data: expect.any(String) }));
    expect('loadedAddresses' in tx.meta).toBe(false);
    const b = await rpc.call('getBlock', [block.slot, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }]);
    expect(b.transactions.find((t: any) => t.transaction.signatures[0] === sent.signature)).toEqual({ transaction: tx.transaction, meta: tx.meta, version: 'legacy' });
  });
});
