/**
 * System program parser: the instructions that move lamports or create accounts become `sol.transfer` /
 * `sol.createAccount` events; the rest (assign, allocate, nonce initialize/advance/authorize/upgrade) change no
 * balance and yield nothing.
 *
 * Decoding uses the Codama-generated `@solana-program/system` client (u32 little-endian discriminator, bincode
 * layouts). Layout source: https://github.com/anza-xyz/agave/blob/master/sdk/system-interface/src/instruction.rs
 * and the IDL at https://github.com/solana-program/system/blob/main/program/idl.json
 */
import { parseSystemInstruction, SystemInstruction } from '@solana-program/system';
import type { Address } from '../../core/model.js';
import { guarded, toKitInstruction } from '../common.js';
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

function transfer(path: IxPath, from: Address, to: Address, lamports: bigint, instruction: string): DomainEvent {
  return { kind: 'sol.transfer', path, from, to, lamports, instruction };
}
