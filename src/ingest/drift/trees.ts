/**
 * Drift probes of Merkle tree roots, where the leaves themselves cannot be read from a standard RPC (compressed NFTs,
 * compressed accounts): the indexed root of a sampled tree (node 1 and the seq of the change that wrote it) against the
 * tree account on the cluster, read at the same slot.
 *
 * - The cluster's tree has applied changes up to its sequence number N. An indexed root of a later seq comes from a
 *   change after the cluster's state: skipped. Of seq N, it must be the tree's root; of an earlier seq, the index has
 *   missed changes the cluster had made by then (a mismatch, with the cluster's root at that seq when it still holds it).
 * - Bubblegum trees (spl/mpl-account-compression accounts): a mismatch queues the tree for a repair run of the
 *   history backfill (src/ingest/backfill.ts; also a tree whose backfill finished), which writes every transaction of
 *   the tree the index lacks, before the origin and from it up to the checkpoint. A damaged node row whose
 *   transactions are all indexed is not rewritten: later rounds report it again.
 * - ZK Compression V1 state trees (Light's StateMerkleTreeAccount, root history): reported only. Re-reading a tree's
 *   history (src/ingest/zk-history.ts) is only safe before live ingestion writes its first block; V2 batched trees are
 *   not compared. In a tree whose root agrees, sampled unspent compressed accounts must be in it: the account's hash
 *   is its leaf, and the leaf's proof from the indexed nodes verifies against that root (`zk_account_hash`, reported).
 */
import { SYSTEM_PROGRAM } from '../../core/programs.js';
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import { parseMerkleTreeRoots } from '../../parsers/account-compression/tree-roots.js';
import { parseLightStateTreeRoots } from '../../parsers/light-trees/roots.js';
import { initPoseidon, leafNodeIndex, proofNodeIndexes, readLightProofNodes, verifyLightProofsBatch } from '../../proofs/light/index.js';
import type { Db } from '../../store/db.js';
import { readCnftRoots, sampleCnftTrees, sampleZkLeaves } from '../../store/drift.js';
import { getNodeHashes } from '../../store/zk/state-tree.js';
import { getTreesWithRoots, listTrees } from '../../store/zk/trees.js';
import { TREE_TYPE } from '../../store/zk/types.js';
import type { DriftKind, DriftProbe, DriftRound } from './types.js';

interface Roots {
  sequenceNumber: number;
  root: string;
  rootAt(seq: number): string | null;
}

type Verdict = 'agrees' | 'differs' | 'skipped' | 'unjudged';

/** Judges one tree's indexed root against the cluster's roots. */
function judgeRoot(
  r: DriftRound, kind: DriftKind, tree: string, indexed: { hash: string; seq: number } | undefined, chain: Roots | null,
  action: 'queued' | 'reported',
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
    kind, address: tree, slot: state.slot, action,
    indexed: { root: indexed.hash, seq: indexed.seq },
    cluster: { root: chain.root, seq: chain.sequenceNumber, rootAtIndexedSeq: chain.rootAt(indexed.seq) },
  });
  return 'differs';
}

export async function cnftTreeProbe(db: Db, from: string, n: number): Promise<DriftProbe> {
  const trees = await sampleCnftTrees(db, from, n);
  return {
    requests: trees.map((pubkey) => ({ pubkey, closedOwner: SYSTEM_PROGRAM })),
    batchSize: 4,
    async compare(r) {
      const roots = await readCnftRoots(r.db, trees);
      for (const tree of trees) {
        const state = r.states.get(tree);
        const chain = state ? parseMerkleTreeRoots(state.data) : null;
        if (judgeRoot(r, 'cnft_tree_root', tree, roots.get(tree), chain, 'queued') === 'differs') r.queueBackfill(tree);
      }
    },
  };
}

/** `trees` ZK Compression V1 state trees from `from` on; in each whose root agrees, up to `leaves` of its accounts. */
export async function zkTreeProbe(db: Db, from: string, trees: number, leaves: number): Promise<DriftProbe> {
  const all = (await listTrees(db)).filter((t) => t.treeType === TREE_TYPE.StateV1).map((t) => t.tree).sort();
  const at = all.findIndex((t) => t >= from);
  const sample = (at < 0 ? all : [...all.slice(at), ...all.slice(0, at)]).slice(0, trees);
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
        const verdict = judgeRoot(r, 'zk_tree_root', tree, indexed, chain, 'reported');
        if (verdict === 'agrees' && state && rows.get(tree)) await checkLeaves(r, tree, rows.get(tree)!.height, fraction, leaves, state.slot);
      }
    },
  };
}

/** Sampled unspent accounts of `tree` (whose root agrees with the cluster's): each hash is its leaf and proves to the root. */
async function checkLeaves(r: DriftRound, tree: string, height: number, fraction: number, n: number, slot: number): Promise<void> {
  const leaves = await sampleZkLeaves(r.db, Buffer.from(base58ToBytes(tree)).toString('hex'), fraction, n);
  if (!leaves.length) return;
  await initPoseidon();
  const keys = new Map([[tree, [1, ...leaves.flatMap((l) => [leafNodeIndex(l.leafIndex, height), ...proofNodeIndexes(l.leafIndex, height)])]]]);
  const nodes = (await getNodeHashes(r.db, keys)).get(tree);
  const read = leaves.map((l) => readLightProofNodes(l.leafIndex, height, (i) => nodes?.get(i)?.hash));
  const verified = verifyLightProofsBatch(read.map((p, i) => ({ leaf: p.leaf, siblings: p.siblings, root: p.root, leafIndex: leaves[i].leafIndex })));
  leaves.forEach((l, i) => {
    r.checked('zk_account_hash');
    const isLeaf = Buffer.from(read[i].leaf).equals(Buffer.from(l.hash));
    if (isLeaf && verified[i]) return;
    r.mismatch({
      kind: 'zk_account_hash', address: bytesToBase58(l.hash), slot, action: 'reported',
      indexed: { tree, leafIndex: l.leafIndex, leaf: bytesToBase58(read[i].leaf), proofVerifies: verified[i] },
      cluster: { root: bytesToBase58(read[i].root) },
    });
  });
}
