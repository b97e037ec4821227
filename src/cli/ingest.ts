/** `solgate ingest`: follow a cluster. */
import { openRuntime } from './runtime.js';
import { sleepUnlessAborted } from '../core/sleep.js';
import { createIngester } from '../ingest/pipeline.js';
import { createChainSource } from '../sources/chain-source.js';
import { createRpcClient } from '../sources/rpc-client.js';
import { UsageError } from './usage-error.js';
import { getCheckpoint } from '../store/chain.js';
import { fetchAccounts } from '../sources/rpc-poller.js';
import { historyBeforeLive } from '../ingest/tree-backfill.js';
import { runWhileLeader } from '../ingest/leadership.js';
import { createDriftDetector } from '../ingest/drift.js';
import { createZkRepairWork } from '../ingest/zk-repair.js';
import { startRetention } from '../ingest/retention.js';
import { loadTreeFile } from './light-trees.js';
import { createOffchainFetcher, offchainConfig } from '../offchain/fetcher.js';
import { createPythPoller } from '../ingest/pyth-poll.js';
import { loadPythFeeds } from '../pricing/pyth-feeds.js';

export async function runIngest(opts: { rpc?: string; fromSlot?: number }): Promise<number> {
  const rt = await openRuntime();
  const url = opts.rpc ?? rt.config.rpcUrl;
  if (!url) throw new UsageError('ingest needs --rpc URL (or SOLANA_RPC_URL)');
  const ctl = new AbortController();
  const stop = () => ctl.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Blocks from the Yellowstone gRPC stream when SOLGATE_GRPC_URL is set, else polled over JSON-RPC.
  const poller = await createChainSource({
    rpcUrl: url, grpcUrl: rt.config.grpcUrl, grpcToken: rt.config.grpcToken, commitment: rt.config.commitment,
    concurrency: rt.config.ingestConcurrency, pollIntervalMs: rt.config.pollIntervalMs, fetchAccounts: rt.config.ingestFetchAccounts, logger: rt.logger,
  });
  // The ingest process also fetches the off-chain documents its assets point to (any number of processes may).
  const offchain = createOffchainFetcher({ db: rt.db, logger: rt.logger, config: offchainConfig(rt.config) });
  offchain.start();
  try {
    if (rt.config.zkTreesFile) await loadTreeFile(rt.db, rt.config.zkTreesFile, 'SOLGATE_ZK_TREES');
    // Light trees the index does not know are discovered from the cluster's tree and queue accounts.
    const ingester = createIngester(rt.db, rt.logger, { fetchAccounts: (keys) => fetchAccounts(url, keys, { commitment: rt.config.commitment }) });
    // Pyth prices: the configured feed accounts, read every SOLGATE_PRICE_PYTH_POLL_MS (docs/prices.md).
    const pyth = createPythPoller({
      accounts: [...loadPythFeeds(rt.config.priceFeedsFile).values()].map((f) => f.account),
      fetchAccounts: (keys) => fetchAccounts(url, keys, { commitment: rt.config.commitment }),
      ingester, intervalMs: rt.config.pricePythPollMs, logger: rt.logger,
    });
    pyth.start();
    // Without a checkpoint, start at SOLGATE_START_SLOT or at the current tip (history before it is not fetched).
    const startSlot = (await getCheckpoint(rt.db)) === null ? (rt.config.startSlot ?? (await getTipSlot(url))) : undefined;
    let fromSlot = opts.fromSlot;
    // An index that begins after the cluster's first slot queues its Bubblegum trees and reads the ZK Compression trees' history first.
    const zkClient = createRpcClient({ url, logger: rt.logger });
    const zk = { db: rt.db, ingester, client: zkClient, commitment: rt.config.commitment, concurrency: rt.config.backfillConcurrency, logger: rt.logger };
    const beforeLive = rt.config.coverage && rt.config.treeHistory ? historyBeforeLive(zk) : undefined;
    // SOLGATE_DRIFT_ZK_REPAIR=rebuild: the ingester rebuilds the ZK Compression trees the drift detector confirms differ.
    const zkRepair = rt.config.driftZkRepair === 'rebuild' ? createZkRepairWork(zk) : undefined;
    // The drift detector: samples of the index compared with the cluster at the same slot (src/ingest/drift.ts).
    const drift = rt.config.driftIntervalMs > 0
      ? createDriftDetector({
        db: rt.db, client: zkClient, ingester, commitment: rt.config.commitment, sample: rt.config.driftSample, intervalMs: rt.config.driftIntervalMs,
        logger: rt.logger, zkRepair: rt.config.driftZkRepair, onZkRepair: () => zkRepair?.wake(),
      })
      : null;
    drift?.start();
    // Partitions created ahead of ingestion, old ones dropped by the retention settings (src/ingest/retention.ts).
    const retention = startRetention(rt.db, rt.config, rt.logger);
    // One ingester per PostgreSQL database: wait in standby while another holds the lock (src/ingest/leadership.ts).
    await runWhileLeader({ databaseUrl: rt.config.databaseUrl, signal: ctl.signal, logger: rt.logger }, (signal) =>
      followWithRetries(() => ingester.run(poller, { startSlot, fromSlot, signal, beforeLive, exclusive: zkRepair }), {
        signal,
        logger: rt.logger,
        // After a failure, resume from the checkpoint (what was committed), not from --from-slot again.
        onRetry: () => void (fromSlot = undefined),
      }).then(() => void (fromSlot = undefined)),
    );
    await pyth.stop();
    await drift?.stop();
    await retention?.stop();
    await zkClient.close();
    rt.logger.info(ingester.stats, 'ingest: stopped');
  } finally {
    await offchain.stop();
    await poller.close();
    await rt.db.close();
  }
  return 0;
}

/**
 * Runs `follow` (one ingestion run, which resumes from the checkpoint) until `signal` aborts or it ends on its own:
 * a failure (PostgreSQL restarted or unreachable, the cluster's RPC failing past its retries) is logged and the run
 * restarted after a pause (`minMs` doubling up to `maxMs`), so the ingester waits for the outage to end and resumes
 * from its last committed slot instead of exiting. Writes are committed with the checkpoint in one transaction, so
 * a restart never skips nor duplicates a slot.
 */
export async function followWithRetries(
  follow: () => Promise<void>,
  o: { signal: AbortSignal; logger?: { error(obj: unknown, msg: string): void }; minMs?: number; maxMs?: number; onRetry?: (e: unknown) => void },
): Promise<number> {
  const min = o.minMs ?? 500;
  const max = o.maxMs ?? 10_000;
  let pause = min;
  let failures = 0;
  while (!o.signal.aborted) {
    try {
      await follow();
      return failures;
    } catch (e) {
      if (o.signal.aborted) break;
      failures++;
      o.logger?.error({ err: e }, `ingest: failed; retrying from the checkpoint in ${pause} ms`);
      o.onRetry?.(e);
      await sleepUnlessAborted(pause, o.signal);
      pause = Math.min(pause * 2, max);
    }
  }
  return failures;
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
