/**
 * The instruction set SPL Token and Token-2022 share (discriminators 0–24, identical layouts and account orders),
 * mapped to token events. Both program parsers decode with their own Codama client and hand the result here.
 *
 * Layouts: https://github.com/solana-program/token/blob/main/interface/src/instruction.rs and
 * https://github.com/solana-program/token-2022/blob/main/interface/src/instruction.rs
 */
import { type ParsedTokenInstruction, TokenInstruction } from '@solana-program/token';
import type { Address } from '../../core/model.js';
import { optAddress } from '../common.js';
import type { DomainEvent, IxPath } from '../events.js';

/** A decoded base-set instruction (`instructionType` 0–24, numbered the same in both clients). */
export type BaseTokenInstruction = ParsedTokenInstruction<string>;

/** Whether a decoded instruction type belongs to the shared base set. */
export function isBaseInstructionType(t: number): boolean {
  return t >= TokenInstruction.InitializeMint && t <= TokenInstruction.UiAmountToAmount;
}

/**
 * Events for one base-set instruction. `authorityName` maps the program's `AuthorityType` number to its name
 * (Token-2022 has more authority types than SPL Token). Instructions that change no indexed state
 * (initializeMultisig/2, syncNative, getAccountDataSize, amountToUiAmount, uiAmountToAmount and, for SPL Token,
 * initializeImmutableOwner) yield nothing; balances still come from the transaction's token-balance meta.
 */
export function baseTokenEvents(
  program: Address,
  path: IxPath,
  p: BaseTokenInstruction,
  authorityName: (authorityType: number) => string,
): DomainEvent[] {
  switch (p.instructionType) {
    case TokenInstruction.InitializeMint:
    case TokenInstruction.InitializeMint2:
      return [
        {
          kind: 'token.initMint',
          path,
          program,
          mint: p.accounts.mint.address,
          decimals: p.data.decimals,
          mintAuthority: p.data.mintAuthority,
          freezeAuthority: optAddress(p.data.freezeAuthority),
        },
      ];
    case TokenInstruction.InitializeAccount:
      return [initAccount(program, path, p.accounts.account.address, p.accounts.mint.address, p.accounts.owner.address)];
    case TokenInstruction.InitializeAccount2:
    case TokenInstruction.InitializeAccount3:
      return [initAccount(program, path, p.accounts.account.address, p.accounts.mint.address, p.data.owner)];
    case TokenInstruction.Transfer:
      return [
        {
          kind: 'token.transfer',
          path,
          program,
          source: p.accounts.source.address,
          destination: p.accounts.destination.address,
          authority: p.accounts.authority.address,
          amount: p.data.amount,
          mint: null,
          decimals: null,
          fee: null,
        },
      ];
    case TokenInstruction.TransferChecked:
      return [
        {
          kind: 'token.transfer',
          path,
          program,
          source: p.accounts.source.address,
          destination: p.accounts.destination.address,
          authority: p.accounts.authority.address,
          amount: p.data.amount,
          mint: p.accounts.mint.address,
          decimals: p.data.decimals,
          fee: null,
        },
      ];
    case TokenInstruction.Approve:
    case TokenInstruction.ApproveChecked:
      return [
        {
          kind: 'token.approve',
          path,
          program,
          account: p.accounts.source.address,
          delegate: p.accounts.delegate.address,
          amount: p.data.amount,
        },
      ];
    case TokenInstruction.Revoke:
      return [{ kind: 'token.revoke', path, program, account: p.accounts.source.address }];
    case TokenInstruction.SetAuthority:
      return [
        {
          kind: 'token.setAuthority',
          path,
          program,
          target: p.accounts.owned.address,
          authorityType: authorityName(p.data.authorityType),
          newAuthority: optAddress(p.data.newAuthority),
        },
      ];
    case TokenInstruction.MintTo:
    case TokenInstruction.MintToChecked:
      return [
        {
          kind: 'token.mintTo',
          path,
          program,
          mint: p.accounts.mint.address,
          account: p.accounts.token.address,
          amount: p.data.amount,
          decimals: 'decimals' in p.data ? p.data.decimals : null,
        },
      ];
    case TokenInstruction.Burn:
    case TokenInstruction.BurnChecked:
      return [
        {
          kind: 'token.burn',
          path,
          program,
          mint: p.accounts.mint.address,
          account: p.accounts.account.address,
          amount: p.data.amount,
          decimals: 'decimals' in p.data ? p.data.decimals : null,
        },
      ];
    case TokenInstruction.CloseAccount:
      return [
        {
          kind: 'token.closeAccount',
          path,
          program,
          account: p.accounts.account.address,
          destination: p.accounts.destination.address,
        },
      ];
    case TokenInstruction.FreezeAccount:
    case TokenInstruction.ThawAccount:
      return [
        {
          kind: p.instructionType === TokenInstruction.FreezeAccount ? 'token.freeze' : 'token.thaw',
          path,
          program,
          account: p.accounts.account.address,
          mint: p.accounts.mint.address,
        },
      ];
    default:
      return [];
  }
}

function initAccount(program: Address, path: IxPath, account: Address, mint: Address, owner: Address): DomainEvent {
  return { kind: 'token.initAccount', path, program, account, mint, owner };
}
