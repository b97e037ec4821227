/**
 * Test helpers for the Merkle maths: a seeded PRNG, random leaves, and a node store that applies change-log
 * rows the way the indexer does (one row per node index, replaced only by an equal or higher `seq`).
 */
import { changeLogPathToRows, type ChangeLogPathNode, type NodeRow } from '../../src/proofs/paths.js';

export { rng } from '../helpers/rng.js';

/** Integer in [0, n). */
export function randInt(rand: () => number, n: number): number {
  return Math.floor(rand() * n);
}

/** 32 random bytes, never all zero (appending an empty leaf is refused). */
export function randomLeaf(rand: () => number): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = randInt(rand, 256);
  out[0] |= 1;
  return out;
}

/** Fisher-Yates shuffle (copy). */
export function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const a = items.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = randInt(rand, i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** The node rows of one tree, as `cl_items` holds them. */
export class NodeStore {
  readonly rows = new Map<number, NodeRow & { seq: bigint }>();

  /** Upserts the rows of one change-log event, guarded by seq (`WHERE excluded.seq >= cl_items.seq`). */
  apply(event: { path: readonly ChangeLogPathNode[]; seq: bigint }): void {
    for (const row of changeLogPathToRows(event.path)) {
      const cur = this.rows.get(row.nodeIndex);
      if (cur === undefined || event.seq >= cur.seq) this.rows.set(row.nodeIndex, { ...row, seq: event.seq });
    }
  }

  /** The lookup `buildProof` takes. */
  readonly lookup = (nodeIndex: number): Uint8Array | undefined => this.rows.get(nodeIndex)?.hash;
}

/** Flips one bit of a copy of `bytes`. */
export function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const out = bytes.slice();
  out[Math.floor(bit / 8) % out.length] ^= 1 << bit % 8;
  return out;
}

/** Hex of bytes, for readable assertion messages. */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
