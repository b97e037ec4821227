/** `solgate ingest` (follow a cluster) and `solgate replay` (ingest recorded files, then exit). */
import { openRuntime } from './runtime.js';
import { createIngester } from '../ingest/pipeline.js';
import { replayInto } from '../ingest/replay.js';
import { createRpcPoller } from '../sources/rpc-poller.js';
import { createRpcClient } from '../sources/rpc-client.js';
import { UsageError } from './usage-error.js';
import { getCheckpoint } from '../store/chain.js';
import { fetchAccounts } from '../sources/rpc-poller.js';
import { loadTreeFile } from './light-trees.js';
import { createOffchainFetcher, offchainConfig } from '../offchain/fetcher.js';

export async function runIngest(opts: { rpc?: string; fromSlot?: number }): Promise<number> {
  const rt = await openRuntime();
  const url = opts.rpc ?? rt.config.rpcUrl;
  if (!url) throw new UsageError('ingest needs --rpc URL (or SOLANA_RPC_URL)');
  const ctl = new AbortController();
  const stop = () => ctl.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const poller = createRpcPoller({ url, commitment: rt.config.commitment, concurrency: rt.config.ingestConcurrency, pollIntervalMs: rt.config.pollIntervalMs, fetchAccounts: rt.config.ingestFetchAccounts, logger: rt.logger });
  // The ingest process also fetches the off-chain documents its assets point to (any number of processes may).
  const offchain = createOffchainFetcher({ db: rt.db, logger: rt.logger, config: offchainConfig(rt.config) });
  offchain.start();
  try {
    if (rt.config.zkTreesFile) await loadTreeFile(rt.db, rt.config.zkTreesFile, 'SOLGATE_ZK_TREES');
    // Light trees the index does not know are discovered from the cluster's tree and queue accounts.
    const ingester = createIngester(rt.db, rt.logger, { fetchAccounts: (keys) => fetchAccounts(url, keys, { commitment: rt.config.commitment }) });
    // Without a checkpoint, start at SOLGATE_START_SLOT or at the current tip (history before it is not fetched).
    const startSlot = (await getCheckpoint(rt.db)) === null ? (rt.config.startSlot ?? (await getTipSlot(url))) : undefined;
    await ingester.run(poller, { startSlot, fromSlot: opts.fromSlot, signal: ctl.signal });
    rt.logger.info(ingester.stats, 'ingest: stopped');
  } finally {
    await offchain.stop();
    await poller.close();
    await rt.db.close();
  }
  return 0;
}

/** The cluster's current confirmed slot (where indexing starts when nothing was indexed yet). */
export async function getTipSlot(url: string): Promise<number> {
  const client = createRpcClient({ url });
  try {
    return Number(await client.call('getSlot', [{ commitment: 'confirmed' }]));
  } finally {
    await client.close();
  }
}

export async function runReplay(paths: string[], opts: { lightTrees?: string; slot?: number } = {}): Promise<number> {
  const rt = await openRuntime();
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
      fetchAccounts: rpcUrl ? (keys) => fetchAccounts(rpcUrl, keys, { commitment: rt.config.commitment }) : undefined,
    });
    console.log(`replayed ${r.files} files: ${r.transactions} transactions in ${r.blocks} blocks, ${r.accounts} account updates; checkpoint slot ${r.checkpoint}`);
  } finally {
    await rt.db.close();
  }
  return 0;
}
