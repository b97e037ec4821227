/**
 * Token-2022 program parser (`TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb`), decoded with the Codama-generated
 * `@solana-program/token-2022` client: the base set shared with SPL Token goes through `baseTokenEvents`, the
 * extension instructions through `extensionEvents`.
 * Source: https://github.com/solana-program/token-2022/blob/main/interface/src/instruction.rs
 */
import {
  AuthorityType,
  parseToken2022Instruction,
  Token2022Instruction,
} from '../../vendor/solana-program-token-2022.js';
import { guarded, lowerFirst, splitBatch, toKitInstruction } from '../common.js';
import type { DomainEvent, TracedInstruction } from '../events.js';
import { type BaseTokenInstruction, baseTokenEvents, fastTokenEvents, isBaseInstructionType } from '../spl-token/base.js';
import { extensionEvents } from './extensions.js';

/**
 * Parses one Token-2022 instruction. Base instructions give the same events as SPL Token (with Token-2022's wider
 * `AuthorityType` names); extension instructions give `token.extension` (and, for `transferCheckedWithFee`, also a
 * `token.transfer` carrying the fee; for `permissionedBurn(Checked)` a `token.burn`). A `Batch` is split and each
 * inner instruction parsed under the batch's path. Never throws: anything undecodable yields one `parse.failed`.
 */
export function parseToken2022Ix(ix: TracedInstruction): DomainEvent[] {
  return guarded(ix, decode);
}

function decode(ix: TracedInstruction): DomainEvent[] {
  return fastTokenEvents(ix, false) ?? clientDecode(ix);
}

/** The same parser without the byte-level fast path (tests check that both give identical events). */
export function parseToken2022IxWithClient(ix: TracedInstruction): DomainEvent[] {
  return guarded(ix, clientDecode);
}

function clientDecode(ix: TracedInstruction): DomainEvent[] {
  const p = parseToken2022Instruction(toKitInstruction(ix));
  if (p.instructionType === Token2022Instruction.Batch) {
    return splitBatch(ix, p.data.data).flatMap(parseToken2022Ix);
  }
  if (isBaseInstructionType(p.instructionType) && p.instructionType !== Token2022Instruction.InitializeImmutableOwner) {
    // Discriminators 0–24 have identical layouts and account orders in both programs, and both Codama clients
    // number them identically; only the AuthorityType enum is wider here, which `authorityName` handles.
    return baseTokenEvents(ix.programId, ix.path, p as unknown as BaseTokenInstruction, authorityName);
  }
  return extensionEvents(ix, p);
}

function authorityName(t: number): string {
  const name = (AuthorityType as Record<number, string>)[t];
  return name ? lowerFirst(name) : `unknown(${t})`;
}
