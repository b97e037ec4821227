/**
 * Token-2022 extension instructions executed in LiteSVM with the @solana-program/token-2022 builders. Events must
 * state what was sent; where possible they are checked against the mint/account state decoded after execution.
 */
import * as t22 from '@solana-program/token-2022';
import { getCreateAccountInstruction } from '@solana-program/system';
import { type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner, lamports, some, unwrapOption } from '@solana/kit';
import { LiteSVM } from 'litesvm';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_2022_PROGRAM } from '../../src/core/programs.js';
import type { DomainEvent, TokenExtensionEvent } from '../../src/parsers/events.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { execute } from './helpers.js';

const program = TOKEN_2022_PROGRAM;
let svm: LiteSVM;
let payer: KeyPairSigner;
let alice: KeyPairSigner;
let bob: KeyPairSigner;

const run = async (ixs: Instruction[]) => parseTransaction((await execute(svm, payer, ixs)).tx);
const exts = (events: DomainEvent[]) =>
  events
    .filter((e): e is TokenExtensionEvent => e.kind === 'token.extension')
    .map((e) => [e.extension, e.action, e.target, e.data] as const);

function mintState(mint: Address) {
  const acc = svm.getAccount(mint);
  if (!acc.exists) throw new Error('no mint');
  return t22.getMintDecoder().decode(acc.data);
}
function extensionOf(mint: Address, kind: string) {
  return (unwrapOption(mintState(mint).extensions) ?? []).find((e) => e.__kind === kind);
}
/** createAccount sized for `fixed` extensions, funded for `fixed` + `variable` (metadata/group reallocations). */
function createMint(mint: KeyPairSigner, fixed: t22.ExtensionArgs[], variable: t22.ExtensionArgs[] = []): Instruction {
  return getCreateAccountInstruction({
    payer,
    newAccount: mint,
    lamports: svm.minimumBalanceForRentExemption(BigInt(t22.getMintSize([...fixed, ...variable]))),
    space: t22.getMintSize(fixed),
    programAddress: program as Address,
  });
}
const ata = async (owner: Address, mint: Address) => (await t22.findAssociatedTokenPda({ owner, mint, tokenProgram: program as Address }))[0];

beforeAll(async () => {
  svm = new LiteSVM();
  [payer, alice, bob] = await Promise.all([1, 2, 3].map(() => generateKeyPairSigner()));
  svm.airdrop(payer.address, lamports(100_000_000_000n));
});

describe('Token-2022 extensions (LiteSVM)', () => {
  let feeMint: KeyPairSigner;
  let aliceAta: Address;
  let bobAta: Address;

  it('transfer fee, metadata pointer, close authority, permanent delegate, token metadata', async () => {
    feeMint = await generateKeyPairSigner();
    const m = feeMint.address;
    const fixed: t22.ExtensionArgs[] = [
      t22.extension('TransferFeeConfig', {
        transferFeeConfigAuthority: payer.address,
        withdrawWithheldAuthority: payer.address,
        withheldAmount: 0,
        olderTransferFee: { epoch: 0, maximumFee: 0, transferFeeBasisPoints: 0 },
        newerTransferFee: { epoch: 0, maximumFee: 0, transferFeeBasisPoints: 0 },
      }),
      t22.extension('MetadataPointer', { authority: payer.address, metadataAddress: m }),
      t22.extension('MintCloseAuthority', { closeAuthority: payer.address }),
      t22.extension('PermanentDelegate', { delegate: bob.address }),
    ];
    const metadata = t22.extension('TokenMetadata', {
      updateAuthority: payer.address,
      mint: m,
      name: 'Solgate Test Token Renamed',
      symbol: 'SGT',
      uri: 'https://example.com/sgt.json',
      additionalMetadata: new Map([['color', 'blue']]),
    });
    const events = await run([
      createMint(feeMint, fixed, [metadata]),
      t22.getInitializeTransferFeeConfigInstruction({
        mint: m, transferFeeConfigAuthority: payer.address, withdrawWithheldAuthority: payer.address,
        transferFeeBasisPoints: 100, maximumFee: 1_000_000n,
      }),
      t22.getInitializeMetadataPointerInstruction({ mint: m, authority: payer.address, metadataAddress: m }),
      t22.getInitializeMintCloseAuthorityInstruction({ mint: m, closeAuthority: payer.address }),
      t22.getInitializePermanentDelegateInstruction({ mint: m, delegate: bob.address }),
      t22.getInitializeMint2Instruction({ mint: m, decimals: 2, mintAuthority: payer.address, freezeAuthority: null }),
      t22.getInitializeTokenMetadataInstruction({
        metadata: m, updateAuthority: payer.address, mint: m, mintAuthority: payer,
        name: 'Solgate Test Token', symbol: 'SGT', uri: 'https://example.com/sgt.json',
      }),
      t22.getUpdateTokenMetadataFieldInstruction({
        metadata: m, updateAuthority: payer, field: t22.tokenMetadataField('Key', ['color']), value: 'blue',
      }),
      t22.getUpdateTokenMetadataFieldInstruction({
        metadata: m, updateAuthority: payer, field: t22.tokenMetadataField('Name'), value: 'Solgate Test Token Renamed',
      }),
      t22.getRemoveTokenMetadataKeyInstruction({ metadata: m, updateAuthority: payer, idempotent: true, key: 'absent' }),
      t22.getUpdateTokenMetadataUpdateAuthorityInstruction({ metadata: m, updateAuthority: payer, newUpdateAuthority: alice.address }),
    ]);
    expect(events.find((e) => e.kind === 'token.initMint')).toMatchObject({ mint: m, decimals: 2, freezeAuthority: null });
    expect(exts(events)).toEqual([
      ['transferFeeConfig', 'initialize', m, {
        transferFeeConfigAuthority: payer.address, withdrawWithheldAuthority: payer.address,
        transferFeeBasisPoints: 100, maximumFee: '1000000',
      }],
      ['metadataPointer', 'initialize', m, { authority: payer.address, metadataAddress: m }],
      ['mintCloseAuthority', 'initialize', m, { closeAuthority: payer.address }],
      ['permanentDelegate', 'initialize', m, { delegate: bob.address }],
      ['tokenMetadata', 'initialize', m, {
        name: 'Solgate Test Token', symbol: 'SGT', uri: 'https://example.com/sgt.json', updateAuthority: payer.address, mint: m,
      }],
      ['tokenMetadata', 'updateField', m, { field: 'color', value: 'blue' }],
      ['tokenMetadata', 'updateField', m, { field: 'name', value: 'Solgate Test Token Renamed' }],
      ['tokenMetadata', 'removeKey', m, { idempotent: true, key: 'absent' }],
      ['tokenMetadata', 'updateAuthority', m, { newUpdateAuthority: alice.address }],
    ]);
    // Cross-check against the mint as Token-2022 wrote it.
    const md = extensionOf(m, 'TokenMetadata');
    expect(md).toMatchObject({ name: 'Solgate Test Token Renamed', symbol: 'SGT', updateAuthority: some(alice.address) });
    expect(md && 'additionalMetadata' in md && md.additionalMetadata.get('color')).toBe('blue');
    expect(extensionOf(m, 'PermanentDelegate')).toMatchObject({ delegate: bob.address });
  });

  it('transferCheckedWithFee gives token.transfer with fee; withheld-fee instructions are recorded', async () => {
    const m = feeMint.address;
    [aliceAta, bobAta] = await Promise.all([ata(alice.address, m), ata(bob.address, m)]);
    await execute(svm, payer, [
      await t22.getCreateAssociatedTokenInstructionAsync({ payer, owner: alice.address, mint: m }),
      await t22.getCreateAssociatedTokenInstructionAsync({ payer, owner: bob.address, mint: m }),
      t22.getMintToInstruction({ mint: m, token: aliceAta, mintAuthority: payer, amount: 1_000_000n }),
    ]);
    const events = await run([
      t22.getTransferCheckedWithFeeInstruction({
        source: aliceAta, mint: m, destination: bobAta, authority: alice, amount: 10_000n, decimals: 2, fee: 100n,
      }),
      t22.getHarvestWithheldTokensToMintInstruction({ mint: m, sources: [bobAta] }),
      t22.getWithdrawWithheldTokensFromMintInstruction({ mint: m, feeReceiver: aliceAta, withdrawWithheldAuthority: payer }),
      t22.getTransferCheckedWithFeeInstruction({
        source: aliceAta, mint: m, destination: bobAta, authority: alice, amount: 5_000n, decimals: 2, fee: 50n,
      }),
      t22.getWithdrawWithheldTokensFromAccountsInstruction({
        mint: m, feeReceiver: aliceAta, withdrawWithheldAuthority: payer, numTokenAccounts: 1, sources: [bobAta],
      }),
      t22.getSetTransferFeeInstruction({ mint: m, transferFeeConfigAuthority: payer, transferFeeBasisPoints: 50, maximumFee: 10n }),
    ]);
    expect(events[0]).toEqual({
      kind: 'token.transfer', path: { outer: 0, inner: null }, program, source: aliceAta, destination: bobAta,
      authority: alice.address, amount: 10_000n, mint: m, decimals: 2, fee: 100n,
    });
    expect(exts(events)).toEqual([
      ['transferFeeConfig', 'transferCheckedWithFee', m, { source: aliceAta, destination: bobAta, amount: '10000', decimals: 2, fee: '100' }],
      ['transferFeeConfig', 'harvestWithheldTokensToMint', m, { sources: [bobAta] }],
      ['transferFeeConfig', 'withdrawWithheldTokensFromMint', m, { destination: aliceAta }],
      ['transferFeeConfig', 'transferCheckedWithFee', m, { source: aliceAta, destination: bobAta, amount: '5000', decimals: 2, fee: '50' }],
      ['transferFeeConfig', 'withdrawWithheldTokensFromAccounts', m, { destination: aliceAta, numTokenAccounts: 1, sources: [bobAta] }],
      ['transferFeeConfig', 'setTransferFee', m, { transferFeeBasisPoints: 50, maximumFee: '10' }],
    ]);
    // Bob received amount - fee twice; the fees went back to Alice.
    const amount = (a: Address) => {
      const acc = svm.getAccount(a);
      return acc.exists ? t22.getTokenDecoder().decode(acc.data).amount : null;
    };
    expect(amount(bobAta)).toBe(10_000n - 100n + 5_000n - 50n);
    expect(amount(aliceAta)).toBe(1_000_000n - 15_000n + 150n);
  });

  it('group pointer, token group, member pointer, group member', async () => {
    const [group, member] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const g = group.address;
    const mm = member.address;
    const groupFixed = [t22.extension('GroupPointer', { authority: payer.address, groupAddress: g })];
    const memberFixed = [t22.extension('GroupMemberPointer', { authority: payer.address, memberAddress: mm })];
    const events = await run([
      createMint(group, groupFixed, [t22.extension('TokenGroup', { updateAuthority: payer.address, mint: g, size: 0, maxSize: 10 })]),
      t22.getInitializeGroupPointerInstruction({ mint: g, authority: payer.address, groupAddress: g }),
      t22.getInitializeMint2Instruction({ mint: g, decimals: 0, mintAuthority: payer.address, freezeAuthority: null }),
      t22.getInitializeTokenGroupInstruction({ group: g, mint: g, mintAuthority: payer, updateAuthority: payer.address, maxSize: 10n }),
      createMint(member, memberFixed, [t22.extension('TokenGroupMember', { mint: mm, group: g, memberNumber: 1 })]),
      t22.getInitializeGroupMemberPointerInstruction({ mint: mm, authority: payer.address, memberAddress: mm }),
      t22.getInitializeMint2Instruction({ mint: mm, decimals: 0, mintAuthority: payer.address, freezeAuthority: null }),
      t22.getInitializeTokenGroupMemberInstruction({
        member: mm, memberMint: mm, memberMintAuthority: payer, group: g, groupUpdateAuthority: payer,
      }),
      t22.getUpdateTokenGroupMaxSizeInstruction({ group: g, updateAuthority: payer, maxSize: 20n }),
      t22.getUpdateGroupPointerInstruction({ mint: g, groupPointerAuthority: payer, groupAddress: g }),
    ]);
    expect(exts(events)).toEqual([
      ['groupPointer', 'initialize', g, { authority: payer.address, groupAddress: g }],
      ['tokenGroup', 'initialize', g, { mint: g, updateAuthority: payer.address, maxSize: '10' }],
      ['groupMemberPointer', 'initialize', mm, { authority: payer.address, memberAddress: mm }],
      ['tokenGroupMember', 'initialize', mm, { memberMint: mm, group: g }],
      ['tokenGroup', 'updateMaxSize', g, { maxSize: '20' }],
      ['groupPointer', 'update', g, { groupAddress: g }],
    ]);
    expect(extensionOf(g, 'TokenGroup')).toMatchObject({ maxSize: 20n, size: 1n });
    expect(extensionOf(mm, 'TokenGroupMember')).toMatchObject({ group: g, memberNumber: 1n });
  });

  it('non-transferable, interest-bearing, default account state, transfer hook', async () => {
    const mint = await generateKeyPairSigner();
    const m = mint.address;
    const hookProgram = (await generateKeyPairSigner()).address;
    const fixed = [
      t22.extension('NonTransferable', {}),
      t22.extension('InterestBearingConfig', {
        rateAuthority: payer.address, initializationTimestamp: 0, preUpdateAverageRate: 0, lastUpdateTimestamp: 0, currentRate: 0,
      }),
      t22.extension('DefaultAccountState', { state: t22.AccountState.Frozen }),
      t22.extension('TransferHook', { authority: payer.address, programId: hookProgram }),
    ];
    const events = await run([
      createMint(mint, fixed),
      t22.getInitializeNonTransferableMintInstruction({ mint: m }),
      t22.getInitializeInterestBearingMintInstruction({ mint: m, rateAuthority: payer.address, rate: 500 }),
      t22.getInitializeDefaultAccountStateInstruction({ mint: m, state: t22.AccountState.Frozen }),
      t22.getInitializeTransferHookInstruction({ mint: m, authority: payer.address, programId: hookProgram }),
      t22.getInitializeMint2Instruction({ mint: m, decimals: 3, mintAuthority: payer.address, freezeAuthority: payer.address }),
      t22.getUpdateRateInterestBearingMintInstruction({ mint: m, rateAuthority: payer, rate: -25 }),
      t22.getUpdateDefaultAccountStateInstruction({ mint: m, freezeAuthority: payer, state: t22.AccountState.Initialized }),
      t22.getUpdateTransferHookInstruction({ mint: m, authority: payer, programId: null }),
    ]);
    expect(exts(events)).toEqual([
      ['nonTransferable', 'initialize', m, {}],
      ['interestBearingConfig', 'initialize', m, { rateAuthority: payer.address, rate: 500 }],
      ['defaultAccountState', 'initialize', m, { state: 'frozen' }],
      ['transferHook', 'initialize', m, { authority: payer.address, programId: hookProgram }],
      ['interestBearingConfig', 'updateRate', m, { rate: -25 }],
      ['defaultAccountState', 'update', m, { state: 'initialized' }],
      ['transferHook', 'update', m, { programId: null }],
    ]);
    expect(extensionOf(m, 'InterestBearingConfig')).toMatchObject({ currentRate: -25 });
  });

  it('account extensions: reallocate, memo transfer, CPI guard, immutable owner', async () => {
    const m = feeMint.address;
    const carol = await generateKeyPairSigner();
    const carolAta = await ata(carol.address, m);
    const events = await run([
      await t22.getCreateAssociatedTokenInstructionAsync({ payer, owner: carol.address, mint: m }),
      t22.getReallocateInstruction({
        token: carolAta, payer, owner: carol,
        newExtensionTypes: [t22.ExtensionType.MemoTransfer, t22.ExtensionType.CpiGuard],
      }),
      t22.getEnableMemoTransfersInstruction({ token: carolAta, owner: carol }),
      t22.getEnableCpiGuardInstruction({ token: carolAta, owner: carol }),
      t22.getDisableCpiGuardInstruction({ token: carolAta, owner: carol }),
      t22.getDisableMemoTransfersInstruction({ token: carolAta, owner: carol }),
    ]);
    expect(exts(events)).toEqual([
      ['immutableOwner', 'initialize', carolAta, {}], // CPI from the ATA program
      ['reallocate', 'reallocate', carolAta, { extensionTypes: ['memoTransfer', 'cpiGuard'] }],
      ['memoTransfer', 'enable', carolAta, {}],
      ['cpiGuard', 'enable', carolAta, {}],
      ['cpiGuard', 'disable', carolAta, {}],
      ['memoTransfer', 'disable', carolAta, {}],
    ]);
    expect(events.find((e) => e.kind === 'token.extension')!.path.inner).not.toBeNull();
  });

  it('scaled UI amount, pausable, confidential transfer mint (name only)', async () => {
    const mint = await generateKeyPairSigner();
    const m = mint.address;
    const fixed = [
      t22.extension('ScaledUiAmountConfig', { authority: payer.address, multiplier: 1, newMultiplierEffectiveTimestamp: 0, newMultiplier: 1 }),
      t22.extension('PausableConfig', { authority: payer.address, paused: false }),
      t22.extension('ConfidentialTransferMint', { authority: payer.address, autoApproveNewAccounts: true, auditorElgamalPubkey: null }),
    ];
    const events = await run([
      createMint(mint, fixed),
      t22.getInitializeScaledUiAmountMintInstruction({ mint: m, authority: payer.address, multiplier: 1.5 }),
      t22.getInitializePausableConfigInstruction({ mint: m, authority: payer.address }),
      t22.getInitializeConfidentialTransferMintInstruction({
        mint: m, authority: payer.address, autoApproveNewAccounts: true, auditorElgamalPubkey: null,
      }),
      t22.getInitializeMint2Instruction({ mint: m, decimals: 0, mintAuthority: payer.address, freezeAuthority: null }),
      t22.getUpdateMultiplierScaledUiMintInstruction({ mint: m, authority: payer, multiplier: 2, effectiveTimestamp: 0n }),
      t22.getPauseInstruction({ mint: m, authority: payer }),
      t22.getResumeInstruction({ mint: m, authority: payer }),
    ]);
    expect(exts(events)).toEqual([
      ['scaledUiAmountConfig', 'initialize', m, { authority: payer.address, multiplier: 1.5 }],
      ['pausableConfig', 'initialize', m, { authority: payer.address }],
      ['confidentialTransfer', 'initializeConfidentialTransferMint', m, {}],
      ['scaledUiAmountConfig', 'updateMultiplier', m, { multiplier: 2, effectiveTimestamp: '0' }],
      ['pausableConfig', 'pause', m, {}],
      ['pausableConfig', 'resume', m, {}],
    ]);
    expect(extensionOf(m, 'ScaledUiAmountConfig')).toMatchObject({ newMultiplier: 2 });
  });
});
