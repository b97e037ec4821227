/**
 * The token instruction set shared by SPL Token and Token-2022, executed in LiteSVM with each program's own
 * instruction builders; the parsed events must state what was sent and agree with the resulting on-chain state.
 */
import * as token from '@solana-program/token';
import * as token2022 from '@solana-program/token-2022';
import { getCreateAccountInstruction } from '@solana-program/system';
import { type Address, generateKeyPairSigner, type KeyPairSigner, lamports, type Instruction } from '@solana/kit';
import { LiteSVM } from 'litesvm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ATA_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../src/core/programs.js';
import { walkTransaction } from '../../src/parsers/walk.js';
import type { DomainEvent } from '../../src/parsers/events.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { execute } from './helpers.js';

type Lib = typeof token;
const programs: [string, string, Lib][] = [
  ['SPL Token', TOKEN_PROGRAM, token],
  // Same builder names and inputs for the shared instruction set; only the default program address differs.
  ['Token-2022', TOKEN_2022_PROGRAM, token2022 as unknown as Lib],
];

const strip = (events: DomainEvent[]) => events.map(({ path: _p, ...e }) => e);

describe.each(programs)('%s base instruction set (LiteSVM)', (_name, program, lib) => {
  let svm: LiteSVM;
  let payer: KeyPairSigner;
  let mint: KeyPairSigner;
  let alice: KeyPairSigner;
  let bob: KeyPairSigner;
  let aliceAta: Address;
  let bobAta: Address;
  const decimals = 6;

  const run = async (ixs: Instruction[]) => parseTransaction((await execute(svm, payer, ixs)).tx);
  const balance = (a: Address) => {
    const acc = svm.getAccount(a);
    if (!acc.exists) return null;
    return lib.getTokenDecoder().decode(acc.data).amount;
  };

  beforeAll(async () => {
    svm = new LiteSVM();
    [payer, mint, alice, bob] = await Promise.all([1, 2, 3, 4].map(() => generateKeyPairSigner()));
    svm.airdrop(payer.address, lamports(100_000_000_000n));
    [aliceAta, bobAta] = await Promise.all(
      [alice, bob].map(async (o) => (await token.findAssociatedTokenPda({ owner: o.address, mint: mint.address, tokenProgram: program as Address }))[0]),
    );
  });

  it('create mint: System createAccount + initializeMint2', async () => {
    const events = await run([
      getCreateAccountInstruction({
        payer,
        newAccount: mint,
        lamports: svm.minimumBalanceForRentExemption(82n),
        space: 82,
        programAddress: program as Address,
      }),
      lib.getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: payer.address, freezeAuthority: payer.address }),
    ]);
    expect(events[2]).toEqual({
      kind: 'token.initMint',
      path: { outer: 1, inner: null },
      program,
      mint: mint.address,
      decimals,
      mintAuthority: payer.address,
      freezeAuthority: payer.address,
    });
    const onChain = svm.getAccount(mint.address);
    expect(onChain.exists && lib.getMintDecoder().decode(onChain.data).decimals).toBe(decimals);
  });

  it('ATA create: inner System + token CPIs are walked and parsed in order', async () => {
    const { tx } = await execute(svm, payer, [
      await lib.getCreateAssociatedTokenInstructionAsync({ payer, owner: alice.address, mint: mint.address, tokenProgram: program as Address }),
      await lib.getCreateAssociatedTokenInstructionAsync({ payer, owner: bob.address, mint: mint.address, tokenProgram: program as Address }),
    ]);
    const walked = walkTransaction(tx);
    expect(walked[0]).toMatchObject({ path: { outer: 0, inner: null }, programId: ATA_PROGRAM });
    // Order of `Program X invoke [n]` log lines = execution order of all instructions, outer and inner.
    const invoked = tx.logMessages!.map((l) => /^Program (\w+) invoke \[\d+\]$/.exec(l)?.[1]).filter(Boolean);
    expect(walked.map((w) => w.programId)).toEqual(invoked);
    const events = parseTransaction(tx);
    const init = events.filter((e) => e.kind === 'token.initAccount');
    expect(strip(init)).toEqual([
      { kind: 'token.initAccount', program, account: aliceAta, mint: mint.address, owner: alice.address },
      { kind: 'token.initAccount', program, account: bobAta, mint: mint.address, owner: bob.address },
    ]);
    expect(init.map((e) => e.path.outer)).toEqual([0, 1]);
    expect(init.every((e) => e.path.inner !== null)).toBe(true);
    const created = events.filter((e) => e.kind === 'sol.createAccount');
    expect(created.map((e) => e.kind === 'sol.createAccount' && [e.account, e.owner])).toEqual([
      [aliceAta, program],
      [bobAta, program],
    ]);
  });

  it('mintTo, mintToChecked, transfer, transferChecked: amounts match balances', async () => {
    const events = await run([
      lib.getMintToCheckedInstruction({ mint: mint.address, token: aliceAta, mintAuthority: payer, amount: 1_000_000n, decimals }),
      lib.getMintToInstruction({ mint: mint.address, token: aliceAta, mintAuthority: payer, amount: 500n }),
      lib.getTransferCheckedInstruction({ source: aliceAta, mint: mint.address, destination: bobAta, authority: alice, amount: 250_000n, decimals }),
      lib.getTransferInstruction({ source: aliceAta, destination: bobAta, authority: alice, amount: 100n }),
    ]);
    expect(strip(events)).toEqual([
      { kind: 'token.mintTo', program, mint: mint.address, account: aliceAta, amount: 1_000_000n, decimals },
      { kind: 'token.mintTo', program, mint: mint.address, account: aliceAta, amount: 500n, decimals: null },
      {
        kind: 'token.transfer', program, source: aliceAta, destination: bobAta, authority: alice.address,
        amount: 250_000n, mint: mint.address, decimals, fee: null,
      },
      {
        kind: 'token.transfer', program, source: aliceAta, destination: bobAta, authority: alice.address,
        amount: 100n, mint: null, decimals: null, fee: null,
      },
    ]);
    expect(balance(aliceAta)).toBe(1_000_500n - 250_100n);
    expect(balance(bobAta)).toBe(250_100n);
  });

  it('approve, approveChecked, revoke, burn, burnChecked, freeze, thaw', async () => {
    const delegate = (await generateKeyPairSigner()).address;
    const events = await run([
      lib.getApproveInstruction({ source: aliceAta, delegate, owner: alice, amount: 7n }),
      lib.getApproveCheckedInstruction({ source: aliceAta, mint: mint.address, delegate, owner: alice, amount: 9n, decimals }),
      lib.getRevokeInstruction({ source: aliceAta, owner: alice }),
      lib.getBurnCheckedInstruction({ account: aliceAta, mint: mint.address, authority: alice, amount: 50n, decimals }),
      lib.getBurnInstruction({ account: aliceAta, mint: mint.address, authority: alice, amount: 5n }),
      lib.getFreezeAccountInstruction({ account: bobAta, mint: mint.address, owner: payer }),
      lib.getThawAccountInstruction({ account: bobAta, mint: mint.address, owner: payer }),
    ]);
    expect(strip(events)).toEqual([
      { kind: 'token.approve', program, account: aliceAta, delegate, amount: 7n },
      { kind: 'token.approve', program, account: aliceAta, delegate, amount: 9n },
      { kind: 'token.revoke', program, account: aliceAta },
      { kind: 'token.burn', program, mint: mint.address, account: aliceAta, amount: 50n, decimals },
      { kind: 'token.burn', program, mint: mint.address, account: aliceAta, amount: 5n, decimals: null },
      { kind: 'token.freeze', program, account: bobAta, mint: mint.address },
      { kind: 'token.thaw', program, account: bobAta, mint: mint.address },
    ]);
    expect(events.map((e) => e.path.outer)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(balance(aliceAta)).toBe(1_000_500n - 250_100n - 55n);
  });

  it('initializeAccount / 2 / 3, closeAccount and setAuthority', async () => {
    const [a1, a2, a3] = await Promise.all([1, 2, 3].map(() => generateKeyPairSigner()));
    const rent = svm.minimumBalanceForRentExemption(165n);
    const create = (k: KeyPairSigner) =>
      getCreateAccountInstruction({ payer, newAccount: k, lamports: rent, space: 165, programAddress: program as Address });
    const events = await run([
      create(a1),
      lib.getInitializeAccountInstruction({ account: a1.address, mint: mint.address, owner: alice.address }),
      create(a2),
      lib.getInitializeAccount2Instruction({ account: a2.address, mint: mint.address, owner: bob.address }),
      create(a3),
      lib.getInitializeAccount3Instruction({ account: a3.address, mint: mint.address, owner: payer.address }),
      lib.getCloseAccountInstruction({ account: a3.address, destination: payer.address, owner: payer }),
      lib.getSetAuthorityInstruction({ owned: mint.address, owner: payer, authorityType: 1, newAuthority: null }),
      lib.getSetAuthorityInstruction({ owned: a1.address, owner: alice, authorityType: 2, newAuthority: bob.address }),
    ]);
    const tokenEvents = strip(events.filter((e) => e.kind.startsWith('token.')));
    expect(tokenEvents).toEqual([
      { kind: 'token.initAccount', program, account: a1.address, mint: mint.address, owner: alice.address },
      { kind: 'token.initAccount', program, account: a2.address, mint: mint.address, owner: bob.address },
      { kind: 'token.initAccount', program, account: a3.address, mint: mint.address, owner: payer.address },
      { kind: 'token.closeAccount', program, account: a3.address, destination: payer.address },
      { kind: 'token.setAuthority', program, target: mint.address, authorityType: 'freezeAccount', newAuthority: null },
      { kind: 'token.setAuthority', program, target: a1.address, authorityType: 'accountOwner', newAuthority: bob.address },
    ]);
    expect(svm.getAccount(a3.address).exists).toBe(false);
    const m = svm.getAccount(mint.address);
    expect(m.exists && lib.getMintDecoder().decode(m.data).freezeAuthority).toEqual({ __option: 'None' });
    const acc = svm.getAccount(a1.address);
    expect(acc.exists && lib.getTokenDecoder().decode(acc.data).owner).toBe(bob.address);
  });

  it('read-only instructions (getAccountDataSize, amountToUiAmount, uiAmountToAmount) yield no events', async () => {
    const events = await run([
      lib.getGetAccountDataSizeInstruction({ mint: mint.address }),
      lib.getAmountToUiAmountInstruction({ mint: mint.address, amount: 1n }),
      lib.getUiAmountToAmountInstruction({ mint: mint.address, uiAmount: '1.5' }),
    ]);
    expect(events).toEqual([]);
  });
});

describe('System program id constant', () => {
  it('matches the client', async () => {
    expect((await import('@solana-program/system')).SYSTEM_PROGRAM_ADDRESS).toBe(SYSTEM_PROGRAM);
    expect(token.TOKEN_PROGRAM_ADDRESS).toBe(TOKEN_PROGRAM);
    expect(token2022.TOKEN_2022_PROGRAM_ADDRESS).toBe(TOKEN_2022_PROGRAM);
  });
});

describe('SPL Token Batch (LiteSVM, p-token)', () => {
  it('a batch is split into its instructions, each parsed under the batch path, matching the executed result', async () => {
    const svm = new LiteSVM();
    const [payer, mint, alice] = await Promise.all([1, 2, 3].map(() => generateKeyPairSigner()));
    svm.airdrop(payer.address, lamports(100_000_000_000n));
    const [ata] = await token.findAssociatedTokenPda({ owner: alice.address, mint: mint.address, tokenProgram: token.TOKEN_PROGRAM_ADDRESS });
    await execute(svm, payer, [
      getCreateAccountInstruction({
        payer, newAccount: mint, lamports: svm.minimumBalanceForRentExemption(82n), space: 82, programAddress: token.TOKEN_PROGRAM_ADDRESS,
      }),
      token.getInitializeMint2Instruction({ mint: mint.address, decimals: 4, mintAuthority: payer.address }),
      await token.getCreateAssociatedTokenInstructionAsync({ payer, owner: alice.address, mint: mint.address }),
    ]);
    const { tx } = await execute(svm, payer, [
      token.getBatchInstruction([
        token.getMintToInstruction({ mint: mint.address, token: ata, mintAuthority: payer, amount: 7n }),
        token.getBurnCheckedInstruction({ account: ata, mint: mint.address, authority: alice, amount: 2n, decimals: 4 }),
      ]),
    ]);
    const path = { outer: 0, inner: null };
    expect(parseTransaction(tx)).toEqual([
      { kind: 'token.mintTo', path, program: TOKEN_PROGRAM, mint: mint.address, account: ata, amount: 7n, decimals: null },
      { kind: 'token.burn', path, program: TOKEN_PROGRAM, mint: mint.address, account: ata, amount: 2n, decimals: 4 },
    ]);
    const acc = svm.getAccount(ata);
    expect(acc.exists && token.getTokenDecoder().decode(acc.data).amount).toBe(5n);
  });
});
