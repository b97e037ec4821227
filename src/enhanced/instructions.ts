/**
 * `instructions`: the outer instructions, each with the instructions it invoked (every CPI depth, flattened in
 * invocation order, as the runtime records them), accounts resolved to addresses and data in base58.
 */
import { bytesToBase58 } from '../core/encoding.js';
import type { NormalizedTx } from '../core/model.js';
import { walkTransaction } from '../parsers/walk.js';
import type { EnhancedInstruction } from './types.js';

export function enhancedInstructions(tx: NormalizedTx): EnhancedInstruction[] {
  const out: EnhancedInstruction[] = [];
  const byOuter = new Map<number, EnhancedInstruction>();
  for (const ix of walkTransaction(tx)) {
    const entry = { accounts: ix.accounts, data: bytesToBase58(ix.data), programId: ix.programId };
    if (ix.path.inner === null) {
      const outer = { ...entry, innerInstructions: [] };
      byOuter.set(ix.path.outer, outer);
      out.push(outer);
    } else {
      byOuter.get(ix.path.outer)?.innerInstructions.push(entry);
    }
  }
  return out;
}
