/**
 * Rebuilding the ZK Compression trees' state from the cluster (`solgate zk-rebuild`): the repair for a tree the drift
 * detector reports (`zk_tree_root`, `zk_account_hash`; docs/operations.md), where a damaged node or a missed
 * operation cannot be patched in place because every later root depends on it. The trees' state tables are emptied
 * and the history of every Light tree and queue up to the checkpoint is read again and applied in chain order
 * (src/ingest/zk-history.ts, the path an index that began after the cluster's first slot takes before its first
 * block). Live ingestion must not write meanwhile: the caller holds the ingester lock. While it runs, ZK Compression
 * answers say they are partial (`basis=backfilling`); a rebuild stopped half-way is simply run again.
 */
import { getCheckpoint } from '../store/chain.js';
import { resetZkTreeState } from '../store/zk/history.js';
import { readZkHistory, type ZkHistoryOptions, type ZkHistoryResult } from './zk-history.js';

export async function rebuildZkState(o: ZkHistoryOptions, signal?: AbortSignal): Promise<ZkHistoryResult & { through: number }> {
  const checkpoint = await getCheckpoint(o.db);
  if (checkpoint === null) throw new Error('nothing is indexed yet: there is no ZK Compression state to rebuild');
  // The read covers every slot up to the checkpoint: "the origin" of zk-history is the first slot it does not read.
  await resetZkTreeState(o.db, checkpoint + 1);
  const r = await readZkHistory(o, checkpoint + 1, signal);
  return { ...r, through: checkpoint };
}
