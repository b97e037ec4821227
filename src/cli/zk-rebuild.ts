/**
 * `solgate zk-rebuild [--rpc URL]`: rebuilds the ZK Compression trees' state from the cluster (src/ingest/zk-rebuild.ts)
 * — the repair for what the drift detector reports about Light trees (docs/operations.md). Live ingestion must be
 * stopped: on PostgreSQL the command takes the ingester lock and refuses while an ingester holds it; an embedded
 * database is the command's own while no server runs. The API may keep serving: its ZK Compression answers say they
 * are partial until the rebuild ends. Ctrl-C stops it; run it again to finish (the answers stay partial meanwhile).
 */
import { loadConfig } from '../config/index.js';
import { openRuntime } from './runtime.js';
import { onStopSignal } from './signals.js';
import { UsageError } from './usage-error.js';
import { createIngester } from '../ingest/pipeline.js';
import { rebuildZkState } from '../ingest/zk-rebuild.js';
import { INGESTER_LOCK } from '../ingest/leadership.js';
import { createRpcClient } from '../sources/rpc-client.js';
import { fetchAccounts } from '../sources/rpc-poller.js';
import { tryAdvisoryLock } from '../store/advisory-lock.js';
import { loadTreeFile } from './light-trees.js';

export const ZK_REBUILD_USAGE = 'solgate zk-rebuild [--rpc URL]';

export async function runZkRebuild(opts: { rpc?: string }): Promise<number> {
  const url = opts.rpc ?? loadConfig().rpcUrl;
  if (!url) throw new UsageError('zk-rebuild needs --rpc URL (or SOLANA_RPC_URL): the trees\' history is read from the cluster', ZK_REBUILD_USAGE);
  const rt = await openRuntime({ logTo: 'stderr' });
  try {
    const lock = rt.config.databaseUrl ? await tryAdvisoryLock(rt.config.databaseUrl, INGESTER_LOCK) : null;
    if (rt.config.databaseUrl && !lock) {
      console.error('solgate: an ingester is writing this database (it holds the ingester lock): stop `solgate ingest` (and `serve` with SOLANA_RPC_URL) first; nothing was changed');
      return 1;
    }
    const client = createRpcClient({ url, logger: rt.logger });
    const ctl = new AbortController();
    const stop = onStopSignal('solgate zk-rebuild');
    stop.setUnsaved('the rebuild (run `solgate zk-rebuild` again to finish it)');
    void stop.stopped.then(() => ctl.abort());
    try {
      if (rt.config.zkTreesFile) await loadTreeFile(rt.db, rt.config.zkTreesFile, 'SOLGATE_ZK_TREES');
      const ingester = createIngester(rt.db, rt.logger, { fetchAccounts: (keys) => fetchAccounts(url, keys, { commitment: rt.config.commitment }) });
      const r = await rebuildZkState({ db: rt.db, ingester, client, commitment: rt.config.commitment, concurrency: rt.config.backfillConcurrency, logger: rt.logger }, ctl.signal);
      await ingester.settle();
      const what = `${r.trees} tree${r.trees === 1 ? '' : 's'}, ${r.transactions} transaction${r.transactions === 1 ? '' : 's'} through slot ${r.through}`;
      if (r.status === 'truncated') {
        console.log(`ZK Compression state rebuilt from what the cluster still serves (${what}); older history is not available, so answers say they are partial`);
        return 1;
      }
      console.log(`ZK Compression state rebuilt: ${what}`);
      return 0;
    } finally {
      await client.close();
      await lock?.release();
    }
  } finally {
    await rt.db.close();
  }
}
