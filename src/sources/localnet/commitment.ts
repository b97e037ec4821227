/**
 * Commitment levels of the localnet, as a real cluster has them but without forks: a produced block is `processed`;
 * it is `confirmed` once `confirmedDepth` more slots have passed (on a healthy cluster the votes of a supermajority
 * arrive about one slot later), and `finalized` (rooted) once `finalizedDepth` slots more have passed (a real cluster
 * roots a block about 32 slots behind the confirmed tip). The depths count slots, not blocks: a skipped slot moves
 * time on too, so a quiet chain that skips its empty slots still confirms and finalizes what it produced. The
 * localnet has one leader and no votes, so nothing it produced is ever rolled back; the levels differ only in how
 * far behind the newest block they are.
 *
 * Pure functions; `chain.ts` keeps the tips and `account-history.ts` the account states behind them.
 */

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Slots behind the newest closed slot at which a block reaches each level. */
export interface FinalityDepths {
  /** Slots after a block's own slot until it is confirmed. */
  confirmed: number;
  /** Slots after a block is confirmed until it is finalized. */
  finalized: number;
}

/**
 * The default of a chain whose slot timer runs: confirmed one slot after the block, finalized 4 slots after that
 * (2 s at the default 400 ms slot): short enough that a client waiting for `finalized` (web3.js's default) is
 * not held up, long enough that `confirmed` and `finalized` are seen to differ.
 */
export const DEFAULT_FINALITY: Readonly<FinalityDepths> = { confirmed: 1, finalized: 4 };
/** What a real cluster roots at: about 32 slots behind the confirmed tip (`MAX_LOCKOUT_HISTORY`). */
export const CLUSTER_FINALIZED_DEPTH = 32;
/**
 * The default of a manual chain (`slotMs: 0`, slots produced by the caller): every produced block is finalized at
 * once, since no slot passes unless the caller produces one.
 */
export const MANUAL_FINALITY: Readonly<FinalityDepths> = { confirmed: 0, finalized: 0 };

const RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

/** Whether level `a` is at least `b` (finalized ≥ confirmed ≥ processed). */
export const atLeast = (a: Commitment, b: Commitment): boolean => RANK[a] >= RANK[b];

/**
 * The level a `commitment` parameter names, with agave's deprecated aliases (`recent` = processed, `single` and
 * `singleGossip` = confirmed, `root` and `max` = finalized); `dflt` when absent (agave's default: finalized).
 */
export function commitmentLevel(v: string | undefined, dflt: Commitment = 'finalized'): Commitment {
  switch (v) {
    case undefined:
      return dflt;
    case 'processed':
    case 'recent':
      return 'processed';
    case 'confirmed':
    case 'single':
    case 'singleGossip':
      return 'confirmed';
    default:
      return 'finalized';
  }
}

/** The highest slot a block may have to be at `level` once slot `lastClosed` is closed. */
export function commitmentBound(lastClosed: number, depths: FinalityDepths, level: Commitment): number {
  if (level === 'processed') return lastClosed;
  return lastClosed - depths.confirmed - (level === 'finalized' ? depths.finalized : 0);
}

/** The level of a produced block at `slot`, given the slots of the newest confirmed and finalized blocks. */
export function levelOf(slot: number, tips: { confirmed: number; finalized: number }): Commitment {
  return slot <= tips.finalized ? 'finalized' : slot <= tips.confirmed ? 'confirmed' : 'processed';
}

/** Checked depths (non-negative integers). */
export function finalityDepths(o: { confirmedDepth?: number; finalizedDepth?: number }, dflt: Readonly<FinalityDepths>): FinalityDepths {
  const d = { confirmed: o.confirmedDepth ?? dflt.confirmed, finalized: o.finalizedDepth ?? dflt.finalized };
  for (const [k, v] of Object.entries(d)) if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${k}Depth must be a non-negative integer, got ${v}`);
  return d;
}
