/**
 * Drift probes of Merkle tree roots, where the leaves themselves cannot be read from a standard RPC (compressed NFTs,
 * compressed accounts): the indexed root of a sampled tree (node 1 and the seq of the change that wrote it) against the
 * tree account on the cluster, read at the same slot.
 *
 * - The cluster's tree has applied changes up to its sequence number N. An indexed root of a later seq comes from a
 *   change after the cluster's state: skipped. Of seq N, it must be the tree's root; of an earlier seq, the index has
 *   missed changes the cluster had made by then (a mismatch, with the cluster's root at that seq when it still holds it).
 * - Bubblegum trees (spl/mpl-account-compression accounts): on a mismatch the tree's nodes are first recomputed from
 *   its indexed leaves (drift/cnft-repair.ts): when that gives the cluster's root at its sequence number, the node rows
 *   that differ are rewritten (a damaged node row whose transactions are all indexed; action `rewritten`); otherwise
 *   (the leaves are wrong or a change is missing; or the tree is too large to recompute, or changed meanwhile) the
 *   tree is queued for a repair run of the history backfill (src/ingest/backfill.ts; also a tree whose backfill
 *   finished), which writes every transaction of the tree the index lacks, before the origin and from it up to the
 *   checkpoint. In a tree whose root agrees, sampled leaves' proofs built from the stored nodes must verify against
 *   it (`cnft_leaf_proof`: a damaged inner node under a correct root row); a failing one is repaired the same way.
 * - ZK Compression V1 state trees (Light's StateMerkleTreeAccount, root history): reported; with
 *   SOLGATE_DRIFT_ZK_REPAIR=rebuild, a tree found differing again by a later round (trees found differing stay
 *   suspect, and sampled first, until a round finds them agreeing) has the ingester rebuild the trees' state between
 *   two blocks (src/ingest/zk-repair.ts): a tree's history can only be applied in order while live ingestion does not
 *   write. (V2 batched state trees and address trees: drift/zk-v2.ts.) In a tree whose root agrees, sampled unspent
 *   compressed accounts must be in it: the account's hash is its leaf, and the leaf's proof from the indexed nodes
 *   verifies against that root (`zk_account_hash`).
 */
import { SYSTEM_PROGRAM } from '../../core/programs.js';
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import { parseMerkleTreeRoots } from '../../parsers/account-compression/tree-roots.js';
import { parseLightStateTreeRoots } from '../../parsers/light-trees/roots.js';
import type { Db } from '../../store/db.js';
import { readCnftRoots, sampleCnftTrees, sampleZkLeaves } from '../../store/drift.js';
import { sampleLeafRows } from '../../store/cnft-nodes.js';
import { getTreesWithRoots, listTrees } from '../../store/zk/trees.js';
import { TREE_TYPE } from '../../store/zk/types.js';
import { failingLeafProofs, repairCnftNodes, type CnftRepairInput } from './cnft-repair.js';
import type { DriftAction, DriftKind, DriftProbe, DriftRound } from './types.js';
import { readLeafProofs } from './zk-leaves.js';

interface Roots {
  sequenceNumber: number;
  root: string;
  rootAt(seq: number): string | null;
}

type Verdict = 'agrees' | 'differs' | 'skipped' | 'unjudged';

/** Judges one tree's indexed root against the cluster's roots (also the ZK Compression V2 / address trees': zk-v2.ts). */
export function judgeRoot(
  r: DriftRound, kind: DriftKind, tree: string, indexed: { hash: string; seq: number } | undefined, chain: Roots | null,
  action: () => DriftAction,
): Verdict {
  const state = r.states.get(tree);
  if (!indexed || !state || !chain) return 'unjudged';
  if (indexed.seq > chain.sequenceNumber) {
    r.skipped();
    return 'skipped';
  }
  r.checked(kind);
  if (indexed.seq === chain.sequenceNumber && indexed.hash === chain.root) return 'agrees';
  r.mismatch({
    kind, address: tree, slot: state.slot, action: action(),
    indexed: { root: indexed.hash, seq: indexed.seq },
    cluster: { root: chain.root, seq: chain.sequenceNumber, rootAtIndexedSeq: chain.rootAt(indexed.seq) },
  });
  return 'differs';
}

/**
 * `n` Bubblegum trees from `from` on: each root, then in each whose root agrees up to `leaves` leaves whose proofs from
 * the stored nodes must verify against it (`cnft_leaf_proof`). A differing tree is recomputed from its leaves first.
 */
export async function cnftTreeProbe(db: Db, from: string, n: number, logger?: CnftRepairInput['logger'], leaves = 0): Promise<DriftProbe> {
  const trees = await sampleCnftTrees(db, from, n);
  const fraction = Math.max(0, '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'.indexOf(from[0] ?? '1')) / 58;
  return {
    requests: trees.map((pubkey) => ({ pubkey, closedOwner: SYSTEM_PROGRAM })),
    batchSize: 4,
    async compare(r) {
      const roots = await readCnftRoots(r.db, trees);
      for (const tree of trees) {
        const state = r.states.get(tree);
        const chain = state ? parseMerkleTreeRoots(state.data) : null;
        const indexed = roots.get(tree);
        // A root that will be judged differing: its nodes are recomputed from the indexed leaves first (drift/cnft-repair.ts).
        const differs = indexed && state && chain && indexed.seq <= chain.sequenceNumber && !(indexed.seq === chain.sequenceNumber && indexed.hash === chain.root);
        const repair = differs ? await repairCnftNodes(r.db, { tree, depth: chain.maxDepth, cluster: { seq: chain.sequenceNumber, root: chain.root }, logger }) : null;
        const action = repair?.outcome === 'rewritten' ? 'rewritten' : 'queued';
        const verdict = judgeRoot(r, 'cnft_tree_root', tree, indexed, chain, () => action);
        if (verdict === 'differs' && action === 'queued') r.queueBackfill(tree);
        if (verdict === 'agrees' && state && chain && indexed) await checkCnftLeafProofs(r, tree, chain, indexed, state.slot, fraction, leaves, logger);
      }
    },
  };
}

/** Sampled leaves of a Bubblegum tree whose root agrees: a proof that fails has the tree recomputed from its leaves. */
async function checkCnftLeafProofs(
  r: DriftRound, tree: string, chain: Roots & { maxDepth: number }, indexed: { hash: string; seq: number }, slot: number, fraction: number, n: number,
  logger: CnftRepairInput['logger'],
): Promise<void> {
  const sample = await sampleLeafRows(r.db, tree, chain.maxDepth, fraction, n);
  for (let k = 0; k < sample.length; k++) r.checked('cnft_leaf_proof');
  const failing = await failingLeafProofs(r.db, tree, chain.maxDepth, sample);
  if (!failing.length) return;
  const repair = await repairCnftNodes(r.db, { tree, depth: chain.maxDepth, cluster: { seq: chain.sequenceNumber, root: chain.root }, logger });
  const action = repair.outcome === 'rewritten' ? 'rewritten' : 'queued';
  r.mismatch({
    kind: 'cnft_leaf_proof', address: tree, slot, action,
    indexed: { root: indexed.hash, seq: indexed.seq, leafIndex: failing[0], failing: failing.length, proofVerifies: false },
    cluster: { root: chain.root, seq: chain.sequenceNumber },
  });
  if (action === 'queued') r.queueBackfill(tree);
}

/**
 * `first` (trees found differing by the previous round), then `trees` ZK Compression V1 state trees from `from` on; in
 * each whose root agrees, up to `leaves` of its accounts.
 */
export async function zkTreeProbe(db: Db, from: string, trees: number, leaves: number, first: readonly string[] = []): Promise<DriftProbe> {
  const all = (await listTrees(db)).filter((t) => t.treeType === TREE_TYPE.StateV1).map((t) => t.tree).sort();
  const at = all.findIndex((t) => t >= from);
  const known = new Set(all);
  const sample = [...new Set([...first.filter((t) => known.has(t)), ...(at < 0 ? all : [...all.slice(at), ...all.slice(0, at)]).slice(0, trees)])];
  // Where in each tree the accounts' sample starts: from the round's starting point, so a pinned one pins it.
  const fraction = Math.max(0, '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'.indexOf(from[0] ?? '1')) / 58;
  return {
    requests: sample.map((pubkey) => ({ pubkey, closedOwner: SYSTEM_PROGRAM })),
    batchSize: 1,
    async compare(r) {
      const { trees: rows, roots } = await getTreesWithRoots(r.db, sample);
      for (const tree of sample) {
        const state = r.states.get(tree);
        const root = roots.get(tree);
        const indexed = root && root.seq !== null ? { hash: bytesToBase58(root.hash), seq: root.seq } : undefined;
        const chain = state ? parseLightStateTreeRoots(state.owner, state.data) : null;
        const verdict = judgeRoot(r, 'zk_tree_root', tree, indexed, chain, () => r.zkAction(tree));
        if (verdict === 'agrees' && state && rows.get(tree) && (await checkLeaves(r, tree, rows.get(tree)!.height, fraction, leaves, state.slot))) r.zkAgrees(tree);
      }
    },
  };
}

/**
 * Sampled unspent accounts of `tree` (whose root agrees with the cluster's) that are in the tree (V2: appended, not
 * waiting in the output queue): each hash is its leaf and proves to the root. True when all do.
 */
export async function checkLeaves(r: DriftRound, tree: string, height: number, fraction: number, n: number, slot: number): Promise<boolean> {
  const leaves = await sampleZkLeaves(r.db, Buffer.from(base58ToBytes(tree)).toString('hex'), fraction, n);
  if (!leaves.length) return true;
  const { read, verified } = await readLeafProofs(r.db, tree, height, leaves.map((l) => l.leafIndex));
  let agrees = true;
  leaves.forEach((l, i) => {
    r.checked('zk_account_hash');
    const isLeaf = Buffer.from(read[i].leaf).equals(Buffer.from(l.hash));
    if (isLeaf && verified[i]) return;
    agrees = false;
    r.mismatch({
      kind: 'zk_account_hash', address: bytesToBase58(l.hash), slot, action: r.zkAction(tree),
      indexed: { tree, leafIndex: l.leafIndex, leaf: bytesToBase58(read[i].leaf), proofVerifies: verified[i] },
      cluster: { root: bytesToBase58(read[i].root) },
    });
  });
  return agrees;
}
