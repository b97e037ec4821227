/**
 * Dispatches instructions to the parser of their program, and turns a whole transaction into domain events.
 * Pure and synchronous: no database, network, clock or logger.
 */
import type { NormalizedTx } from '../core/model.js';
import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../core/programs.js';
import { walkTransaction } from './walk.js';
import { guarded } from './common.js';
import type { DomainEvent, InstructionParser, TracedInstruction } from './events.js';
import { parseTokenIx } from './spl-token/index.js';
import { parseSystemIx } from './system/index.js';
import { parseToken2022Ix } from './token-2022/index.js';

/**
 * Parsers by program id. Programs not listed here (Compute Budget, Memo, Associated Token Account, everything
 * else) yield no events: their effects that matter (accounts created, tokens moved) appear as System / Token CPIs,
 * which the walker lists as inner instructions.
 */
export const PARSERS: ReadonlyMap<string, InstructionParser> = new Map<string, InstructionParser>([
  [SYSTEM_PROGRAM, parseSystemIx],
  [TOKEN_PROGRAM, parseTokenIx],
  [TOKEN_2022_PROGRAM, parseToken2022Ix],
]);

/**
 * Events for one instruction, by its program. Never throws: an exception inside a parser becomes one
 * `parse.failed` event, as does an instruction of a known program the walker could not resolve.
 */
export function parseInstruction(ix: TracedInstruction): DomainEvent[] {
  const parser = PARSERS.get(ix.programId);
  if (!parser) return [];
  return guarded(ix, parser);
}

/**
 * All events of a transaction, in execution order (outer instruction, then its CPIs). A failed transaction
 * (`meta.err` non-null) changed no state except its fee, so it yields `[]`; transactions without meta (Geyser-style
 * records) are taken as successful.
 */
export function parseTransaction(tx: NormalizedTx): DomainEvent[] {
  if (tx.meta && tx.meta.err !== null && tx.meta.err !== undefined) return [];
  return walkTransaction(tx).flatMap(parseInstruction);
}
