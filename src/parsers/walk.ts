/**
 * Flattens a transaction into the execution order of its instructions, resolved to addresses.
 *
 * The runtime executes outer instruction `i`, and while doing so every CPI it makes; RPC and Geyser record those
 * CPIs as `innerInstructions[{index: i, instructions}]` in invocation order. Parsers want one flat list in that
 * order, each instruction carrying its program and account addresses instead of indexes into `accountKeys`.
 */
import type { CompiledInstruction, NormalizedTx } from '../core/model.js';
import type { IxPath, TracedInstruction } from './events.js';

/**
 * Returns the outer instructions of `tx`, each immediately followed by its inner (CPI) instructions, as
 * `TracedInstruction`s with `path = {outer, inner}` (`inner` null for the outer instruction itself).
 *
 * Indexes are resolved against `tx.accountKeys` (static keys, then lookup-table-loaded writable, then readonly:
 * the runtime order). Corrupt indexes never throw:
 *  - an instruction whose `programIdIndex` is outside `accountKeys` is skipped (its program cannot be named, so
 *    nothing useful can be said about it);
 *  - an instruction whose program resolves but one of whose account indexes does not is returned with
 *    `accounts: []` and `unresolved` set, so the registry can record `parse.failed` for known programs;
 *  - inner-instruction groups whose `index` names no outer instruction are dropped.
 */
export function walkTransaction(tx: NormalizedTx): readonly TracedInstruction[] {
  let out = walked.get(tx);
  if (!out) walked.set(tx, (out = walk(tx)));
  return out;
}

/**
 * Walks already made, by transaction: the ingester's parsers, classifier and Bubblegum pass each walk the same
 * transaction (two to four walks of each otherwise). A transaction is not changed once normalised, and the list is
 * read-only to its callers.
 */
const walked = new WeakMap<NormalizedTx, readonly TracedInstruction[]>();

function walk(tx: NormalizedTx): TracedInstruction[] {
  const innerByOuter = new Map<number, CompiledInstruction[]>();
  for (const group of [...tx.innerInstructions].sort((a, b) => a.index - b.index)) {
    const list = innerByOuter.get(group.index);
    if (list) list.push(...group.instructions);
    else innerByOuter.set(group.index, [...group.instructions]);
  }
  const out: TracedInstruction[] = [];
  tx.instructions.forEach((ix, outer) => {
    const traced = trace(tx.accountKeys, ix, { outer, inner: null });
    if (traced) out.push(traced);
    (innerByOuter.get(outer) ?? []).forEach((inner, i) => {
      const t = trace(tx.accountKeys, inner, { outer, inner: i });
      if (t) out.push(t);
    });
  });
  return out;
}

function trace(keys: readonly string[], ix: CompiledInstruction, path: IxPath): TracedInstruction | null {
  const programId = at(keys, ix.programIdIndex);
  if (programId === undefined) return null;
  const accounts: string[] = [];
  for (const i of ix.accounts) {
    const a = at(keys, i);
    if (a === undefined) {
      return {
        path,
        programId,
        accounts: [],
        data: ix.data,
        unresolved: `account index ${i} outside ${keys.length} account keys`,
      };
    }
    accounts.push(a);
  }
  return { path, programId, accounts, data: ix.data };
}

function at(keys: readonly string[], i: number): string | undefined {
  return Number.isInteger(i) && i >= 0 && i < keys.length ? keys[i] : undefined;
}
