/**
 * Bubblegum (compressed NFT) transaction parser: one `CnftEvent` per Bubblegum instruction, outer or CPI.
 *
 * A Bubblegum instruction's effects are only visible through the events its CPIs log via the noop programs (the
 * tree change log from account compression, and Bubblegum's own leaf event), so this parser needs the whole
 * transaction, not one instruction: each Bubblegum instruction is paired with the noop inner instructions it
 * caused. When the source records stack heights, those are its CPI descendants (the following inner instructions
 * deeper than it). Without them (Geyser-style records, old RPC responses) the DAS reference's rule applies
 * (`blockbuster/src/instruction.rs`, `order_instructions` / `hoist_known_programs`): an outer Bubblegum instruction
 * owns all inner instructions of its group; a Bubblegum CPI owns the inner instructions after it up to the next
 * Bubblegum instruction.
 * https://github.com/metaplex-foundation/digital-asset-rpc-infrastructure/blob/main/blockbuster/src/instruction.rs
 *
 * Pure and synchronous; never throws: an instruction that does not decode (unknown discriminator, truncated data,
 * missing accounts, a corrupt leaf event) yields one `parse.failed` event.
 */
import type { NormalizedTx } from '../../core/model.js';
import { walkTransaction } from '../walk.js';
import { errorReason, failed } from '../common.js';
import type { TracedInstruction } from '../events.js';
import { COMPRESSION_PROGRAM_BY_NOOP, decodeCompressionNoop, type ChangeLog } from '../account-compression/events.js';
import { buildEvent } from './build.js';
import type { CnftEvent, CnftLeaf } from './events.js';
import { BUBBLEGUM_PROGRAM, bubblegumSpec } from './instructions.js';
import { decodeLeafEvent } from './leaf.js';

export type * from './events.js';
export { BUBBLEGUM_PROGRAM, BUBBLEGUM_INSTRUCTIONS, bubblegumSpec } from './instructions.js';
export { cnftAssetId, findProgramAddressSync } from './leaf.js';

/**
 * Every Bubblegum instruction of `tx` as a `CnftEvent`, in execution order. A failed transaction (`meta.err`
 * non-null) changed nothing, so it yields `[]`; transactions without meta (Geyser-style records) are taken as
 * successful.
 */
export function parseBubblegumTransaction(tx: NormalizedTx): CnftEvent[] {
  if (tx.meta && tx.meta.err !== null && tx.meta.err !== undefined) return [];
  const ixs = walkTransaction(tx);
  if (!ixs.some((ix) => ix.programId === BUBBLEGUM_PROGRAM)) return [];
  const height = stackHeights(tx);
  const out: CnftEvent[] = [];
  ixs.forEach((ix, i) => {
    if (ix.programId === BUBBLEGUM_PROGRAM) out.push(parseBubblegumInstruction(ix, cpisOf(ixs, i, height)));
  });
  return out;
}

/**
 * The event of one Bubblegum instruction given the instructions it invoked (at least the noop ones). Never throws.
 */
export function parseBubblegumInstruction(ix: TracedInstruction, cpis: readonly TracedInstruction[]): CnftEvent {
  if (ix.unresolved) return failed(ix, ix.unresolved);
  try {
    const spec = bubblegumSpec(ix.data);
    if (!spec) {
      const disc = Buffer.from(ix.data.subarray(0, 8)).toString('hex');
      return failed(ix, `unknown Bubblegum instruction (discriminator ${disc || 'none'}, ${ix.data.length} bytes)`);
    }
    let changeLog: ChangeLog | null = null;
    let leaf: CnftLeaf | null = null;
    // The reference keeps the last event of each sort; a Bubblegum instruction logs at most one of each.
    for (const c of cpis) {
      if (!COMPRESSION_PROGRAM_BY_NOOP.has(c.programId)) continue;
      const ev = decodeCompressionNoop(c.programId, c.data);
      if (ev?.kind === 'changeLog') changeLog = ev.changeLog;
      else if (ev?.kind === 'applicationData') {
        const r = decodeLeafEvent(ev.data);
        if (r && !r.ok) return failed(ix, r.reason);
        if (r?.ok) leaf = r.leaf;
      }
    }
    return buildEvent({ ix, spec, changeLog, leaf });
  } catch (e) {
    return failed(ix, errorReason(e));
  }
}

type HeightOf = (ix: TracedInstruction) => number | null;

/** Stack height of each walked instruction (`null` when the source did not record it). */
function stackHeights(tx: NormalizedTx): HeightOf {
  const inner = new Map<number, (number | null)[]>();
  for (const g of [...tx.innerInstructions].sort((a, b) => a.index - b.index)) {
    const list = inner.get(g.index) ?? [];
    list.push(...g.instructions.map((x) => x.stackHeight));
    inner.set(g.index, list);
  }
  const known = (h: number | null | undefined): number | null => (typeof h === 'number' && h >= 1 ? h : null);
  return (ix) =>
    ix.path.inner === null
      ? (known(tx.instructions[ix.path.outer]?.stackHeight) ?? 1)
      : known(inner.get(ix.path.outer)?.[ix.path.inner]);
}

/** The inner instructions the instruction at `i` invoked (see the module comment for the rule). */
function cpisOf(ixs: readonly TracedInstruction[], i: number, height: HeightOf): TracedInstruction[] {
  const ix = ixs[i];
  const h = height(ix);
  const out: TracedInstruction[] = [];
  for (let j = i + 1; j < ixs.length; j++) {
    const c = ixs[j];
    if (c.path.outer !== ix.path.outer || c.path.inner === null) break;
    if (ix.path.inner !== null) {
      const ch = height(c);
      if (h !== null && ch !== null) {
        if (ch <= h) break;
      } else if (c.programId === BUBBLEGUM_PROGRAM) break;
    }
    out.push(c);
  }
  return out;
}
