/**
 * Drift probes of the ZK Compression trees the V1 state-tree probe (trees.ts) does not cover: V2 batched state trees
 * (`zk_batched_tree_root`) and address trees — V1 indexed (AddressMerkleTreeAccount) and V2 batched (`BatchMta`,
 * tree type 4) — (`zk_address_tree_root`), read on the cluster with Light's account layouts
 * (src/parsers/light-trees/).
 *
 * What is comparable at one slot: a batched tree's on-chain root history holds the root after each batch update (batch
 * append, batch nullify, address append), the sequence number counting them; the indexer applies the same updates from
 * the batch events (Photon's `persist_batch_events`), so its root (node 1, with the seq of the update that wrote it)
 * must be the on-chain root of that seq. Elements still waiting in a queue — outputs not yet appended, nullifiers in
 * the input queue, addresses in the address queue — are in neither root (the indexer keeps them in zk_accounts /
 * zk_address_queue), so they need no allowance. A V1 address tree's indexed root carries the seq of its last change (an
 * address inserted is two changes), as the on-chain concurrent tree counts them. As for V1 state trees: an indexed
 * seq above the cluster's is skipped (the tree changed after the read), the same seq must give the current root, an
 * earlier one is a mismatch (reported with the cluster's root at that seq while its history holds it).
 *
 * What the queues received is comparable at one slot too (`zk_queue_next_index`): a batched tree account counts the
 * elements its own queue received (state: nullifiers into the input queue; address: addresses), which the index holds
 * as spends with their input-queue index and as queued addresses / consumed ones. (The output queue is a separate
 * account and is not read.)
 *
 * In a V2 state tree whose root agrees, sampled unspent accounts already appended must be its leaves, proving to the
 * root (`zk_account_hash`, as in a V1 tree). In an address tree whose root agrees, sampled elements
 * (`zk_indexed_elements`) must be in it (`zk_address_element`):
 * the element's hash (Poseidon of value, next index and next value for V1; value and next value for V2) is its leaf,
 * and the leaf's proof from the indexed nodes verifies against the root. Mismatches take the V1 state trees' way
 * (`DriftRound.zkAction`: reported, or — with SOLGATE_DRIFT_ZK_REPAIR=rebuild, confirmed — the trees' rebuild requested).
 */
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import { parseLightBatchedTreeRoots, type LightBatchedTreeRoots } from '../../parsers/light-trees/batched-roots.js';
import { parseLightAddressTreeRoots, type LightTreeRoots } from '../../parsers/light-trees/roots.js';
import { SYSTEM_PROGRAM } from '../../core/programs.js';
import { addressToBigint, indexedElementHash } from '../../proofs/light/index.js';
import type { Db } from '../../store/db.js';
import { readZkQueueNextIndexes, sampleIndexedElements } from '../../store/drift.js';
import { getTreesWithRoots, listTrees } from '../../store/zk/trees.js';
import { TREE_TYPE, type ZkTreeRow } from '../../store/zk/types.js';
import { checkLeaves, judgeRoot } from './trees.js';
import type { DriftKind, DriftProbe, DriftRound } from './types.js';
import { readLeafProofs } from './zk-leaves.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** `n` of `all` (sorted) from `from` on, wrapping to the start. */
function pick(all: readonly string[], from: string, n: number): string[] {
  const at = all.findIndex((t) => t >= from);
  return (at < 0 ? all : [...all.slice(at), ...all.slice(0, at)]).slice(0, n);
}

/** The cluster's roots of a tree account, read with the layout of the tree's type (null: not such a tree). */
function clusterRoots(type: number, owner: string, data: Uint8Array): LightTreeRoots | null {
  if (type === TREE_TYPE.AddressV1) return parseLightAddressTreeRoots(owner, data);
  const batched = parseLightBatchedTreeRoots(owner, data);
  if (!batched) return null;
  return batched.treeType === (type === TREE_TYPE.StateV2 ? 3 : 4) ? batched : null;
}

/**
 * `first` (trees found differing before), then `trees` V2 batched state trees and `trees` address trees from `from`
 * on; in each whose root agrees, up to `elements` of its accounts (state) or elements (address).
 */
export async function zkV2TreeProbe(db: Db, from: string, trees: number, elements: number, first: readonly string[] = []): Promise<DriftProbe> {
  const known = (await listTrees(db)).filter((t) => t.treeType !== TREE_TYPE.StateV1);
  const byType = (types: number[]) => known.filter((t) => types.includes(t.treeType)).map((t) => t.tree).sort();
  const ids = new Set(known.map((t) => t.tree));
  const sample = [...new Set([
    ...first.filter((t) => ids.has(t)),
    ...pick(byType([TREE_TYPE.StateV2]), from, trees),
    ...pick(byType([TREE_TYPE.AddressV1, TREE_TYPE.AddressV2]), from, trees),
  ])];
  const fraction = Math.max(0, BASE58.indexOf(from[0] ?? '1')) / 58;
  return {
    requests: sample.map((pubkey) => ({ pubkey, closedOwner: SYSTEM_PROGRAM })),
    batchSize: 1,
    async compare(r) {
      const { trees: rows, roots } = await getTreesWithRoots(r.db, sample);
      await checkQueues(r, sample.flatMap((tree) => {
        const meta = rows.get(tree);
        const state = r.states.get(tree);
        if (!meta || !state || meta.treeType === TREE_TYPE.AddressV1) return [];
        // A V2 tree's roots are the batched layout's (clusterRoots reads nothing else for it).
        const chain = clusterRoots(meta.treeType, state.owner, state.data) as LightBatchedTreeRoots | null;
        return chain ? [{ tree, address: chain.treeType === 4, chain: chain.queueNextIndex, slot: state.slot }] : [];
      }));
      for (const tree of sample) {
        const meta = rows.get(tree);
        const state = r.states.get(tree);
        const root = roots.get(tree);
        if (!meta || !state || !root || root.seq === null) continue;
        const chain = clusterRoots(meta.treeType, state.owner, state.data);
        if (!chain) continue;
        const address = meta.treeType !== TREE_TYPE.StateV2;
        const kind: DriftKind = address ? 'zk_address_tree_root' : 'zk_batched_tree_root';
        const verdict = judgeRoot(r, kind, tree, { hash: bytesToBase58(root.hash), seq: root.seq }, chain, () => r.zkAction(tree));
        if (verdict !== 'agrees') continue;
        const inTree = address ? await checkElements(r, meta, fraction, elements, state.slot) : await checkLeaves(r, tree, meta.height, fraction, elements, state.slot);
        if (inTree) r.zkAgrees(tree);
      }
    },
  };
}

/**
 * The batched trees' own queues (`zk_queue_next_index`): the elements the cluster's tree account says its input queue
 * (nullifiers) or address queue (addresses) received, against those the index holds. More in the index: inserted
 * after the read (skipped); fewer: the index lost queue inserts the cluster had made (a mismatch) — elements no root
 * covers yet.
 */
async function checkQueues(r: DriftRound, trees: { tree: string; address: boolean; chain: number; slot: number }[]): Promise<void> {
  if (!trees.length) return;
  const indexed = await readZkQueueNextIndexes(r.db, trees);
  for (const t of trees) {
    const n = indexed.get(t.tree) ?? 0;
    if (n > t.chain) {
      r.skipped();
      continue;
    }
    r.checked('zk_queue_next_index');
    if (n === t.chain) continue;
    r.mismatch({
      kind: 'zk_queue_next_index', address: t.tree, slot: t.slot, action: r.zkAction(t.tree),
      indexed: { queue: t.address ? 'address' : 'input', nextIndex: n }, cluster: { nextIndex: t.chain },
    });
  }
}

/** Sampled elements of address tree `meta` (whose root agrees with the cluster's): each one's hash is its leaf and proves to the root. True when all do. */
async function checkElements(r: DriftRound, meta: ZkTreeRow, fraction: number, n: number, slot: number): Promise<boolean> {
  const { tree, height } = meta;
  const sampled = await sampleIndexedElements(r.db, Buffer.from(base58ToBytes(tree)).toString('hex'), fraction, n);
  if (!sampled.length) return true;
  const type = meta.treeType === TREE_TYPE.AddressV1 ? 'AddressV1' : 'AddressV2';
  const { read, verified } = await readLeafProofs(r.db, tree, height, sampled.map((e) => e.leafIndex));
  let agrees = true;
  sampled.forEach((e, i) => {
    r.checked('zk_address_element');
    const hash = indexedElementHash({ index: e.leafIndex, value: addressToBigint(e.value), nextIndex: e.nextIndex, nextValue: addressToBigint(e.nextValue) }, type);
    const isLeaf = Buffer.from(read[i].leaf).equals(Buffer.from(hash));
    if (isLeaf && verified[i]) return;
    agrees = false;
    r.mismatch({
      kind: 'zk_address_element', address: bytesToBase58(e.value), slot, action: r.zkAction(tree),
      indexed: { tree, leafIndex: e.leafIndex, nextIndex: e.nextIndex, nextValue: bytesToBase58(e.nextValue), leaf: bytesToBase58(read[i].leaf), elementHash: bytesToBase58(hash), proofVerifies: verified[i] },
      cluster: { root: bytesToBase58(read[i].root) },
    });
  });
  return agrees;
}
