/**
 * ZK Compression (Light Protocol) state updates → the rows of the ZK tables and the tree operations that move the
 * Merkle trees (pure). Photon's `persist_state_update` split in two: everything that is a plain row (accounts,
 * spends, token data, transactions, account ↔ transaction links, V2 queue entries, batch events, V1 address-tree
 * elements) comes out here; the tree nodes, which need the stored siblings and Poseidon, are computed from the
 * returned {@link ZkTreeOp}s by `zk-tree-nodes.ts` inside the write transaction.
 *
 * Transactions that do not touch a Light program are recorded as non-compression transactions (Photon keeps them for
 * getLatestNonVotingSignatures): failed and vote transactions are not, and of a batch only the newest
 * {@link NON_COMPRESSION_KEEP} are, since the store keeps no more than that many anyway.
 */
import type { NormalizedTx } from '../core/model.js';
import type { LightBatchEvent, LightStateUpdate, LightTreeRollover } from '../parsers/light/index.js';
import { LIGHT_PROGRAMS } from '../parsers/light/index.js';
import { emptyZkWrite, type ZkTransactionRow, type ZkWrite } from '../store/zk/types.js';
import { ZERO_HASH } from './fold-cnft.js';

/** How many of the newest non-compression transactions the index keeps (Photon's getLatestNonVotingSignatures page). */
export const NON_COMPRESSION_KEEP = 1000;

/** A nullified V1 leaf: 32 zero bytes. */
export const ZERO_LEAF = ZERO_HASH;

const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';

/**
 * One change of a tree, in its sequence-number order:
 * - `leaf`: a V1 state append (the account hash), a V1 forester nullification (zero) or a V1 address-tree element
 *   update (the element hash) at `seq`; `root` is the root the chain logged for that seq when the event carried it;
 * - `batch`: a V2 batch append / nullify / address append.
 */
export type ZkTreeOp =
  | { kind: 'leaf'; tree: string; seq: number; leafIndex: number; hash: string; addressTree: boolean; root: string | null }
  | { kind: 'batch'; tree: string; seq: number; event: LightBatchEvent };

/** What a batch of parsed transactions writes, before its tree nodes are computed. */
export interface ZkPending {
  write: ZkWrite;
  ops: ZkTreeOp[];
  /** V2 input-queue entries of the batch with the leaf each nullifies (what a batch nullify of the batch covers). */
  nullifiers: ZkNullifierEntry[];
  rollovers: LightTreeRollover[];
}

/** A V2 input: its position in the tree's input queue, the leaf it nullifies and the nullifier written there. */
export interface ZkNullifierEntry {
  tree: string;
  queueIndex: number;
  leafIndex: number;
  nullifier: string | null;
}

export const emptyZkPending = (): ZkPending => ({ write: emptyZkWrite(), ops: [], nullifiers: [], rollovers: [] });

/** True when any account key of `tx` (static or loaded) is a Light program. */
export function touchesLight(tx: NormalizedTx): boolean {
  for (const k of tx.accountKeys) if (LIGHT_PROGRAMS.has(k)) return true;
  return false;
}

/** The non-compression row of a successful non-vote transaction that does not touch Light (null otherwise). */
export function nonCompressionRow(tx: NormalizedTx): ZkTransactionRow | null {
  if (tx.isVote || (tx.meta && tx.meta.err !== null && tx.meta.err !== undefined)) return null;
  for (const ix of tx.instructions) if (tx.accountKeys[ix.programIdIndex] === VOTE_PROGRAM) return null;
  return { signature: tx.signature, slot: tx.slot, blockTime: tx.blockTime, usesCompression: false, error: null };
}

/**
 * The rows of the newest slots holding at least `keep` rows (all rows of the boundary slot, so no signature has to be
 * decoded to order ties; the store trims to exactly `keep` later). Order-independent.
 */
function newest(rows: ZkTransactionRow[], keep: number): ZkTransactionRow[] {
  if (rows.length <= keep) return rows;
  const slots = rows.map((r) => r.slot).sort((a, b) => b - a);
  const edge = slots[keep - 1];
  return rows.filter((r) => r.slot >= edge);
}

/** Root hashes the V1 change-log events logged, by `tree|seq` (the last node of each path is the root). */
function changelogRoots(u: LightStateUpdate, into: Map<string, string>): void {
  for (const c of u.changelogs) {
    c.paths.forEach((path, i) => {
      const root = path.find((p) => p.index === 1) ?? path[path.length - 1];
      if (root) into.set(`${c.tree}|${c.seq + i}`, root.node);
    });
  }
}

/**
 * Rows and tree operations of `updates` (in execution order) and of the non-compression transactions `others`.
 * Failed transactions carry nothing (the parser gives them an empty update).
 */
export function foldZk(updates: readonly LightStateUpdate[], others: readonly ZkTransactionRow[] = []): ZkPending {
  const p = emptyZkPending();
  const w = p.write;
  const roots = new Map<string, string>();
  for (const u of updates) changelogRoots(u, roots);
  for (const u of updates) {
    if (u.transaction) w.transactions.push({ ...u.transaction });
    const created = new Set<string>();
    for (const a of u.outputAccounts) {
      created.add(a.hash);
      w.accounts.push({
        hash: a.hash,
        address: a.address,
        owner: a.owner,
        lamports: a.lamports,
        data: a.data ? { discriminator: a.data.discriminatorValue, data: a.data.data, dataHash: a.data.dataHash } : null,
        tree: a.tree,
        queue: a.queue,
        treeType: a.treeType,
        leafIndex: a.leafIndex,
        seq: a.seq,
        slotCreated: u.slot,
        inOutputQueue: a.inOutputQueue,
        token: a.tokenData ? { ...a.tokenData } : null,
      });
      if (a.seq !== null)
        p.ops.push({ kind: 'leaf', tree: a.tree, seq: a.seq, leafIndex: a.leafIndex, hash: a.hash, addressTree: false, root: roots.get(`${a.tree}|${a.seq}`) ?? null });
    }
    const queued = new Map(u.nullifierQueue.map((n) => [n.accountHash, n]));
    for (const n of u.nullifierQueue)
      if (n.nullifierQueueIndex !== null) p.nullifiers.push({ tree: n.tree, queueIndex: n.nullifierQueueIndex, leafIndex: n.leafIndex, nullifier: n.nullifier });
    const spent = new Set(u.inputAccountHashes);
    for (const hash of u.inputAccountHashes) {
      const n = queued.get(hash);
      w.spends.push({ hash, nullifier: n?.nullifier ?? null, txHash: n?.txHash ?? null, nullifierQueueIndex: n?.nullifierQueueIndex ?? null });
    }
    for (const l of u.accountTransactions)
      w.accountTransactions.push({ hash: l.hash, signature: l.signature, slot: u.slot, opened: created.has(l.hash), closed: spent.has(l.hash) });
    for (const n of u.leafNullifications)
      p.ops.push({ kind: 'leaf', tree: n.tree, seq: n.seq, leafIndex: n.leafIndex, hash: ZERO_LEAF, addressTree: false, root: null });
    for (const e of u.indexedTreeUpdates) {
      w.indexedElements.push({ tree: e.tree, leafIndex: e.leaf.index, value: e.leaf.value, nextIndex: e.leaf.nextIndex, nextValue: e.leaf.nextValue, seq: e.seq });
      p.ops.push({ kind: 'leaf', tree: e.tree, seq: e.seq, leafIndex: e.leaf.index, hash: e.hash, addressTree: true, root: null });
    }
    for (const a of u.batchNewAddresses) w.addressQueue.push({ tree: a.tree, address: a.address, queueIndex: a.queueIndex });
    for (const e of u.batchEvents) {
      w.batchEvents.push({
        tree: e.tree,
        kind: e.kind === 'batchAppend' ? 'append' : e.kind === 'batchNullify' ? 'nullify' : 'address_append',
        seq: e.sequenceNumber,
        oldNextIndex: e.oldNextIndex,
        newNextIndex: e.newNextIndex,
        slot: u.slot,
        signature: e.signature,
      });
      p.ops.push({ kind: 'batch', tree: e.tree, seq: e.sequenceNumber, event: e });
    }
    p.rollovers.push(...u.treeRollovers);
  }
  w.transactions.push(...newest([...others], NON_COMPRESSION_KEEP));
  return p;
}

/** Concatenates pending batches (operations keep their seq, so the tree step orders them). */
export function mergeZkPending(parts: readonly ZkPending[]): ZkPending {
  const out = emptyZkPending();
  for (const part of parts) {
    for (const k of Object.keys(out.write) as (keyof ZkWrite)[]) (out.write[k] as unknown[]).push(...part.write[k]);
    out.ops.push(...part.ops);
    out.nullifiers.push(...part.nullifiers);
    out.rollovers.push(...part.rollovers);
  }
  const others = out.write.transactions.filter((t) => !t.usesCompression);
  if (others.length > NON_COMPRESSION_KEEP) {
    const keep = new Set(newest(others, NON_COMPRESSION_KEEP));
    out.write.transactions = out.write.transactions.filter((t) => t.usesCompression || keep.has(t));
  }
  return out;
}

/** True when the batch changes nothing in the ZK tables. */
export function isEmptyZk(p: ZkPending): boolean {
  return p.ops.length === 0 && p.rollovers.length === 0 && Object.values(p.write).every((v) => (v as unknown[]).length === 0);
}
