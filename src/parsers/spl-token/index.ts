/**
 * SPL Token program parser (`TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA`), decoded with the Codama-generated
 * `@solana-program/token` client. Layouts and account orders:
 * https://github.com/solana-program/token/blob/main/interface/src/instruction.rs
 */
import { AuthorityType, parseTokenInstruction, TokenInstruction } from '../../vendor/solana-program-token.js';
import { guarded, lowerFirst, splitBatch, toKitInstruction } from '../common.js';
import type { DomainEvent, TracedInstruction } from '../events.js';
import { baseTokenEvents, fastTokenEvents } from './base.js';

/**
 * Parses one SPL Token instruction into token events (see `baseTokenEvents`). A `Batch` (255) is split into the
 * instructions it runs, each parsed in turn under the batch's path. `withdrawExcessLamports` and `unwrapLamports`
 * yield nothing (lamport and wrapped-SOL balances come from the transaction meta). Never throws: an unknown
 * discriminator, truncated data or too few accounts yield one `parse.failed`.
 */
export function parseTokenIx(ix: TracedInstruction): DomainEvent[] {
  return guarded(ix, decode);
}

function decode(ix: TracedInstruction): DomainEvent[] {
  return fastTokenEvents(ix, true) ?? clientDecode(ix);
}

/** The same parser without the byte-level fast path (tests check that both give identical events). */
export function parseTokenIxWithClient(ix: TracedInstruction): DomainEvent[] {
  return guarded(ix, clientDecode);
}

function clientDecode(ix: TracedInstruction): DomainEvent[] {
  const p = parseTokenInstruction(toKitInstruction(ix));
  if (p.instructionType === TokenInstruction.Batch) {
    return splitBatch(ix, p.data.data).flatMap(parseTokenIx);
  }
  return baseTokenEvents(ix.programId, ix.path, p, authorityName);
}

function authorityName(t: number): string {
  const name = (AuthorityType as Record<number, string>)[t];
  return name ? lowerFirst(name) : `unknown(${t})`;
}
