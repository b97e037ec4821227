/**
 * Instruction groups of a Light transaction (an outer instruction and the CPIs it made, in order) and the events
 * read from each group, as Photon's `parse_transaction` walks them (helius-labs/photon `src/ingester/parser/mod.rs`):
 * the newer instruction-pair event form, else the legacy noop-logged `PublicTransactionEvent`, then every
 * `MerkleTreeEvent` and tree rollover of the group. Kept apart from the builder (`update-builder.ts`), which turns the
 * events found here into rows.
 */
import { errorReason } from '../common.js';
import type { TracedInstruction } from '../events.js';
import type { TxEvent } from './events.js';
import { eventsFromInstructionGroup } from './instruction-events.js';
import { decodeMerkleTreeEvent, decodePublicTransactionEvent } from './noop-events.js';
import { ACCOUNT_COMPRESSION_PROGRAM, NOOP_PROGRAM, SOLANA_SYSTEM_PROGRAM } from './programs.js';
import { parseRollover } from './rollovers.js';
import type { UpdateBuilder } from './update-builder.js';

/** Instruction groups: each outer instruction followed by its CPIs (Photon's `instruction_groups`). */
export function groupsOf(ixs: readonly TracedInstruction[]): TracedInstruction[][] {
  const groups = new Map<number, TracedInstruction[]>();
  for (const ix of ixs) {
    const g = groups.get(ix.path.outer);
    if (g) g.push(ix);
    else groups.set(ix.path.outer, [ix]);
  }
  return [...groups.values()];
}

/**
 * Photon's legacy rule: after an account compression instruction, a noop call preceded only by one or two SOL
 * transfers (the second pays a tree rollover fee) carries the `PublicTransactionEvent`.
 */
function legacyNoopAfter(group: readonly TracedInstruction[], i: number): number | null {
  let transfers = 0;
  for (let j = i + 1; j < group.length; j++) {
    const p = group[j].programId;
    if (p === NOOP_PROGRAM) return transfers >= 1 && transfers <= 2 ? j : null;
    if (p !== SOLANA_SYSTEM_PROGRAM || ++transfers > 2) return null;
  }
  return null;
}

/** Feeds one instruction group's events (see the module comment for the order) into `b`. */
export function parseGroup(b: UpdateBuilder, group: readonly TracedInstruction[]): void {
  const v2 = eventsFromInstructionGroup(group);
  if (v2.kind === 'events') {
    b.compression = true;
    for (const { event, at } of v2.events) b.batchTxEvent(event, at);
  } else {
    if (v2.kind === 'failed') b.fail(v2.at, `light transaction event: ${v2.reason}`);
    group.forEach((ix, i) => {
      if (ix.programId !== ACCOUNT_COMPRESSION_PROGRAM || i === group.length - 1) return;
      const noop = legacyNoopAfter(group, i);
      if (noop === null) return;
      let ev: TxEvent;
      try {
        ev = decodePublicTransactionEvent(group[noop].data);
      } catch (e) {
        b.fail(group[noop], `PublicTransactionEvent: ${errorReason(e)}`);
        return;
      }
      b.compression = true;
      b.txEvent(ev, group[noop]);
    });
  }
  for (let i = 0; i + 1 < group.length; i++) {
    const ix = group[i];
    if (ix.programId !== ACCOUNT_COMPRESSION_PROGRAM) continue;
    const next = group[i + 1];
    if (next.programId === NOOP_PROGRAM) {
      const ev = decodeMerkleTreeEvent(next.data);
      if (ev) {
        b.compression = true;
        try {
          b.merkleTreeEvent(ev, next);
        } catch (e) {
          b.fail(next, `MerkleTreeEvent: ${errorReason(e)}`);
        }
      }
    }
  }
  for (const ix of group) {
    try {
      const r = parseRollover(ix);
      if (r) b.u.treeRollovers.push(r);
    } catch (e) {
      b.fail(ix, errorReason(e));
    }
  }
}
