/**
 * System program parser against transactions executed in LiteSVM: the events must state what the test sent, and
 * agree with the lamport balances LiteSVM reports before and after.
 */
import {
  getAllocateInstruction,
  getAssignInstruction,
  getCreateAccountInstruction,
  getCreateAccountWithSeedInstruction,
  getInitializeNonceAccountInstruction,
  getTransferSolInstruction,
  getTransferSolWithSeedInstruction,
  getWithdrawNonceAccountInstruction,
  SYSTEM_PROGRAM_ADDRESS,
} from '@solana-program/system';
import { createAddressWithSeed, generateKeyPairSigner, type KeyPairSigner, lamports } from '@solana/kit';
import { LiteSVM } from 'litesvm';
import { beforeAll, describe, expect, it } from 'vitest';
import { MEMO_PROGRAM } from '../../src/core/programs.js';
import { solDeltas } from '../../src/parsers/balances.js';
import type { DomainEvent, SolTransferEvent } from '../../src/parsers/events.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { execute } from './helpers.js';

let svm: LiteSVM;
let payer: KeyPairSigner;

beforeAll(async () => {
  svm = new LiteSVM();
  payer = await generateKeyPairSigner();
  svm.airdrop(payer.address, lamports(100_000_000_000n));
});

const transfers = (events: DomainEvent[]) => events.filter((e): e is SolTransferEvent => e.kind === 'sol.transfer');

/** Sum of sol.transfer effects per account. */
function netTransfers(events: DomainEvent[]): Map<string, bigint> {
  const m = new Map<string, bigint>();
  for (const t of transfers(events)) {
    m.set(t.from, (m.get(t.from) ?? 0n) - t.lamports);
    m.set(t.to, (m.get(t.to) ?? 0n) + t.lamports);
  }
  return m;
}

describe('System program (LiteSVM)', () => {
  it('transfer: one sol.transfer with the sent amount, matching the recipient balance delta', async () => {
    const to = (await generateKeyPairSigner()).address;
    const { tx } = await execute(svm, payer, [
      getTransferSolInstruction({ source: payer, destination: to, amount: 1_234_567n }),
    ]);
    const events = parseTransaction(tx);
    expect(events).toEqual([
      {
        kind: 'sol.transfer',
        path: { outer: 0, inner: null },
        from: payer.address,
        to,
        lamports: 1_234_567n,
        instruction: 'transfer',
      },
    ]);
    expect(svm.getBalance(to)).toBe(1_234_567n);
    const deltas = solDeltas(tx);
    expect(deltas.find((d) => d.account === to)).toEqual({ account: to, pre: 0n, post: 1_234_567n, delta: 1_234_567n });
    // Payer: -amount - fee; the fee is the only part no instruction explains.
    const payerDelta = deltas.find((d) => d.account === payer.address)!.delta;
    expect(payerDelta + 1_234_567n).toBeLessThan(0n);
  });

  it('createAccount: sol.createAccount + funding sol.transfer, matching the created account', async () => {
    const account = await generateKeyPairSigner();
    const rent = svm.minimumBalanceForRentExemption(100n);
    const { tx } = await execute(svm, payer, [
      getCreateAccountInstruction({
        payer,
        newAccount: account,
        lamports: rent,
        space: 100,
        programAddress: MEMO_PROGRAM as never,
      }),
    ]);
    const events = parseTransaction(tx);
    const path = { outer: 0, inner: null };
    expect(events).toEqual([
      {
        kind: 'sol.createAccount',
        path,
        funder: payer.address,
        account: account.address,
        lamports: rent,
        space: 100n,
        owner: MEMO_PROGRAM,
        seed: null,
        base: null,
      },
      { kind: 'sol.transfer', path, from: payer.address, to: account.address, lamports: rent, instruction: 'createAccount' },
    ]);
    const onChain = svm.getAccount(account.address);
    expect(onChain.exists && onChain.programAddress).toBe(MEMO_PROGRAM);
    expect(onChain.exists && onChain.data.length).toBe(100);
    expect(onChain.exists && onChain.lamports).toBe(rent);
  });

  it('createAccountWithSeed then transferWithSeed out of it', async () => {
    const seed = 'solgate-test';
    const derived = await createAddressWithSeed({ baseAddress: payer.address, programAddress: SYSTEM_PROGRAM_ADDRESS, seed });
    const to = (await generateKeyPairSigner()).address;
    const { tx } = await execute(svm, payer, [
      getCreateAccountWithSeedInstruction({
        payer,
        newAccount: derived,
        baseAccount: payer,
        base: payer.address,
        seed,
        amount: 5_000_000n,
        space: 0,
        programAddress: SYSTEM_PROGRAM_ADDRESS,
      }),
      getTransferSolWithSeedInstruction({
        source: derived,
        baseAccount: payer,
        destination: to,
        amount: 2_000_000n,
        fromSeed: seed,
        fromOwner: SYSTEM_PROGRAM_ADDRESS,
      }),
    ]);
    const events = parseTransaction(tx);
    expect(events.map((e) => e.kind)).toEqual(['sol.createAccount', 'sol.transfer', 'sol.transfer']);
    expect(events[0]).toMatchObject({ account: derived, seed, base: payer.address, lamports: 5_000_000n, space: 0n });
    expect(events[1]).toMatchObject({ from: payer.address, to: derived, instruction: 'createAccountWithSeed' });
    expect(events[2]).toEqual({
      kind: 'sol.transfer',
      path: { outer: 1, inner: null },
      from: derived,
      to,
      lamports: 2_000_000n,
      instruction: 'transferWithSeed',
    });
    expect(svm.getBalance(derived)).toBe(3_000_000n);
    expect(svm.getBalance(to)).toBe(2_000_000n);
  });

  it('withdrawNonceAccount → sol.transfer; nonce init, assign and allocate yield nothing', async () => {
    const nonce = await generateKeyPairSigner();
    const rent = svm.minimumBalanceForRentExemption(80n);
    const created = await execute(svm, payer, [
      getCreateAccountInstruction({
        payer,
        newAccount: nonce,
        lamports: rent + 2_000_000n,
        space: 80,
        programAddress: SYSTEM_PROGRAM_ADDRESS,
      }),
      getInitializeNonceAccountInstruction({ nonceAccount: nonce.address, nonceAuthority: payer.address }),
    ]);
    expect(parseTransaction(created.tx).map((e) => e.kind)).toEqual(['sol.createAccount', 'sol.transfer']);

    const to = (await generateKeyPairSigner()).address;
    const { tx } = await execute(svm, payer, [
      getWithdrawNonceAccountInstruction({
        nonceAccount: nonce.address,
        recipientAccount: to,
        nonceAuthority: payer,
        withdrawAmount: 1_500_000n,
      }),
    ]);
    expect(parseTransaction(tx)).toEqual([
      {
        kind: 'sol.transfer',
        path: { outer: 0, inner: null },
        from: nonce.address,
        to,
        lamports: 1_500_000n,
        instruction: 'withdrawNonceAccount',
      },
    ]);
    expect(svm.getBalance(to)).toBe(1_500_000n);

    const other = await generateKeyPairSigner();
    await execute(svm, payer, [getTransferSolInstruction({ source: payer, destination: other.address, amount: 10_000_000n })]);
    const quiet = await execute(svm, payer, [
      getAllocateInstruction({ newAccount: other, space: 16 }),
      getAssignInstruction({ account: other, programAddress: MEMO_PROGRAM as never }),
    ]);
    expect(parseTransaction(quiet.tx)).toEqual([]);
    const acc = svm.getAccount(other.address);
    expect(acc.exists && acc.programAddress).toBe(MEMO_PROGRAM);
  });

  it('sol.transfer events explain every non-fee lamport delta of a multi-transfer transaction', async () => {
    const a = (await generateKeyPairSigner()).address;
    const b = (await generateKeyPairSigner()).address;
    const { tx } = await execute(svm, payer, [
      getTransferSolInstruction({ source: payer, destination: a, amount: 3_000_000n }),
      getTransferSolInstruction({ source: payer, destination: b, amount: 4_000_000n }),
      getTransferSolInstruction({ source: payer, destination: a, amount: 5n }),
    ]);
    const net = netTransfers(parseTransaction(tx));
    for (const d of solDeltas(tx)) {
      if (d.account === payer.address) continue; // also paid the fee
      expect(net.get(d.account), d.account).toBe(d.delta);
    }
    expect(net.get(a)).toBe(3_000_005n);
  });
});
