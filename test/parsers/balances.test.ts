/**
 * solDeltas / tokenDeltas on transactions executed in LiteSVM, whose pre/post balances are read from the
 * accounts before and after execution (as an RPC node records them).
 */
import * as t from '@solana-program/token';
import { getCreateAccountInstruction } from '@solana-program/system';
import { type Address, generateKeyPairSigner, type KeyPairSigner, lamports } from '@solana/kit';
import { LiteSVM } from 'litesvm';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_PROGRAM } from '../../src/core/programs.js';
import { solDeltas, tokenDeltas } from '../../src/parsers/balances.js';
import { execute } from './helpers.js';

let svm: LiteSVM;
let payer: KeyPairSigner;
let mint: KeyPairSigner;
let alice: KeyPairSigner;
let bob: KeyPairSigner;
let aliceAta: Address;
let bobAta: Address;

beforeAll(async () => {
  svm = new LiteSVM();
  [payer, mint, alice, bob] = await Promise.all([1, 2, 3, 4].map(() => generateKeyPairSigner()));
  svm.airdrop(payer.address, lamports(100_000_000_000n));
  [aliceAta, bobAta] = await Promise.all(
    [alice, bob].map(async (o) => (await t.findAssociatedTokenPda({ owner: o.address, mint: mint.address, tokenProgram: t.TOKEN_PROGRAM_ADDRESS }))[0]),
  );
  await execute(svm, payer, [
    getCreateAccountInstruction({ payer, newAccount: mint, lamports: svm.minimumBalanceForRentExemption(82n), space: 82, programAddress: t.TOKEN_PROGRAM_ADDRESS }),
    t.getInitializeMint2Instruction({ mint: mint.address, decimals: 4, mintAuthority: payer.address }),
    await t.getCreateAssociatedTokenInstructionAsync({ payer, owner: alice.address, mint: mint.address }),
    await t.getCreateAssociatedTokenInstructionAsync({ payer, owner: bob.address, mint: mint.address }),
    t.getMintToInstruction({ mint: mint.address, token: aliceAta, mintAuthority: payer, amount: 10_000n }),
  ]);
});

describe('tokenDeltas', () => {
  it('opened (pre 0), closed (post 0), changed and touched-but-unchanged accounts', async () => {
    const temp = await generateKeyPairSigner();
    const fresh = await generateKeyPairSigner();
    const rent = svm.minimumBalanceForRentExemption(165n);
    await execute(svm, payer, [
      getCreateAccountInstruction({ payer, newAccount: temp, lamports: rent, space: 165, programAddress: t.TOKEN_PROGRAM_ADDRESS }),
      t.getInitializeAccount3Instruction({ account: temp.address, mint: mint.address, owner: alice.address }),
      t.getTransferCheckedInstruction({ source: aliceAta, mint: mint.address, destination: temp.address, authority: alice, amount: 30n, decimals: 4 }),
    ]);
    const { tx } = await execute(svm, payer, [
      // temp: 30 → 0 and closed (present only in pre)
      t.getTransferInstruction({ source: temp.address, destination: bobAta, authority: alice, amount: 30n }),
      t.getCloseAccountInstruction({ account: temp.address, destination: alice.address, owner: alice }),
      // fresh: opened with 0 (present only in post, unchanged)
      getCreateAccountInstruction({ payer, newAccount: fresh, lamports: rent, space: 165, programAddress: t.TOKEN_PROGRAM_ADDRESS }),
      t.getInitializeAccount3Instruction({ account: fresh.address, mint: mint.address, owner: bob.address }),
      // aliceAta: touched (approve) but its amount is unchanged
      t.getApproveInstruction({ source: aliceAta, delegate: bob.address, owner: alice, amount: 1n }),
    ]);
    const byAccount = new Map(tokenDeltas(tx).map((d) => [d.account, d]));
    const common = { mint: mint.address, programId: TOKEN_PROGRAM, decimals: 4 };
    expect(byAccount.get(temp.address)).toEqual({ ...common, account: temp.address, owner: alice.address, pre: 30n, post: 0n, delta: -30n, changed: true });
    expect(byAccount.get(fresh.address)).toEqual({ ...common, account: fresh.address, owner: bob.address, pre: 0n, post: 0n, delta: 0n, changed: false });
    expect(byAccount.get(bobAta)).toEqual({ ...common, account: bobAta, owner: bob.address, pre: 0n, post: 30n, delta: 30n, changed: true });
    expect(byAccount.get(aliceAta)).toMatchObject({ pre: 9_970n, post: 9_970n, delta: 0n, changed: false });
    expect(byAccount.size).toBe(4);
    // Deltas are ordered by account index.
    const order = tokenDeltas(tx).map((d) => tx.accountKeys.indexOf(d.account));
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    // Closing returned the rent to Alice: her lamport delta is exactly the closed account's balance.
    expect(solDeltas(tx).find((d) => d.account === alice.address)).toEqual({ account: alice.address, pre: 0n, post: rent, delta: rent });
    expect(solDeltas(tx).find((d) => d.account === temp.address)?.delta).toBe(-rent);
  });

  it('an account index holding different mints before and after yields one entry per mint', async () => {
    const { tx } = await execute(svm, payer, [
      t.getTransferInstruction({ source: aliceAta, destination: bobAta, authority: alice, amount: 1n }),
    ]);
    const real = tx.meta!;
    const i = tx.accountKeys.indexOf(bobAta);
    const otherMint = (await generateKeyPairSigner()).address;
    // Re-label the post entry of bobAta with another mint (the close + re-open case, not reproducible in one tx here).
    const post = real.postTokenBalances!.map((b) => (b.accountIndex === i ? { ...b, mint: otherMint, amount: 5n } : b));
    const deltas = tokenDeltas({ ...tx, meta: { ...real, postTokenBalances: post } }).filter((d) => d.account === bobAta);
    expect(deltas).toMatchObject([
      { mint: mint.address, pre: 30n, post: 0n, delta: -30n, changed: true },
      { mint: otherMint, pre: 0n, post: 5n, delta: 5n, changed: true },
    ]);
  });

  it('no meta or no recorded token balances → []', async () => {
    const { tx } = await execute(svm, payer, [
      t.getTransferInstruction({ source: aliceAta, destination: bobAta, authority: alice, amount: 1n }),
    ]);
    expect(tokenDeltas({ ...tx, meta: null })).toEqual([]);
    expect(solDeltas({ ...tx, meta: null })).toEqual([]);
    expect(tokenDeltas({ ...tx, meta: { ...tx.meta!, preTokenBalances: null, postTokenBalances: null } })).toEqual([]);
  });
});
