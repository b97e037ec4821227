/**
 * System program parser: the instructions that move lamports or create accounts become `sol.transfer` /
 * `sol.createAccount` events; the rest (assign, allocate, nonce initialize/advance/authorize/upgrade) change no
 * balance and yield nothing.
 *
 * Decoding uses the Codama-generated `@solana-program/system` client (u32 little-endian discriminator, bincode
 * layouts). Layout source: https://github.com/anza-xyz/agave/blob/master/sdk/system-interface/src/instruction.rs
 * and the IDL at https://github.com/solana-program/system/blob/main/program/idl.json
 */
import { parseSystemInstruction, SystemInstruction } from '../../vendor/solana-program-system.js';
import type { Address } from '../../core/model.js';
import { bytesToBase58 } from '../../core/encoding.js';
import { guarded, toKitInstruction } from '../common.js';
import { readU64 } from '../spl-token/base.js';
import type { DomainEvent, IxPath, TracedInstruction } from '../events.js';

/**
 * Parses one System program instruction. Never throws: undecodable data, an unknown discriminator or too few
 * accounts yield a single `parse.failed` event.
 *
 * - `transferSol` / `transferSolWithSeed` / `withdrawNonceAccount` → `sol.transfer`;
 * - `createAccount` / `createAccountWithSeed` → `sol.createAccount` then a `sol.transfer` of the funding lamports
 *   (`instruction` names the System instruction);
 * - `createAccountAllowPrefund` → `sol.createAccount`, plus a `sol.transfer` when a payer is given and lamports > 0.
 */
export function parseSystemIx(ix: TracedInstruction): DomainEvent[] {
  return guarded(ix, decode);
}

function decode(ix: TracedInstruction): DomainEvent[] {
  return fastSystemEvents(ix) ?? clientDecode(ix);
}

/** The same parser without the byte-level fast path (tests check that both give identical events). */
export function parseSystemIxWithClient(ix: TracedInstruction): DomainEvent[] {
  return guarded(ix, clientDecode);
}

function clientDecode(ix: TracedInstruction): DomainEvent[] {
  const p = parseSystemInstruction(toKitInstruction(ix));
  const path = ix.path;
  switch (p.instructionType) {
    case SystemInstruction.TransferSol:
      return [transfer(path, p.accounts.source.address, p.accounts.destination.address, p.data.amount, 'transfer')];
    case SystemInstruction.TransferSolWithSeed:
      return [
        transfer(path, p.accounts.source.address, p.accounts.destination.address, p.data.amount, 'transferWithSeed'),
      ];
    case SystemInstruction.WithdrawNonceAccount:
      return [
        transfer(
          path,
          p.accounts.nonceAccount.address,
          p.accounts.recipientAccount.address,
          p.data.withdrawAmount,
          'withdrawNonceAccount',
        ),
      ];
    case SystemInstruction.CreateAccount: {
      const funder = p.accounts.payer.address;
      const account = p.accounts.newAccount.address;
      return [
        {
          kind: 'sol.createAccount',
          path,
          funder,
          account,
          lamports: p.data.lamports,
          space: p.data.space,
          owner: p.data.programAddress,
          seed: null,
          base: null,
        },
        transfer(path, funder, account, p.data.lamports, 'createAccount'),
      ];
    }
    case SystemInstruction.CreateAccountWithSeed: {
      const funder = p.accounts.payer.address;
      const account = p.accounts.newAccount.address;
      return [
        {
          kind: 'sol.createAccount',
          path,
          funder,
          account,
          lamports: p.data.amount,
          space: p.data.space,
          owner: p.data.programAddress,
          seed: p.data.seed,
          base: p.data.base,
        },
        transfer(path, funder, account, p.data.amount, 'createAccountWithSeed'),
      ];
    }
    case SystemInstruction.CreateAccountAllowPrefund: {
      const account = p.accounts.newAccount.address;
      const payer = p.accounts.payer?.address ?? null;
      const events: DomainEvent[] = [
        {
          kind: 'sol.createAccount',
          path,
          funder: payer ?? account,
          account,
          lamports: p.data.lamports,
          space: p.data.space,
          owner: p.data.programAddress,
          seed: null,
          base: null,
        },
      ];
      if (payer && p.data.lamports > 0n) {
        events.push(transfer(path, payer, account, p.data.lamports, 'createAccountAllowPrefund'));
      }
      return events;
    }
    default:
      // Assign, Allocate(WithSeed), AssignWithSeed and the nonce lifecycle move no lamports.
      return [];
  }
}

/**
 * Fast path for the two hottest System instructions, read straight from the bytes (u32 LE discriminator, bincode):
 * `CreateAccount` (0: u64 lamports, u64 space, 32-byte owner; accounts payer, newAccount) and `TransferSol`
 * (2: u64 lamports; accounts source, destination). Same events as the client path; null (decode with the
 * client) for anything else or any length/account count it does not handle.
 */
function fastSystemEvents(ix: TracedInstruction): DomainEvent[] | null {
  const d = ix.data;
  const a = ix.accounts;
  if (d.length < 4 || d[1] !== 0 || d[2] !== 0 || d[3] !== 0 || a.length < 2) return null;
  if (d[0] === 2 && d.length === 12) return [transfer(ix.path, a[0], a[1], readU64(d, 4), 'transfer')];
  if (d[0] === 0 && d.length === 52) {
    const lamports = readU64(d, 4);
    return [
      {
        kind: 'sol.createAccount',
        path: ix.path,
        funder: a[0],
        account: a[1],
        lamports,
        space: readU64(d, 12),
        owner: bytesToBase58(d.subarray(20, 52)),
        seed: null,
        base: null,
      },
      transfer(ix.path, a[0], a[1], lamports, 'createAccount'),
    ];
  }
  return null;
}

function transfer(path: IxPath, from: Address, to: Address, lamports: bigint, instruction: string): DomainEvent {
  return { kind: 'sol.transfer', path, from, to, lamports, instruction };
}
