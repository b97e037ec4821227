/**
 * Bubblegum trees of an index that began after the cluster's first slot: every tree created before the origin is
 * queued for the history backfill (src/ingest/backfill.ts) — a tree's own signatures are every Bubblegum change of
 * it, so reading them back to its first transaction rebuilds its leaves, assets and change-log nodes through the same
 * fold as live blocks, as the reference DAS indexer's tree backfiller does. Bubblegum writes are guarded by each
 * change's seq, so the backfill and live ingestion of a tree merge in any order. Runs before live ingestion's first
 * block (with the ZK Compression history); the queue is shared by every `serve` process.
 */
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { enqueueBackfill } from '../store/backfill.js';
import { listBubblegumTrees } from '../sources/bubblegum-trees.js';
import type { RpcClient } from '../sources/rpc-client.js';
import { readZkHistoryBeforeLive, type ZkHistoryOptions } from './zk-history.js';

export async function queueBubblegumTrees(
  o: { db: Db; client: RpcClient; commitment: 'confirmed' | 'finalized'; logger?: Logger },
  origin: number,
  signal?: AbortSignal,
): Promise<number> {
  if (origin <= 0) return 0;
  const trees = (await listBubblegumTrees(o.client, { commitment: o.commitment, signal })).filter((t) => t.creationSlot < origin);
  if (trees.length) await enqueueBackfill(o.db, trees.map((t) => t.tree));
  o.logger?.info({ trees: trees.length, origin }, 'bubblegum: trees created before the origin queued for backfill');
  return trees.length;
}

/**
 * The `beforeLive` hook `serve` and `ingest` give live ingestion on a cluster: queues the Bubblegum trees created
 * before the origin (a failure is logged: their proofs then say the tree's history is missing) and reads the ZK
 * Compression trees' history (src/ingest/zk-history.ts).
 */
export function historyBeforeLive(o: ZkHistoryOptions): (from: number, signal: AbortSignal) => Promise<void> {
  return async (from, signal) => {
    await queueBubblegumTrees(o, from, signal).catch((err) => o.logger?.warn({ err }, 'bubblegum: listing the cluster\'s trees failed; trees created before the origin are not backfilled'));
    await readZkHistoryBeforeLive(o, from, signal);
  };
}
