/**
 * Repair of a Bubblegum tree's node rows from its indexed leaves, for a `cnft_tree_root` or `cnft_leaf_proof` mismatch
 * (drift/trees.ts).
 *
 * A node row damaged while every transaction of the tree is indexed is not rewritten by the history backfill (it
 * writes only the transactions the index lacks, and the guarded node upsert keeps a row of the same seq). Here the
 * tree's nodes are recomputed from its leaves — keccak256(left ‖ right), empty subtrees the zero hashes of their
 * level (src/proofs/sparse-fold.ts, the hashing of src/proofs/hash.ts) — and the recomputed root is compared with the
 * cluster's root at sequence number N (read by the probe):
 *
 * - equal, and the newest leaf is of seq N (the index has every change): the rows whose hash or seq differs from the
 *   recomputed node are rewritten (`rewritten`), each guarded by the hash and seq read, and only rows of seq ≤ N, so a
 *   change written meanwhile by live ingestion (a higher seq) is never replaced; a missing row is inserted unless one
 *   appeared meanwhile;
 * - different: the leaves themselves are wrong or incomplete: rows are left, and the tree is queued for the history
 *   backfill as before (`leaves_differ`).
 *
 * Leaves are the level-0 `cnft_nodes` rows: written from the change logs (the node the program put in the tree, with
 * the seq of the change), they are the tree's leaves — a burn's empty leaf included. `cnft_assets.leaf_hash` is not:
 * it is the asset's leaf schema as its last leaf event described it, which a burn does not change (the tree's leaf
 * is then 32 zero bytes) and which has no row for leaves the index holds no asset of.
 *
 * A damaged inner node under a root row that agrees with the cluster is looked for through sampled leaves
 * ({@link failingLeafProofs}): each leaf's proof built from the stored rows must verify against the stored root, as
 * getAssetProof requires; a failing one has the tree recomputed the same way (`cnft_leaf_proof`, drift/trees.ts).
 *
 * Bounded: two passes (the root first, then the rewrite), each streaming the leaves in pages of {@link LEAF_PAGE}
 * rows with one pending node per level in memory; a tree with more than {@link CNFT_REPAIR_MAX_LEAVES} leaf rows is
 * reported, not recomputed (`too_large`). A tree that changed after N while it was read (a leaf of a later seq) is
 * left for a later round (`changed`). Nodes without any written leaf under them are not visited: a row of such a
 * node (never written by a change log) is not removed.
 */
import type { Logger } from 'pino';
import { driftCnftRepairs } from '../../core/metrics.js';
import { nodeFromBase58, nodeToBase58 } from '../../proofs/hash.js';
import { proofNodeIndexes } from '../../proofs/paths.js';
import { SparseTreeFolder, type FoldedNode } from '../../proofs/sparse-fold.js';
import { buildProof, verifyBuiltProof } from '../../proofs/verify.js';
import { getTreeNodes } from '../../store/cnft.js';
import { readLeafRows, readNodeRows, rewriteNodeRows, type NodeRewrite, type StoredNodeRow } from '../../store/cnft-nodes.js';
import type { Queryable } from '../../store/db.js';

/** Trees with more indexed leaves than this are reported, not recomputed (2^20: about a second of hashing per pass). */
export const CNFT_REPAIR_MAX_LEAVES = 1_048_576;
/** Leaf rows read per query. */
const LEAF_PAGE = 5_000;
/** Recomputed nodes compared with their rows per query. */
const NODE_BATCH = 2_000;

export type CnftRepairOutcome = 'rewritten' | 'leaves_differ' | 'too_large' | 'changed';

export interface CnftRepairResult {
  outcome: CnftRepairOutcome;
  /** Leaf rows read. */
  leaves: number;
  /** The root recomputed from them (base58), when computed. */
  recomputedRoot: string | null;
  /** Node indexes rewritten (outcome `rewritten`). */
  rewritten: number[];
}

export interface CnftRepairInput {
  tree: string;
  depth: number;
  /** The cluster's tree: its sequence number and current root. */
  cluster: { seq: number; root: string };
  maxLeaves?: number;
  logger?: Pick<Logger, 'warn' | 'info'>;
}

type Walk = { root: { hash: Uint8Array; seq: bigint | null }; leaves: number } | { stop: 'changed' | 'too_large' | 'unreadable'; leaves: number };

/** Streams the tree's leaves into a folder (each recomputed inner node to `onNodes`, in batches). */
async function walk(q: Queryable, i: CnftRepairInput, maxSeq: bigint, onNodes?: (nodes: FoldedNode[]) => Promise<void>): Promise<Walk> {
  const batch: FoldedNode[] = [];
  const folder = new SparseTreeFolder(i.depth, onNodes ? (n) => void batch.push(n) : undefined);
  const first = 2 ** i.depth;
  let from = first;
  let leaves = 0;
  for (;;) {
    const page = await readLeafRows(q, i.tree, i.depth, from, LEAF_PAGE);
    leaves += page.length;
    if (leaves > (i.maxLeaves ?? CNFT_REPAIR_MAX_LEAVES)) return { stop: 'too_large', leaves };
    for (const r of page) {
      if (r.seq > maxSeq) return { stop: 'changed', leaves };
      const hash = nodeFromBase58(r.hash);
      if (!hash) return { stop: 'unreadable', leaves };
      folder.add(r.nodeIndex - first, hash, r.seq);
      if (onNodes && batch.length >= NODE_BATCH) await onNodes(batch.splice(0));
    }
    if (page.length < LEAF_PAGE) break;
    from = page[page.length - 1].nodeIndex + 1;
  }
  const root = folder.finish();
  if (onNodes && batch.length) await onNodes(batch.splice(0));
  return { root, leaves };
}

/** Recomputes `tree`'s nodes from its leaves and rewrites the differing rows when the root is the cluster's; see the module comment. */
export async function repairCnftNodes(q: Queryable, i: CnftRepairInput): Promise<CnftRepairResult> {
  const maxSeq = BigInt(i.cluster.seq);
  const done = (outcome: CnftRepairOutcome, leaves: number, recomputedRoot: string | null, rewritten: number[] = []): CnftRepairResult => {
    driftCnftRepairs.inc({ outcome });
    const log = { tree: i.tree, outcome, leaves, recomputedRoot, cluster: i.cluster, rows: rewritten.length, nodes: rewritten.slice(0, 20) };
    if (outcome === 'rewritten') i.logger?.warn(log, 'drift: Bubblegum tree nodes recomputed from the indexed leaves; the differing rows were rewritten');
    else if (outcome === 'leaves_differ') i.logger?.warn(log, 'drift: Bubblegum tree nodes recomputed from the indexed leaves do not give the cluster\'s root; rows left as they are');
    else i.logger?.info(log, outcome === 'too_large' ? 'drift: Bubblegum tree too large to recompute its nodes; reported' : 'drift: Bubblegum tree changed while its leaves were read; left for a later round');
    return { outcome, leaves, recomputedRoot, rewritten };
  };

  const first = await walk(q, i, maxSeq);
  if ('stop' in first) return done(first.stop === 'unreadable' ? 'leaves_differ' : first.stop, first.leaves, null);
  const recomputed = nodeToBase58(first.root.hash);
  if (recomputed !== i.cluster.root || first.root.seq !== maxSeq) return done('leaves_differ', first.leaves, recomputed);

  const rewritten: number[] = [];
  const second = await walk(q, i, maxSeq, async (nodes) => {
    const stored = await readNodeRows(q, i.tree, nodes.map((n) => n.nodeIndex));
    const rows: NodeRewrite[] = [];
    for (const n of nodes) {
      const s = stored.get(n.nodeIndex);
      const hash = nodeToBase58(n.hash);
      if (s && (s.seq > maxSeq || (s.hash === hash && s.seq === n.seq))) continue;
      rows.push({ nodeIndex: n.nodeIndex, level: n.level, hash, seq: n.seq, read: s ? { hash: s.hash, seq: s.seq } : null });
    }
    if (rows.length) rewritten.push(...(await rewriteNodeRows(q, i.tree, rows)));
  });
  if ('stop' in second) return done(second.stop === 'unreadable' ? 'leaves_differ' : second.stop, second.leaves, recomputed, rewritten);
  return done('rewritten', second.leaves, recomputed, rewritten);
}

/**
 * Leaf indexes among `leaves` (level-0 rows of `tree`) whose proof, built from the stored node rows as getAssetProof
 * builds it, does not verify against the stored root. One query for every node the proofs need.
 */
export async function failingLeafProofs(q: Queryable, tree: string, depth: number, leaves: readonly StoredNodeRow[]): Promise<number[]> {
  if (!leaves.length) return [];
  const first = 2 ** depth;
  const wanted = new Set<number>([1]);
  for (const l of leaves) {
    wanted.add(l.nodeIndex);
    for (const n of proofNodeIndexes(l.nodeIndex - first, depth)) wanted.add(n);
  }
  const stored = await getTreeNodes(q, tree, [...wanted]);
  // A stored hash that is not base58 of 32 bytes reads as a 0-byte node: buildProof throws on it, a failing proof.
  const lookup = (n: number) => {
    const h = stored.get(n);
    return h === undefined ? undefined : (nodeFromBase58(h) ?? new Uint8Array());
  };
  return leaves.map((l) => l.nodeIndex - first).filter((i) => {
    try {
      return !verifyBuiltProof(buildProof(i, depth, lookup));
    } catch {
      return true;
    }
  });
}
