/**
 * The ZK Compression stage of the ingest pipeline: parse the Light transactions of a batch with the known trees
 * (resolving unknown ones first, see light-trees.ts), fold them into rows and tree operations (fold-zk.ts), and —
 * inside the batch's write transaction — compute the tree nodes (zk-tree-nodes.ts) and write everything next to the
 * other families' rows and the checkpoint, so `getIndexerSlot` never runs ahead of the ZK tables.
 */
import type { Logger } from 'pino';
import type { NormalizedTx } from '../core/model.js';
import { parseLightTransaction, type LightNullifierHasher, type LightStateUpdate } from '../parsers/light/index.js';
import { initPoseidon, poseidon } from '../proofs/light/index.js';
import type { Queryable } from '../store/db.js';
import { upsertTrees } from '../store/zk/trees.js';
import type { Statement } from '../store/bulk.js';
import { pruneNonCompressionTransactions, transactionsStatement } from '../store/zk/transactions.js';
import type { ZkTransactionRow } from '../store/zk/types.js';
import { writeZk } from '../store/zk/write.js';
import { foldZk, isEmptyZk, NON_COMPRESSION_KEEP, nonCompressionRow, touchesLight, type ZkPending } from './fold-zk.js';
import { createLightTreeRegistry, type LightTreeRegistry, type TreeAccountFetcher } from './light-trees.js';
import { computeTreeNodes } from './zk-tree-nodes.js';

/** Light's nullifier of a V2 input: Poseidon(account hash, leaf index, tx hash). */
const nullifier: LightNullifierHasher = (accountHash, leafIndex, txHash) => poseidon([accountHash, BigInt(leafIndex), txHash]);

export interface ZkStageOptions {
  /** Cluster account reads, to discover trees the table does not hold. */
  fetchAccounts?: TreeAccountFetcher;
  logger?: Logger;
}

export interface ZkStage {
  readonly trees: LightTreeRegistry;
  /** Rows and tree operations of a batch's (non-vote) transactions, in execution order. */
  prepare(txs: readonly NormalizedTx[]): Promise<ZkPending>;
  /**
   * The statements of a batch whose only ZK rows are transactions (no tree, account or queue changes: the common
   * case of a block without Light activity), which can join the block's single write statement; null otherwise.
   */
  transactionsOnly(pending: ZkPending): Statement[] | null;
  /** Writes a prepared batch inside the write transaction `q`. */
  write(q: Queryable, pending: ZkPending): Promise<void>;
  /** After a write: trims the non-compression transactions to the newest ones once many were added. */
  afterWrite(pending: ZkPending): Promise<void>;
  /** Counters: Light transactions parsed, undecodable Light data seen, tree problems reported. */
  readonly stats: { lightTransactions: number; parseFailures: number; treeProblems: number };
}

export function createZkStage(q: Queryable, opts: ZkStageOptions = {}): ZkStage {
  const trees = createLightTreeRegistry(q, opts.fetchAccounts);
  const stats = { lightTransactions: 0, parseFailures: 0, treeProblems: 0 };
  let sincePrune = 0;
  const parse = (tx: NormalizedTx) => parseLightTransaction(tx, { trees: trees.lookup, nullifier });

  return {
    trees,
    stats,
    async prepare(txs) {
      const others: ZkTransactionRow[] = [];
      const light: NormalizedTx[] = [];
      for (const tx of txs) {
        if (touchesLight(tx)) light.push(tx);
        else {
          const row = nonCompressionRow(tx);
          if (row) others.push(row);
        }
      }
      let updates: LightStateUpdate[] = [];
      if (light.length) {
        await Promise.all([initPoseidon(), trees.load()]);
        updates = light.map(parse);
        const unknown = updates.flatMap((u) => u.unknownTrees);
        if (unknown.length) {
          await trees.resolve(unknown);
          updates = updates.map((u, i) => (u.unknownTrees.length ? parse(light[i]) : u));
        }
        stats.lightTransactions += updates.length;
        for (const u of updates)
          for (const f of u.failures) {
            stats.parseFailures++;
            opts.logger?.warn({ signature: u.signature, reason: f.reason }, 'zk ingest: undecodable Light data');
          }
      }
      return foldZk(updates, others);
    },
    transactionsOnly(pending) {
      if (pending.ops.length || pending.rollovers.length) return null;
      const { transactions, ...rest } = pending.write;
      if (Object.values(rest).some((v) => (v as unknown[]).length)) return null;
      const s = transactionsStatement(transactions);
      return s ? [s] : [];
    },
    async afterWrite(pending) {
      // Trimmed once ten windows' worth were added: reads take the newest page anyway, so the extra rows only cost
      // space, while trimming after every window would cost a delete per few blocks.
      sincePrune += pending.write.transactions.filter((t) => !t.usesCompression).length;
      if (sincePrune < 10 * NON_COMPRESSION_KEEP) return;
      sincePrune = 0;
      await pruneNonCompressionTransactions(q, NON_COMPRESSION_KEEP);
    },
    async write(tx, pending) {
      if (isEmptyZk(pending)) return;
      const rollovers = trees.rolloverRows(pending.rollovers);
      if (rollovers.length) {
        await upsertTrees(tx, rollovers);
        trees.remember(rollovers);
      }
      const nodes = await computeTreeNodes(tx, pending, trees.trees, opts.logger);
      stats.treeProblems += nodes.problems.length;
      const w = pending.write;
      await writeZk(tx, { ...w, stateNodes: [...w.stateNodes, ...nodes.stateNodes], indexedElements: [...w.indexedElements, ...nodes.indexedElements] });
    },
  };
}
