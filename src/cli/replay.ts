/**
 * `solgate replay`: ingest recorded files, then exit. A module of its own, apart from `solgate ingest`, so that the
 * command loads the ingester and little else: the cluster's RPC client (`fetchAccounts`, when SOLANA_RPC_URL is
 * set) is loaded on its first use.
 */
import { openRuntime } from './runtime.js';
import { replayInto } from '../ingest/replay.js';
import { createDecodePool, replayDecodeWorkers, type DecodePool } from '../sources/replay-decode-pool.js';
import { loadTreeFile } from './light-trees.js';

export async function runReplay(paths: string[], opts: { lightTrees?: string; slot?: number; decodePool?: DecodePool } = {}): Promise<number> {
  // Files are read and decoded by worker threads while this thread parses, folds and writes (one core is left to
  // this thread; PostgreSQL has its own processes). The command starts them before loading this module.
  const decodePool = opts.decodePool ?? createDecodePool(replayDecodeWorkers());
  try {
    const rt = await openRuntime({ logTo: 'stderr' });
    try {
      if (rt.config.zkTreesFile) await loadTreeFile(rt.db, rt.config.zkTreesFile, 'SOLGATE_ZK_TREES');
      if (opts.lightTrees !== undefined) {
        // Tree metadata (type, height, queue, root-history capacity) in the format of Photon's test fixtures.
        const n = await loadTreeFile(rt.db, opts.lightTrees, '--light-trees');
        console.log(`loaded metadata of ${n} Light trees from ${opts.lightTrees}`);
      }
      const rpcUrl = rt.config.rpcUrl;
      const r = await replayInto(rt.db, paths, rt.logger, {
        atSlot: opts.slot,
        decodePool,
        fetchAccounts: rpcUrl ? async (keys) => (await import('../sources/rpc-poller.js')).fetchAccounts(rpcUrl, keys, { commitment: rt.config.commitment }) : undefined,
      });
      console.log(`replayed ${r.files} files: ${r.transactions} transactions in ${r.blocks} blocks, ${r.accounts} account updates${r.skipped ? ` (${r.skipped} blocks already indexed, skipped)` : ''}; checkpoint slot ${r.checkpoint}`);
    } finally {
      await rt.db.close();
    }
  } finally {
    await decodePool.close();
  }
  return 0;
}
