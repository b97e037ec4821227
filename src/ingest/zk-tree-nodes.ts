/**
 * Moves the ZK Compression Merkle trees of a batch: from the tree operations `fold-zk.ts` derived (V1 appends,
 * nullifications and address-tree leaf updates; V2 batch append / nullify / address append) to the node rows
 * (zk_state_nodes, newest seq per node) and V2 address-tree elements (zk_indexed_elements) the batch writes. Photon
 * does the same in `persist_leaf_nodes` / `persist_batch_events` / `indexed_merkle_tree`.
 *
 * Runs inside the batch's write transaction, before its rows are written, and reads only what it needs: the stored
 * siblings of every leaf it writes, the stored root (its seq), and the inputs of V2 batch events that earlier
 * batches stored (queued outputs, input-queue nullifiers, queued addresses, low elements) — inputs the batch itself
 * carries are taken from it. Parents are recomputed level by level (each dirty inner node hashed once per
 * operation group), with Poseidon.
 *
 * Idempotence and order: an operation whose seq is not above the seq of the tree's stored root was applied before
 * (a replay) and is skipped; the rest run in seq order, so a batch merged from several gives the nodes the
 * separate batches would. Each V2 event's resulting root must equal the root the chain logged, and each V1 append's
 * the root of its change-log path; a mismatch, or an event whose inputs are not in the index (ingestion started
 * after them), is reported (log + `solgate_zk_tree_problems_total`) and the tree's later operations of the batch are
 * left out rather than built on a wrong tree.
 */
import type { Logger } from 'pino';
import { zkTreeProblems } from '../core/metrics.js';
import { nodeFromBase58, nodeToBase58 } from '../proofs/hash.js';
import {
  addressToBigint, bigintToAddress, HIGHEST_ADDRESS_PLUS_ONE, indexedElementHash, initialIndexedElements, initPoseidon,
  isZeroHash, leafNodeIndex, nodeLevel, poseidonPair, proofNodeIndexes, zeroHash, type AddressTreeType, type IndexedElement,
} from '../proofs/light/index.js';
import type { Queryable } from '../store/db.js';
import { getLowElements } from '../store/zk/indexed-tree.js';
import { getStateNodes } from '../store/zk/state-tree.js';
import { getLeavesInRange, getNullifiersInRange, getQueuedAddressesInRange, hasIndexedElements } from '../store/zk/tree-inputs.js';
import { TREE_TYPE, type ZkIndexedElementRow, type ZkStateNodeRow, type ZkTreeRow } from '../store/zk/types.js';
import type { ZkPending, ZkTreeOp } from './fold-zk.js';

/** A tree the batch could not move correctly. */
export interface ZkTreeProblem {
  tree: string;
  seq: number;
  kind: 'root_mismatch' | 'missing_inputs' | 'unknown_tree';
  message: string;
}

export interface ZkTreeResult {
  stateNodes: ZkStateNodeRow[];
  indexedElements: ZkIndexedElementRow[];
  problems: ZkTreeProblem[];
}

type Node = { hash: Uint8Array; seq: number | null };

/** The nodes of one tree: stored ones read on demand, plus what this batch wrote. */
class TreeNodes {
  private readonly nodes = new Map<number, Node>();
  private readonly loaded = new Set<number>();
  readonly written = new Map<number, Node>();

  constructor(
    private readonly q: Queryable,
    readonly tree: string,
    readonly height: number,
  ) {}

  /** Reads the stored nodes among `idxs` not read yet (one query). */
  async ensure(idxs: Iterable<number>): Promise<void> {
    const missing = [...new Set(idxs)].filter((n) => !this.loaded.has(n));
    if (!missing.length) return;
    const stored = await getStateNodes(this.q, this.tree, missing);
    for (const n of missing) {
      this.loaded.add(n);
      const s = stored.get(n);
      if (s) this.nodes.set(n, { hash: nodeFromBase58(s.hash)!, seq: s.seq });
    }
  }

  /** Node indexes to {@link ensure} before writing these leaves: each leaf, its siblings and the root. */
  needed(leafIndexes: Iterable<number>): number[] {
    const out = [1];
    for (const i of leafIndexes) out.push(leafNodeIndex(i, this.height), ...proofNodeIndexes(i, this.height));
    return out;
  }

  hash(n: number): Uint8Array {
    return this.nodes.get(n)?.hash ?? zeroHash(nodeLevel(n, this.height));
  }

  leaf(leafIndex: number): Uint8Array {
    return this.hash(leafNodeIndex(leafIndex, this.height));
  }

  get rootSeq(): number | null {
    return this.nodes.get(1)?.seq ?? null;
  }

  root(): string {
    return nodeToBase58(this.hash(1));
  }

  private set(n: number, node: Node): void {
    this.nodes.set(n, node);
    this.loaded.add(n);
    this.written.set(n, node);
  }

  /**
   * Writes leaves (later entries win) and rehashes every dirty inner node once, level by level; a parent takes the
   * highest seq among its rewritten children. The leaves' siblings must have been {@link ensure}d.
   */
  setLeaves(entries: readonly { leafIndex: number; hash: Uint8Array; seq: number }[]): void {
    let dirty = new Map<number, number>();
    for (const e of entries) {
      const n = leafNodeIndex(e.leafIndex, this.height);
      this.set(n, { hash: e.hash, seq: e.seq });
      dirty.set(n, Math.max(e.seq, dirty.get(n) ?? -1));
    }
    for (let level = 0; level < this.height; level++) {
      const parents = new Map<number, number>();
      for (const [n, seq] of dirty) {
        const p = Math.floor(n / 2);
        parents.set(p, Math.max(seq, parents.get(p) ?? -1));
      }
      for (const [p, seq] of parents) this.set(p, { hash: poseidonPair(this.hash(2 * p), this.hash(2 * p + 1)), seq });
      dirty = parents;
    }
  }

  rows(): ZkStateNodeRow[] {
    return [...this.written].map(([nodeIdx, n]) => {
      const level = nodeLevel(nodeIdx, this.height);
      return { tree: this.tree, nodeIdx, leafIdx: level === 0 ? nodeIdx - 2 ** this.height : null, level, hash: nodeToBase58(n.hash), seq: n.seq };
    });
  }
}

class MissingInputs extends Error {}

const b58bytes = (s: string) => nodeFromBase58(s)!;

/** Computes the tree nodes (and V2 address-tree elements) of `pending`; see the module comment. */
export async function computeTreeNodes(q: Queryable, pending: ZkPending, trees: ReadonlyMap<string, ZkTreeRow>, logger?: Logger): Promise<ZkTreeResult> {
  const out: ZkTreeResult = { stateNodes: [], indexedElements: [], problems: [] };
  if (!pending.ops.length) return out;
  await initPoseidon();
  const byTree = new Map<string, ZkTreeOp[]>();
  for (const op of pending.ops) (byTree.get(op.tree) ?? byTree.set(op.tree, []).get(op.tree)!).push(op);
  for (const [tree, ops] of byTree) {
    const meta = trees.get(tree);
    if (!meta) {
      out.problems.push({ tree, seq: ops[0].seq, kind: 'unknown_tree', message: `tree ${tree} has no metadata` });
      continue;
    }
    const t = new TreeNodes(q, tree, meta.height);
    await t.ensure([1]);
    const stored = t.rootSeq ?? -1;
    const seen = new Set<string>();
    const live = ops
      .filter((op) => op.seq > stored)
      .filter((op) => {
        const k = op.kind === 'leaf' ? `l|${op.seq}|${op.leafIndex}` : `b|${op.seq}`;
        return seen.has(k) ? false : (seen.add(k), true);
      })
      .sort((a, b) => a.seq - b.seq);
    if (!live.length) continue;
    const elements: ZkIndexedElementRow[] = [];
    try {
      await applyOps(q, t, meta, live, pending, elements, out.problems);
    } catch (e) {
      if (!(e instanceof MissingInputs)) throw e;
      out.problems.push({ tree, seq: live[0].seq, kind: 'missing_inputs', message: e.message });
    }
    out.stateNodes.push(...t.rows());
    out.indexedElements.push(...elements);
  }
  for (const p of out.problems) {
    zkTreeProblems.inc({ kind: p.kind });
    logger?.error({ tree: p.tree, seq: p.seq, kind: p.kind }, `zk ingest: ${p.message}`);
  }
  return out;
}

async function applyOps(
  q: Queryable,
  t: TreeNodes,
  meta: ZkTreeRow,
  ops: ZkTreeOp[],
  pending: ZkPending,
  elements: ZkIndexedElementRow[],
  problems: ZkTreeProblem[],
): Promise<void> {
  const addressType: AddressTreeType | null =
    meta.treeType === TREE_TYPE.AddressV1 ? 'AddressV1' : meta.treeType === TREE_TYPE.AddressV2 ? 'AddressV2' : null;
  const index = addressType ? await IndexedElements.open(q, meta.tree, addressType, t, elements) : null;
  for (let i = 0; i < ops.length; ) {
    const op = ops[i];
    if (op.kind === 'leaf') {
      // A run of V1 leaf writes is one group.
      const group: Extract<ZkTreeOp, { kind: 'leaf' }>[] = [];
      while (i < ops.length && ops[i].kind === 'leaf') group.push(ops[i++] as Extract<ZkTreeOp, { kind: 'leaf' }>);
      await t.ensure(t.needed(group.map((g) => g.leafIndex)));
      t.setLeaves(group.map((g) => ({ leafIndex: g.leafIndex, hash: b58bytes(g.hash), seq: g.seq })));
      const last = group[group.length - 1];
      const expected = [...group].reverse().find((g) => g.seq === last.seq && g.root !== null)?.root ?? null;
      if (expected !== null && t.root() !== expected) {
        problems.push({ tree: t.tree, seq: last.seq, kind: 'root_mismatch', message: `root after seq ${last.seq} is ${t.root()}, the change log says ${expected}` });
        return;
      }
      continue;
    }
    i++;
    const e = op.event;
    if (e.kind === 'batchAppend') await batchAppend(q, t, e.oldNextIndex, e.newNextIndex, op.seq, pending);
    else if (e.kind === 'batchNullify') await batchNullify(q, t, e.oldNextIndex, e.newNextIndex, op.seq, pending);
    else {
      if (!index) throw new MissingInputs(`address append on ${t.tree}, which is not an address tree`);
      await index.append(e.oldNextIndex, e.newNextIndex, op.seq, pending);
    }
    if (t.root() !== e.newRoot) {
      problems.push({ tree: t.tree, seq: op.seq, kind: 'root_mismatch', message: `root after batch seq ${op.seq} is ${t.root()}, the chain logged ${e.newRoot}` });
      return;
    }
  }
}

/** V2 batch append: the queued outputs of leaf range [from, to); a leaf already nullified keeps its nullifier. */
async function batchAppend(q: Queryable, t: TreeNodes, from: number, to: number, seq: number, pending: ZkPending): Promise<void> {
  const hashes = new Map<number, string>();
  for (const a of pending.write.accounts) if (a.tree === t.tree && a.leafIndex >= from && a.leafIndex < to) hashes.set(a.leafIndex, a.hash);
  if (hashes.size < to - from) for (const r of await getLeavesInRange(q, t.tree, from, to)) if (!hashes.has(r.leafIndex)) hashes.set(r.leafIndex, r.hash);
  if (hashes.size < to - from) throw new MissingInputs(`batch append seq ${seq} covers leaves ${from}..${to - 1} of ${t.tree}, ${to - from - hashes.size} of whose accounts are not indexed`);
  const range = [...Array(to - from).keys()].map((k) => from + k);
  await t.ensure(t.needed(range));
  t.setLeaves(range.flatMap((i) => (isZeroHash(t.leaf(i), 0) ? [{ leafIndex: i, hash: b58bytes(hashes.get(i)!), seq }] : [])));
}

/** V2 batch nullify: the nullifiers of input-queue range [from, to), each at its account's leaf. */
async function batchNullify(q: Queryable, t: TreeNodes, from: number, to: number, seq: number, pending: ZkPending): Promise<void> {
  const entries = new Map<number, { leafIndex: number | null; nullifier: string | null }>();
  for (const n of pending.nullifiers) if (n.tree === t.tree && n.queueIndex >= from && n.queueIndex < to) entries.set(n.queueIndex, n);
  if (entries.size < to - from) for (const r of await getNullifiersInRange(q, t.tree, from, to)) if (!entries.has(r.queueIndex)) entries.set(r.queueIndex, r);
  const ready = [...entries.values()].filter((n): n is { leafIndex: number; nullifier: string } => n.leafIndex !== null && n.nullifier !== null);
  if (ready.length < to - from) throw new MissingInputs(`batch nullify seq ${seq} covers input-queue entries ${from}..${to - 1} of ${t.tree}, ${to - from - ready.length} of which are not indexed`);
  await t.ensure(t.needed(ready.map((n) => n.leafIndex)));
  t.setLeaves(ready.map((n) => ({ leafIndex: n.leafIndex, hash: b58bytes(n.nullifier), seq })));
}

const elementRow = (tree: string, e: IndexedElement, seq: number | null): ZkIndexedElementRow => ({
  tree,
  leafIndex: e.index,
  value: bigintToAddress(e.value),
  nextIndex: e.nextIndex,
  nextValue: bigintToAddress(e.nextValue),
  seq,
});

/** The elements of an indexed (address) tree as this batch sees them: stored ones read on demand, plus its writes. */
class IndexedElements {
  /** Elements this batch wrote, by leaf index. */
  private readonly mine = new Map<number, IndexedElement>();

  private constructor(
    private readonly q: Queryable,
    private readonly tree: string,
    private readonly type: AddressTreeType,
    private readonly nodes: TreeNodes,
    private readonly out: ZkIndexedElementRow[],
  ) {}

  /**
   * Opens the tree; one nothing was written to yet gets its initial elements (V1: the zeroth and the top element,
   * V2: the zeroth), at seq 0, as Photon's fresh trees hold them.
   */
  static async open(q: Queryable, tree: string, type: AddressTreeType, nodes: TreeNodes, out: ZkIndexedElementRow[]): Promise<IndexedElements> {
    const ix = new IndexedElements(q, tree, type, nodes, out);
    if (!(await hasIndexedElements(q, tree))) {
      const init = initialIndexedElements(type);
      for (const e of init) ix.write(e, 0);
      await nodes.ensure(nodes.needed(init.map((e) => e.index)));
      nodes.setLeaves(init.map((e) => ({ leafIndex: e.index, hash: indexedElementHash(e, type), seq: 0 })));
    }
    return ix;
  }

  private write(e: IndexedElement, seq: number): void {
    this.mine.set(e.index, { ...e });
    this.out.push(elementRow(this.tree, e, seq));
  }

  /**
   * V2 batch address append: the queued addresses of queue range [from − 1, to − 1) (the zeroth element takes leaf
   * 0, so queue index k becomes leaf k + 1), inserted in queue order: each new element takes its low element's
   * successor, the low element points at it, both leaves are rewritten (Light's `BatchedAddressTree` insert).
   */
  async append(from: number, to: number, seq: number, pending: ZkPending): Promise<void> {
    const n = to - from;
    const byIndex = new Map<number, string>();
    for (const a of pending.write.addressQueue) if (a.tree === this.tree && a.queueIndex >= from - 1 && a.queueIndex < to - 1) byIndex.set(a.queueIndex, a.address);
    if (byIndex.size < n) for (const r of await getQueuedAddressesInRange(this.q, this.tree, from - 1, to - 1)) if (!byIndex.has(r.queueIndex)) byIndex.set(r.queueIndex, r.address);
    if (byIndex.size < n) throw new MissingInputs(`address append seq ${seq} covers queue entries ${from - 1}..${to - 2} of ${this.tree}, ${n - byIndex.size} of which are not indexed`);
    const addresses = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, a]) => a);
    const storedLows = await getLowElements(this.q, addresses.map((value) => ({ tree: this.tree, value })));
    const leaves = new Set<number>();
    addresses.forEach((address, k) => {
      const v = addressToBigint(address);
      let low: IndexedElement | null = null;
      const s = storedLows[k];
      if (s) low = this.mine.get(s.leafIndex) ?? { index: s.leafIndex, value: addressToBigint(s.value), nextIndex: s.nextIndex, nextValue: addressToBigint(s.nextValue) };
      for (const m of this.mine.values()) if (m.value < v && (low === null || m.value > low.value)) low = m;
      if (!low || low.value === v || v >= low.nextValue || v >= HIGHEST_ADDRESS_PLUS_ONE)
        throw new MissingInputs(`address append seq ${seq}: no low element for ${address} in ${this.tree}`);
      const fresh: IndexedElement = { index: from + k, value: v, nextIndex: low.nextIndex, nextValue: low.nextValue };
      const relinked: IndexedElement = { ...low, nextIndex: fresh.index, nextValue: v };
      this.write(relinked, seq);
      this.write(fresh, seq);
      leaves.add(relinked.index).add(fresh.index);
    });
    await this.nodes.ensure(this.nodes.needed(leaves));
    this.nodes.setLeaves([...leaves].map((i) => ({ leafIndex: i, hash: indexedElementHash(this.mine.get(i)!, this.type), seq })));
  }
}
