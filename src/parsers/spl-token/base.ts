/**
 * The instruction set SPL Token and Token-2022 share (discriminators 0–24, identical layouts and account orders),
 * mapped to token events. Both program parsers decode with their own Codama client and hand the result here.
 *
 * Layouts: https://github.com/solana-program/token/blob/main/interface/src/instruction.rs and
 * https://github.com/solana-program/token-2022/blob/main/interface/src/instruction.rs
 */
import { type ParsedTokenInstruction, TokenInstruction } from '../../vendor/solana-program-token.js';
import { bytesToBase58 } from '../../core/encoding.js';
import type { Address } from '../../core/model.js';
import { optAddress } from '../common.js';
import type { DomainEvent, IxPath, TracedInstruction } from '../events.js';

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

/**
 * Fast path for the hottest token instructions, decoded straight from the bytes (identical layouts in SPL Token
 * and Token-2022; https://github.com/solana-program/token/blob/main/interface/src/instruction.rs):
 *  - `Transfer` (tag 3: u64 LE amount; accounts source, destination, authority, …signers);
 *  - `TransferChecked` (tag 12: u64 LE amount, u8 decimals; accounts source, mint, destination, authority, …);
 *  - `InitializeAccount3` (tag 18: 32-byte owner; accounts account, mint) and `GetAccountDataSize` (tag 21; account
 *    mint), the token side of every associated-token-account creation: no events; with extension types after the
 *    tag only for SPL Token (`splToken`), whose client reads the tag alone (Token-2022's decodes the types);
 *  - `MintTo` (tag 7: u64 LE amount; accounts mint, account, authority, …), `Burn` (tag 8: u64 LE amount; accounts
 *    account, mint, authority, …) and `CloseAccount` (tag 9; accounts account, destination, owner, …), next in a
 *    mainnet block (liquid-staking and LP mints, wrapped-SOL accounts closed after swaps);
 *  - `InitializeImmutableOwner` (tag 22; account account) only for SPL Token (`splToken`: it changes nothing;
 *    Token-2022 reports it as an extension through its client).
 * Gives exactly the events the Codama client path gives; returns null (the caller decodes with the client) for
 * every other instruction and for any data length or account count the fast path does not handle, so malformed
 * instructions still get the client's `parse.failed` reasons.
 */
export function fastTokenEvents(ix: TracedInstruction, splToken: boolean): DomainEvent[] | null {
  const d = ix.data;
  const a = ix.accounts;
  switch (d.length === 0 ? -1 : d[0]) {
    case TokenInstruction.Transfer:
      if (d.length !== 9 || a.length < 3) return null;
      return [
        {
          kind: 'token.transfer',
          path: ix.path,
          program: ix.programId,
          source: a[0],
          destination: a[1],
          authority: a[2],
          amount: readU64(d, 1),
          mint: null,
          decimals: null,
          fee: null,
        },
      ];
    case TokenInstruction.TransferChecked:
      if (d.length !== 10 || a.length < 4) return null;
      return [
        {
          kind: 'token.transfer',
          path: ix.path,
          program: ix.programId,
          source: a[0],
          destination: a[2],
          authority: a[3],
          amount: readU64(d, 1),
          mint: a[1],
          decimals: d[9],
          fee: null,
        },
      ];
    case TokenInstruction.InitializeAccount3:
      if (d.length !== 33 || a.length < 2) return null;
      return [initAccount(ix.programId, ix.path, a[0], a[1], bytesToBase58(d.subarray(1, 33)))];
    case TokenInstruction.GetAccountDataSize:
      return (d.length === 1 || splToken) && a.length >= 1 ? [] : null;
    case TokenInstruction.MintTo:
      if (d.length !== 9 || a.length < 3) return null;
      return [{ kind: 'token.mintTo', path: ix.path, program: ix.programId, mint: a[0], account: a[1], amount: readU64(d, 1), decimals: null }];
    case TokenInstruction.Burn:
      if (d.length !== 9 || a.length < 3) return null;
      return [{ kind: 'token.burn', path: ix.path, program: ix.programId, mint: a[1], account: a[0], amount: readU64(d, 1), decimals: null }];
    case TokenInstruction.CloseAccount:
      if (d.length !== 1 || a.length < 3) return null;
      return [{ kind: 'token.closeAccount', path: ix.path, program: ix.programId, account: a[0], destination: a[1] }];
    case TokenInstruction.InitializeImmutableOwner:
      return splToken && d.length === 1 && a.length >= 1 ? [] : null;
    default:
      return null;
  }
}

/** Little-endian u64 at `o`. */
export function readU64(d: Uint8Array, o: number): bigint {
  const lo = (d[o] | (d[o + 1] << 8) | (d[o + 2] << 16)) + d[o + 3] * 0x1000000;
  const hi = (d[o + 4] | (d[o + 5] << 8) | (d[o + 6] << 16)) + d[o + 7] * 0x1000000;
  return hi === 0 ? BigInt(lo) : (BigInt(hi) << 32n) | BigInt(lo);
}

function initAccount(program: Address, path: IxPath, account: Address, mint: Address, owner: Address): DomainEvent {
  return { kind: 'token.initAccount', path, program, account, mint, owner };
}
