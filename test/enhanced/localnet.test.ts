/**
 * Transactions executed for real on the built-in localnet (LiteSVM) — SOL transfer, mint creation with ATAs and a
 * mint, transfer / transferChecked, burn, burn + close, token account opened and closed, SetAuthority, a failed
 * transfer — fetched back with `getTransaction` (json), normalised, parsed and classified. Types follow what the
 * test sent; fee, fee payer, lamport and token changes are read from the returned execution meta.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import { classifyTransaction } from '../../src/enhanced/index.js';
import type { EnhancedTransaction } from '../../src/enhanced/index.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { normalizeRpcTransaction } from '../../src/sources/normalize-rpc.js';
import type { Localnet } from '../../src/sources/localnet/index.js';
import { fundedLocalnet, num, sendTx, setupSplMint, type RpcClient } from '../localnet/helpers.js';

const SYSTEM = '11111111111111111111111111111111';
const DECIMALS = 6;

let net: Localnet;
let rpc: RpcClient;
let payer: KeyPairSigner;

beforeAll(async () => {
  ({ net, rpc, payer } = await fundedLocalnet(10_000_000_000));
});
afterAll(async () => net?.close());

interface Got {
  raw: any;
  keys: string[];
  e: EnhancedTransaction;
}

/** Sends, closes the slot, fetches the transaction back and classifies it. */
async function run(instructions: Instruction[], opts: { skipPreflight?: boolean } = {}): Promise<Got> {
  const sent = await sendTx(rpc, payer, instructions, opts);
  expect(sent.reply.error).toBeUndefined();
  net.chain.produceSlot();
  const raw = await rpc.call('getTransaction', [sent.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
  const tx = normalizeRpcTransaction(raw);
  const e = classifyTransaction(tx, parseTransaction(tx));
  expect(e.signature).toBe(sent.signature);
  return { raw, keys: raw.transaction.message.accountKeys, e };
}

/** What every classified transaction must say about fee, payer and balances, read from the meta. */
function checkAgainstMeta({ raw, keys, e }: Got): void {
  expect(e.fee).toBe(Number(num(raw.meta.fee)));
  expect(e.feePayer).toBe(payer.address);
  expect(keys[0]).toBe(payer.address);
  expect(e.slot).toBe(raw.slot);
  expect(e.timestamp).toBe(raw.blockTime);
  expect(e.accountData.map((a) => a.account)).toEqual(keys);
  expect(e.accountData.map((a) => a.nativeBalanceChange)).toEqual(keys.map((_k, i) => Number(num(raw.meta.postBalances[i]) - num(raw.meta.preBalances[i]))));
  // Token balance changes, and token movements that explain them, per token account.
  const pre = new Map<number, bigint>(raw.meta.preTokenBalances.map((b: any) => [b.accountIndex, BigInt(b.uiTokenAmount.amount)]));
  const post = new Map<number, bigint>(raw.meta.postTokenBalances.map((b: any) => [b.accountIndex, BigInt(b.uiTokenAmount.amount)]));
  const deltas = new Map<string, bigint>();
  for (const i of new Set([...pre.keys(), ...post.keys()])) {
    const d = (post.get(i) ?? 0n) - (pre.get(i) ?? 0n);
    if (d !== 0n) deltas.set(keys[i], d);
  }
  const listed = new Map(e.accountData.flatMap((a) => a.tokenBalanceChanges.map((c) => [c.tokenAccount, BigInt(c.rawTokenAmount.tokenAmount)] as const)));
  expect(listed).toEqual(deltas);
  const moved = new Map<string, number>();
  for (const t of e.tokenTransfers) {
    if (t.fromTokenAccount) moved.set(t.fromTokenAccount, (moved.get(t.fromTokenAccount) ?? 0) - t.tokenAmount * 10 ** DECIMALS);
    if (t.toTokenAccount) moved.set(t.toTokenAccount, (moved.get(t.toTokenAccount) ?? 0) + t.tokenAmount * 10 ** DECIMALS);
  }
  for (const [acc, v] of moved) if (v !== 0) expect(Math.round(v), acc).toBe(Number(deltas.get(acc) ?? 0n));
  for (const [acc, v] of deltas) expect(Math.round(moved.get(acc) ?? 0), acc).toBe(Number(v));
}

/** Lamport changes are all System transfers plus the fee (false for a close, which moves lamports directly). */
function checkNativeConservation({ e }: Got): void {
  const m = new Map<string, number>([[e.feePayer, -e.fee]]);
  for (const t of e.nativeTransfers) {
    m.set(t.fromUserAccount, (m.get(t.fromUserAccount) ?? 0) - t.amount);
    m.set(t.toUserAccount, (m.get(t.toUserAccount) ?? 0) + t.amount);
  }
  for (const a of e.accountData) expect(m.get(a.account) ?? 0, a.account).toBe(a.nativeBalanceChange);
}

const delta = (g: Got, account: string) => {
  const i = g.keys.indexOf(account);
  return num(g.raw.meta.postBalances[i]) - num(g.raw.meta.preBalances[i]);
};
const tokenDelta = (g: Got, account: string) => {
  const i = g.keys.indexOf(account);
  const at = (l: any[]) => BigInt(l.find((b) => b.accountIndex === i)?.uiTokenAmount.amount ?? '0');
  return at(g.raw.meta.postTokenBalances) - at(g.raw.meta.preTokenBalances);
};
const ownerIn = (g: Got, account: string) => {
  const i = g.keys.indexOf(account);
  return [...g.raw.meta.preTokenBalances, ...g.raw.meta.postTokenBalances].find((b: any) => b.accountIndex === i)?.owner;
};

describe('classified localnet transactions', () => {
  let owner2: KeyPairSigner;
  let mint: Address;
  let atas: Address[];

  it('SOL transfer: TRANSFER from SYSTEM_PROGRAM', async () => {
    const to = await generateKeyPairSigner();
    const g = await run([getTransferSolInstruction({ source: payer, destination: to.address, amount: 1_234_567n })]);
    checkAgainstMeta(g);
    checkNativeConservation(g);
    expect([g.e.type, g.e.source]).toEqual(['TRANSFER', 'SYSTEM_PROGRAM']);
    expect(g.e.nativeTransfers).toEqual([{ fromUserAccount: payer.address, toUserAccount: to.address, amount: Number(delta(g, to.address)) }]);
    expect(g.e.tokenTransfers).toEqual([]);
    expect(g.e.description).toBe(`${payer.address} transferred 0.001234567 SOL to ${to.address}.`);
    expect(g.e.instructions).toEqual([{ programId: SYSTEM, accounts: [payer.address, to.address], data: g.raw.transaction.message.instructions[0].data, innerInstructions: [] }]);
    expect(g.e.events).toEqual({});
  });

  it('mint created with two ATAs and tokens minted: TOKEN_MINT', async () => {
    owner2 = await generateKeyPairSigner();
    const sigsBefore = (await rpc.call('getSignaturesForAddress', [payer.address])).length;
    ({ mint, atas } = await setupSplMint(rpc, payer, DECIMALS, [payer.address, owner2.address], 10_000_000n));
    net.chain.produceSlot();
    const [{ signature }] = await rpc.call('getSignaturesForAddress', [payer.address, { limit: 1 }]);
    expect((await rpc.call('getSignaturesForAddress', [payer.address])).length).toBe(sigsBefore + 1);
    const raw = await rpc.call('getTransaction', [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    const tx = normalizeRpcTransaction(raw);
    const g: Got = { raw, keys: raw.transaction.message.accountKeys, e: classifyTransaction(tx, parseTransaction(tx)) };
    checkAgainstMeta(g);
    checkNativeConservation(g);
    expect([g.e.type, g.e.source]).toEqual(['TOKEN_MINT', 'SOLANA_PROGRAM_LIBRARY']);
    expect(g.e.tokenTransfers).toEqual([
      { fromUserAccount: '', toUserAccount: payer.address, fromTokenAccount: '', toTokenAccount: atas[0], tokenAmount: Number(tokenDelta(g, atas[0])) / 1e6, mint, tokenStandard: 'Fungible' },
    ]);
    // The mint account and both ATAs were funded by the payer through System CPIs.
    for (const acc of [mint, atas[0], atas[1]])
      expect(g.e.nativeTransfers).toContainEqual({ fromUserAccount: payer.address, toUserAccount: acc, amount: Number(delta(g, acc)) });
    expect(g.e.accountData.find((a) => a.account === atas[1])!.tokenBalanceChanges).toEqual([]);
  });

  it('transferChecked and plain transfer between ATAs: TRANSFER from SOLANA_PROGRAM_LIBRARY, owners from the meta', async () => {
    const g = await run([
      spl.getTransferCheckedInstruction({ source: atas[0], mint, destination: atas[1], authority: payer, amount: 2_500_000n, decimals: DECIMALS }),
      spl.getTransferInstruction({ source: atas[0], destination: atas[1], authority: payer, amount: 500_000n }),
    ]);
    checkAgainstMeta(g);
    checkNativeConservation(g);
    expect([g.e.type, g.e.source]).toEqual(['TRANSFER', 'SOLANA_PROGRAM_LIBRARY']);
    const from = ownerIn(g, atas[0]);
    const to = ownerIn(g, atas[1]);
    expect([from, to]).toEqual([payer.address, owner2.address]);
    expect(g.e.tokenTransfers.map((t) => [t.fromUserAccount, t.toUserAccount, t.fromTokenAccount, t.toTokenAccount, t.mint])).toEqual([
      [from, to, atas[0], atas[1], mint],
      [from, to, atas[0], atas[1], mint],
    ]);
    expect(g.e.tokenTransfers.reduce((s, t) => s + t.tokenAmount, 0)).toBeCloseTo(Number(tokenDelta(g, atas[1])) / 1e6, 9);
    expect(g.e.accountData.find((a) => a.account === atas[1])!.tokenBalanceChanges).toEqual([
      { userAccount: owner2.address, tokenAccount: atas[1], mint, rawTokenAmount: { tokenAmount: tokenDelta(g, atas[1]).toString(), decimals: DECIMALS } },
    ]);
    expect(g.e.nativeTransfers).toEqual([]);
  });

  it('burnChecked: BURN, the burned amount leaves the owner', async () => {
    const g = await run([spl.getBurnCheckedInstruction({ account: atas[1], mint, authority: owner2, amount: 1_000_000n, decimals: DECIMALS })]);
    checkAgainstMeta(g);
    expect([g.e.type, g.e.source]).toEqual(['BURN', 'SOLANA_PROGRAM_LIBRARY']);
    expect(g.e.tokenTransfers).toEqual([
      { fromUserAccount: owner2.address, toUserAccount: '', fromTokenAccount: atas[1], toTokenAccount: '', tokenAmount: Number(-tokenDelta(g, atas[1])) / 1e6, mint, tokenStandard: 'Fungible' },
    ]);
  });

  it('burn the rest and close the account in one transaction: BURN; the rent goes back to the owner', async () => {
    const info = await rpc.call('getAccountInfo', [atas[1], { encoding: 'base64' }]);
    const left = spl.getTokenDecoder().decode(Buffer.from(info.value.data[0], 'base64')).amount;
    expect(left).toBeGreaterThan(0n);
    const g = await run([
      spl.getBurnCheckedInstruction({ account: atas[1], mint, authority: owner2, amount: left, decimals: DECIMALS }),
      spl.getCloseAccountInstruction({ account: atas[1], destination: owner2.address, owner: owner2 }),
    ]);
    checkAgainstMeta(g);
    expect([g.e.type, g.e.source]).toEqual(['BURN', 'SOLANA_PROGRAM_LIBRARY']);
    expect(g.e.tokenTransfers.map((t) => [t.fromTokenAccount, t.tokenAmount])).toEqual([[atas[1], Number(left) / 1e6]]);
    expect(tokenDelta(g, atas[1])).toBe(-left);
    const rent = delta(g, owner2.address);
    expect(rent).toBeGreaterThan(0n);
    expect(g.e.accountData.find((a) => a.account === atas[1])!.nativeBalanceChange).toBe(-Number(rent));
    expect(g.e.accountData.find((a) => a.account === owner2.address)!.nativeBalanceChange).toBe(Number(rent));
  });

  it('token account opened (ATA) and then closed: INITIALIZE_ACCOUNT, CLOSE_ACCOUNT', async () => {
    const owner3 = await generateKeyPairSigner();
    const [ata] = await spl.findAssociatedTokenPda({ owner: owner3.address, mint, tokenProgram: spl.TOKEN_PROGRAM_ADDRESS });
    const open = await run([spl.getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner: owner3.address, mint })]);
    checkAgainstMeta(open);
    checkNativeConservation(open);
    expect([open.e.type, open.e.source]).toEqual(['INITIALIZE_ACCOUNT', 'SOLANA_PROGRAM_LIBRARY']);
    expect(open.e.nativeTransfers).toEqual([{ fromUserAccount: payer.address, toUserAccount: ata, amount: Number(delta(open, ata)) }]);
    expect(open.e.instructions).toHaveLength(1);
    expect(open.e.instructions[0].programId).toBe('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
    expect(open.e.instructions[0].innerInstructions.map((i) => i.programId)).toEqual(
      open.raw.meta.innerInstructions[0].instructions.map((i: any) => open.keys[i.programIdIndex]),
    );

    const close = await run([spl.getCloseAccountInstruction({ account: ata, destination: payer.address, owner: owner3 })]);
    checkAgainstMeta(close);
    expect([close.e.type, close.e.source]).toEqual(['CLOSE_ACCOUNT', 'SOLANA_PROGRAM_LIBRARY']);
    expect(close.e.tokenTransfers).toEqual([]);
    expect(close.e.accountData.find((a) => a.account === ata)!.nativeBalanceChange).toBe(Number(delta(close, ata)));
    expect(delta(close, ata)).toBe(-delta(open, ata));
    expect(delta(close, payer.address)).toBe(delta(open, ata) - num(close.raw.meta.fee));
  });

  it('mint authority handed over: SET_AUTHORITY with events.setAuthority', async () => {
    const next = await generateKeyPairSigner();
    const g = await run([spl.getSetAuthorityInstruction({ owned: mint, owner: payer, authorityType: spl.AuthorityType.MintTokens, newAuthority: next.address })]);
    checkAgainstMeta(g);
    expect([g.e.type, g.e.source]).toEqual(['SET_AUTHORITY', 'SOLANA_PROGRAM_LIBRARY']);
    expect(g.e.events.setAuthority).toEqual([{ account: mint, from: payer.address, to: next.address, instructionIndex: 0, innerInstructionIndex: null }]);
    const info = await rpc.call('getAccountInfo', [mint, { encoding: 'base64' }]);
    expect(spl.getMintDecoder().decode(Buffer.from(info.value.data[0], 'base64')).mintAuthority).toEqual({ __option: 'Some', value: next.address });
  });

  it('failed transfer: UNKNOWN with the error, only the fee charged, no transfers', async () => {
    const g = await run(
      [spl.getTransferCheckedInstruction({ source: atas[0], mint, destination: atas[1], authority: payer, amount: 10n ** 15n, decimals: DECIMALS })],
      { skipPreflight: true },
    );
    expect(g.raw.meta.err).not.toBeNull();
    checkAgainstMeta(g);
    checkNativeConservation(g);
    expect(g.e.transactionError).toEqual(g.raw.meta.err);
    expect([g.e.type, g.e.source, g.e.nativeTransfers, g.e.tokenTransfers, g.e.events]).toEqual(['UNKNOWN', 'UNKNOWN', [], [], {}]);
    expect(delta(g, payer.address)).toBe(-num(g.raw.meta.fee));
  });
});
