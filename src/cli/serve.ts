/**
 * `solgate serve [--demo]`: the HTTP gateway, plus in-process ingestion from SOLANA_RPC_URL, or (with --demo and
 * no cluster URL) from the built-in localnet running a demo workload. Shuts down gracefully on SIGINT/SIGTERM.
 */
import { UsageError } from './usage-error.js';
import { randomBytes } from 'node:crypto';
import { StartupError } from '../core/errors.js';
import { probeClusterRpc, redactUrl } from '../sources/rpc-probe.js';
import { redactDatabaseUrl } from '../store/db.js';
import { tryAdvisoryLock } from '../store/advisory-lock.js';
import { onStopSignal } from './signals.js';
import { loadConfig } from '../config/index.js';
import { dataDirOwner, inUseError } from '../store/data-dir-lock.js';
import { openRuntime, seedIdentities } from './runtime.js';
import { openReadDb } from './read-db.js';
import { buildApp } from '../api/app.js';
import { createFileTokenRegistry, type TokenInfo } from '../pricing/token-registry.js';
import { createChainPriceRegistry } from '../pricing/chain-prices.js';
import { loadPythFeeds } from '../pricing/pyth-feeds.js';
import { createPythPoller, type PythPoller } from '../ingest/pyth-poll.js';
import { createIngester, type Ingester } from '../ingest/pipeline.js';
import { loadTreeFile } from './light-trees.js';
import { createTipWatcher, type TipWatcher } from '../sources/tip-watcher.js';
import { fetchAccounts } from '../sources/rpc-poller.js';
import { createChainSource, type ChainSource } from '../sources/chain-source.js';
import { createRpcClient, type RpcClient } from '../sources/rpc-client.js';
import { accountFetch, createUpstreamRpc } from '../sources/upstream-rpc.js';
import { createUpstreamSocketFactory, pubsubUrlOf } from '../sources/upstream-ws.js';
import { createTransactionHub } from '../api/ws/transactions.js';
import { createAccountHub } from '../api/ws/accounts.js';
import { createDemand } from '../core/demand.js';
import type { Block } from '../core/model.js';
import { startCommittedFeed, type CommittedFeed } from '../ingest/committed-feed.js';
import { runWhileLeader } from '../ingest/leadership.js';
import { createDriftDetector } from '../ingest/drift.js';
import { createZkRepairWork, type ZkRepairWork } from '../ingest/zk-repair.js';
import { startRetention } from '../ingest/retention.js';
import { createTransactionHistory } from '../ingest/transaction-history.js';
import { createCoverageService } from '../ingest/hydrate.js';
import { historyBeforeLive } from '../ingest/tree-backfill.js';
import { createWebhookReplayer, type WebhookReplayer } from '../ingest/webhook-replay.js';
import { createBackfiller, type Backfiller } from '../ingest/backfill.js';
import { getCheckpoint } from '../store/chain.js';
import type { DemoChain } from './demo-chain.js';
import { demoSnapshotDir, fundTipAccounts, printDemoBanner } from './serve-demo.js';
import { followWithRetries, getTipSlot } from './ingest.js';
import { checkPortFree, listenError, loopbackUrl } from './listen.js';
import { upsertIdentities } from '../store/identities.js';
import { createOffchainFetcher, offchainConfig } from '../offchain/fetcher.js';
import { createProverClient } from '../api/zk/prover.js';
import { createRpcTransactionFetcher } from '../api/zk/transaction-fetcher.js';
import { startDeliveryWorker, type DeliveryWorker } from '../webhooks/worker.js';
import { deliveryOptions } from '../webhooks/config.js';
import { senderDeps } from '../sender/config.js';
import { openAccounts } from '../accounts/runtime.js';
import { DEFAULT_TIP_ACCOUNTS } from '../sender/validate.js';
import { preferLowMemory } from '../core/low-memory.js';
import { PAIR_MEMO_SIZE, setPairMemoLimit } from '../proofs/light/poseidon.js';

/** How long shutdown waits for HTTP requests in flight before closing their connections. */
const SHUTDOWN_DRAIN_MS = 30_000;

const maxOrNull = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

export async function runServe(opts: { demo: boolean }): Promise<number> {
  // Stop signals are taken from the start: a Ctrl-C while starting stops after start-up, not half-way.
  const signal = onStopSignal('solgate');
  // Checked before anything starts, so a start-up that cannot complete fails within seconds with one line instead of
  // leaving a chain or ingestion running without an HTTP server: an embedded data directory another process owns
  // (told before the port: its message names that process), the HTTP port, then the database, then the cluster URL.
  const cfg = loadConfig();
  if (!cfg.databaseUrl) {
    const owner = dataDirOwner(cfg.dataDir);
    if (owner) throw inUseError(cfg.dataDir, owner);
  }
  await checkPortFree(cfg.port, cfg.host);
  // The demo and the embedded database favour memory over speed in V8 (src/core/low-memory.ts).
  if (opts.demo || !cfg.databaseUrl) preferLowMemory();
  // The proof methods' Poseidon pair memo (SOLGATE_PROOF_MEMO_PAIRS).
  if (cfg.proofMemoPairs !== PAIR_MEMO_SIZE) setPairMemoLimit(cfg.proofMemoPairs);
  const rt = await openRuntime();
  const { config, logger, db } = rt;
  try {
    if (config.rpcUrl) await probeClusterRpc(config.rpcUrl, { source: 'SOLANA_RPC_URL' });
    else if (config.grpcUrl && !opts.demo) throw new UsageError('SOLGATE_GRPC_URL needs SOLANA_RPC_URL too (it fills what the stream misses and reads accounts)');
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  await seedIdentities(rt);
  const overlay = new Map<string, TokenInfo>();
  let feeds: ReturnType<typeof loadPythFeeds>;
  try {
    feeds = loadPythFeeds(config.priceFeedsFile);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  const ctl = new AbortController();
  const closers: (() => Promise<void>)[] = [];
  // API-only on a streaming replica (DATABASE_READ_URL): the index's read paths query it (src/cli/read-db.ts).
  const readDb = await openReadDb(config, !!config.rpcUrl || opts.demo).catch(async (err: unknown) => {
    await db.close().catch(() => {});
    throw err;
  });
  if (readDb) closers.push(() => readDb.close());

  let rpcUrl = config.rpcUrl;
  // The admin token: SOLGATE_ADMIN_TOKEN, else (demo) one made for this run and shown in the banner.
  const adminToken = config.adminToken ?? (opts.demo ? randomBytes(24).toString('base64url') : undefined);
  const cliToken = randomBytes(32).toString('base64url');
  let demo: DemoChain | null = null;
  if (!rpcUrl && opts.demo && config.databaseUrl) {
    // One demo chain per PostgreSQL database: a second demo would write another chain's slots into the same index.
    const held = await tryAdvisoryLock(config.databaseUrl, 'demo-chain').catch(async (err: unknown) => {
      await db.close().catch(() => {});
      throw new StartupError(`cannot take the demo lock on ${redactDatabaseUrl(config.databaseUrl!)}: ${err instanceof Error ? err.message : String(err)}`);
    });
    if (!held) {
      await db.close().catch(() => {});
      throw new StartupError(`another \`solgate serve --demo\` runs on the database ${redactDatabaseUrl(config.databaseUrl)}: stop it, or point DATABASE_URL at another database`);
    }
    held.onLost((err) => logger.warn({ err }, 'demo: the connection holding the demo lock was lost; another demo could now start on this database'));
    closers.push(() => held.release());
  }
  if (!rpcUrl && opts.demo) {
    // The chain saved at the last graceful shutdown is restored when it ends at the checkpoint; otherwise a fresh
    // chain starts after the checkpoint (indexed slots never rewind), with a warning that chain state restarted.
    // The snapshot lives in SOLGATE_DATA_DIR, also with DATABASE_URL (the checkpoint check ties it to the database).
    const cp = await getCheckpoint(db);
    const { startDemoChain } = await import('./demo-chain.js'); // the built-in localnet (LiteSVM, all of kit): demo only
    demo = await startDemoChain({
      port: config.localnetPort, slotMs: config.localnetSlotMs, finalizedDepth: config.localnetFinalizedDepth, startSlot: cp === null ? 0 : cp + 1, logger,
      light: config.localnetLight,
      snapshotDir: demoSnapshotDir(config.dataDir, config.databaseUrl), checkpoint: cp,
    });
    closers.push(() => demo!.stop());
    rpcUrl = demo.url;
    for (const [mint, info] of demo.tokenOverlay()) overlay.set(mint, info);
    await upsertIdentities(db, [{ address: demo.faucet, name: 'Localnet Faucet', type: 'faucet', category: 'Infrastructure', tags: ['localnet'] }]);
    // The Sender's tip accounts exist on mainnet; on the demo chain they are funded so small tips can land.
    await fundTipAccounts(demo.url, config.senderTipAccounts ?? DEFAULT_TIP_ACCOUNTS).catch((err) => logger.warn({ err }, 'localnet: funding the Sender tip accounts failed'));
  }

  // Webhook deliveries from this process (SOLGATE_WEBHOOK_CONCURRENCY > 0); in-process ingestion wakes it.
  // Plans, limits and usage (Redis-shared counters with REDIS_URL); the usage recorder flushes in the background.
  const accounts = openAccounts(config, db, logger);
  const deliveries: DeliveryWorker | null = config.webhookConcurrency > 0
    ? startDeliveryWorker({ ...deliveryOptions(config, db, logger), onFirstAttempt: (keyId) => accounts.meter.chargeUsage(keyId, 'webhookEvent', 'webhook.event') })
    : null;

  // Standard Solana JSON-RPC on `/`: forwarded to the cluster RPC (src/sources/upstream-rpc.ts).
  const upstreamUrl = config.rpcUpstreamUrl ?? rpcUrl;
  const upstreamRpc = upstreamUrl ? createUpstreamRpc({ url: upstreamUrl, timeoutMs: config.rpcUpstreamTimeoutMs, logger }) : null;
  if (upstreamRpc) closers.push(() => upstreamRpc.close());
  // The committed blocks feed the enhanced transactionSubscribe and accountSubscribe: this process's ingester's blocks,
  // or (API-only) the same blocks read from the cluster as the index's checkpoint reaches them. A resumed
  // subscription's past is read from the history index and the cluster.
  const historyUrl = rpcUrl ?? upstreamUrl;
  const historyRpc = historyUrl ? createRpcClient({ url: historyUrl, logger }) : null;
  if (historyRpc) closers.push(() => historyRpc.close());
  const demand = createDemand();
  const transactionHub = createTransactionHub(
    historyRpc ? createTransactionHistory({ db, client: historyRpc, commitment: config.commitment, concurrency: config.backfillConcurrency }) : undefined,
    { demand },
  );
  const accountHub = upstreamRpc ? createAccountHub(accountFetch(upstreamRpc, config.commitment), { commitment: config.commitment, demand, logger }) : null;
  const publishCommitted = (blocks: readonly Block[]) => {
    transactionHub.publish(blocks);
    accountHub?.publish(blocks);
  };
  let ingester: Ingester | null = null;
  let zkRepair: ZkRepairWork | undefined;
  let poller: ChainSource | null = null;
  let tips: TipWatcher | null = null;
  let ingestDone: Promise<void> = Promise.resolve();
  // The committed-blocks feed of a process waiting for the ingester lock (set while in standby).
  let standbyFeed: CommittedFeed | null = null;
  closers.push(async () => standbyFeed?.close());
  if (rpcUrl) {
    const url = rpcUrl;
    // Blocks from the Yellowstone gRPC stream when SOLGATE_GRPC_URL is set, else polled over JSON-RPC.
    poller = await createChainSource({
      rpcUrl: url,
      grpcUrl: config.grpcUrl,
      grpcToken: config.grpcToken,
      commitment: config.commitment,
      concurrency: config.ingestConcurrency,
      pollIntervalMs: demo ? Math.min(config.pollIntervalMs, config.localnetSlotMs) : config.pollIntervalMs,
      fetchAccounts: config.ingestFetchAccounts,
      logger,
    });
    closers.push(() => poller!.close());
    // The cluster tip, watched apart from the poller, so a stalled ingester shows as lagging (getIndexerHealth, /ready).
    tips = createTipWatcher(url, { commitment: config.commitment, logger });
    closers.push(() => tips!.close());
    if (config.zkTreesFile) await loadTreeFile(db, config.zkTreesFile, 'SOLGATE_ZK_TREES');
    // Light trees the index does not know are discovered from the cluster's tree and queue accounts.
    ingester = createIngester(db, logger, {
      fetchAccounts: (keys) => fetchAccounts(url, keys, { commitment: config.commitment }),
      onWebhookEvents: () => deliveries?.wake(),
      onBlocksWritten: publishCommitted,
    });
    // Derive list-index rows left marked by an earlier run (or by a migration) without waiting for a new block.
    ingester.settle().catch((err) => logger.error({ err }, 'asset index: initial refresh failed'));
    const startSlot = demo ? demo.startSlot : (config.startSlot ?? (await getTipSlot(url)));
    // An index that begins after the cluster's first slot queues its Bubblegum trees for backfill and reads the ZK
    // Compression trees' history before its first live block (src/ingest/tree-backfill.ts, zk-history.ts).
    const zkClient = createRpcClient({ url, logger });
    closers.push(() => zkClient.close());
    const zk = { db, ingester, client: zkClient, commitment: config.commitment, concurrency: config.backfillConcurrency, logger };
    const beforeLive = config.coverage && config.treeHistory ? historyBeforeLive(zk) : undefined;
    // SOLGATE_DRIFT_ZK_REPAIR=rebuild: the ingester rebuilds the ZK Compression trees the drift detector confirms differ.
    zkRepair = config.driftZkRepair === 'rebuild' ? createZkRepairWork(zk) : undefined;
    // One ingester per PostgreSQL database: in standby (another process holds the lock) this process serves and
    // follows the committed blocks like an API-only one, and takes over from the checkpoint when the holder stops.
    const ing = ingester;
    const source = poller;
    ingestDone = runWhileLeader(
      {
        databaseUrl: db.kind === 'postgres' ? config.databaseUrl : undefined,
        signal: ctl.signal,
        logger,
        onStandby: () => void (standbyFeed ??= upstreamUrl ? startCommittedFeed({ db, url: upstreamUrl, commitment: config.commitment, demand, publish: publishCommitted, logger }) : null),
        onLead: async () => {
          const f = standbyFeed;
          standbyFeed = null;
          await f?.close();
        },
      },
      // A failed run is logged and retried from the checkpoint after a pause (1 s doubling to 30 s).
      (signal) => followWithRetries(() => ing.run(source, { startSlot, signal, beforeLive, exclusive: zkRepair }), { signal, logger, minMs: 1000, maxMs: 30_000 }).then(() => {}),
    );
  }

  // Pyth prices: the feed accounts read from the cluster every SOLGATE_PRICE_PYTH_POLL_MS (not on the demo chain,
  // which has no Pyth accounts) and written through the ingester's account path (docs/prices.md).
  let pyth: PythPoller | null = null;
  if (ingester && rpcUrl && !demo && config.pricePythPollMs > 0) {
    const url = rpcUrl;
    pyth = createPythPoller({
      accounts: [...feeds.values()].map((f) => f.account),
      fetchAccounts: (keys) => fetchAccounts(url, keys, { commitment: config.commitment }),
      ingester, intervalMs: config.pricePythPollMs, logger,
    });
    pyth.start();
  }

  // Coverage: an address the index has not seen since genesis is read from the cluster on its first request
  // (src/ingest/hydrate.ts); a read that fails is answered as partial within seconds, not after minutes of retries.
  // History before the index's origin is read back per address by a backfill worker (src/ingest/backfill.ts).
  // Without a cluster to read from (or with SOLGATE_COVERAGE=false) answers still say whether they are complete.
  let backfill: Backfiller | null = null;
  let replays: WebhookReplayer | null = null;
  let client: RpcClient | null = null;
  if (ingester && rpcUrl && config.coverage) {
    client = createRpcClient({ url: rpcUrl, maxRetries: 3, requestTimeoutMs: 15_000, backoffMaxMs: 2_000, logger });
    const history = createRpcClient({ url: rpcUrl, logger });
    closers.push(() => client!.close(), () => history.close());
    backfill = createBackfiller({
      db, ingester, client: history, commitment: config.commitment, concurrency: config.backfillConcurrency, logger, reclaimOnStart: db.kind === 'pglite',
    });
    backfill.start();
    // Webhook replays that reach before the stored events read the webhook's addresses from the cluster.
    replays = createWebhookReplayer({ db, ingester, client: history, commitment: config.commitment, concurrency: config.backfillConcurrency, logger });
    replays.start();
  }
  // The drift detector: samples of the index compared with the cluster at the same slot (src/ingest/drift.ts).
  if (ingester && rpcUrl && config.driftIntervalMs > 0) {
    const driftClient = createRpcClient({ url: rpcUrl, maxRetries: 3, logger });
    const drift = createDriftDetector({
      db, client: driftClient, ingester, commitment: config.commitment, sample: config.driftSample, intervalMs: config.driftIntervalMs, logger,
      zkRepair: config.driftZkRepair, onZkRepair: () => zkRepair?.wake(),
    });
    drift.start();
    closers.push(() => drift.stop(), () => driftClient.close());
  }
  // Partitions created ahead of ingestion, old ones dropped by the retention settings (src/ingest/retention.ts).
  const retention = ingester ? startRetention(db, config, logger) : null;
  if (retention) closers.push(() => retention.stop());
  const coverage = createCoverageService({
    db, ingester: ingester ?? undefined, client, commitment: config.commitment, logger, backfill: backfill ?? undefined, historyWaitMs: config.historyWaitMs,
  });
  coverage.start();

  // Off-chain metadata documents (json_uri) queued by the list-index refresher and by /v0/token-metadata.
  const offchain = createOffchainFetcher({ db, logger, config: offchainConfig(config) });
  offchain.start();
  closers.push(() => offchain.stop());

  // Sender (/fast, /ping) when an upstream is configured (SOLGATE_SENDER_RPC_URLS, else the indexed cluster).
  const sender = senderDeps(config, { db, logger, fallbackRpcUrl: rpcUrl });
  if (sender) closers.push(() => sender.router.close());
  // An API-only process (PostgreSQL, another process ingests) follows the committed blocks from the cluster.
  const feed = !ingester && upstreamUrl && db.kind === 'postgres'
    ? startCommittedFeed({ db, url: upstreamUrl, commitment: config.commitment, demand, publish: publishCommitted, logger })
    : null;
  if (feed) closers.push(() => feed.close());
  const committed = ingester !== null || feed !== null;
  const wsUrl = config.rpcUpstreamWsUrl ?? (upstreamUrl ? pubsubUrlOf(upstreamUrl) : undefined);
  const app = await buildApp({
    upstreamRpc: upstreamRpc ?? undefined,
    pubsub: wsUrl
      ? {
        upstream: createUpstreamSocketFactory(wsUrl), maxConnectionsPerKey: config.wsMaxConnectionsPerKey, maxSubscriptions: config.wsMaxSubscriptions,
        transactions: committed ? transactionHub : undefined,
        accounts: committed ? accountHub ?? undefined : undefined,
      }
      : undefined,
    sender: sender ?? undefined,
    db,
    readDb,
    minContextWaitMs: config.minContextWaitMs,
    logger,
    // Prices: the registry file's overrides, then Pyth, then swap-derived prices (src/pricing/chain-prices.ts).
    tokens: createChainPriceRegistry({
      db,
      overrides: createFileTokenRegistry(config.tokensFile, { overlay }),
      feeds,
      settings: { pythMaxAgeSeconds: config.pricePythMaxAgeSeconds, swapMaxAgeSlots: config.priceSwapMaxAgeSlots },
    }),
    explorerTxUrl: config.explorerTxUrl,
    indexCommitment: config.commitment,
    fetchAccounts: rpcUrl ? (keys) => fetchAccounts(rpcUrl!, keys, { commitment: config.commitment }) : undefined,
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    keyCacheMs: config.keyCacheMs,
    ingestStatus: poller ? () => ({ lastSlot: ingester?.stats.lastSlot ?? null, tip: maxOrNull(tips?.tip ?? null, poller!.tip()) }) : undefined,
    readyMaxLagSlots: config.readyMaxLagSlots,
    offchain,
    // ZK Compression: the validity-proof prover, full transactions for getTransactionWithCompressionInfo, health lag.
    zk: {
      prover: config.proverUrl ? createProverClient(config.proverUrl) : undefined,
      getTransaction: rpcUrl ? createRpcTransactionFetcher(rpcUrl, { commitment: config.commitment }) : undefined,
      maxLagSlots: config.zkMaxLagSlots,
    },
    webhooks: { allowHttp: config.webhooksAllowHttp, allowPrivate: config.webhooksAllowPrivate, planLimits: accounts.webhookLimits },
    meter: accounts.meter,
    // Admin API and dashboard with SOLGATE_ADMIN_TOKEN (the demo makes a token for its run when it is unset); the
    // CLI's token lets `solgate keys|identities` act through this process when it owns an embedded database.
    admin: { token: adminToken, cliToken, plans: accounts.plans },
    ensureCovered: coverage.ensureCovered,
    trackAddresses: coverage.track,
    webhookReplays: replays ?? undefined,
    trackKeys: coverage.trackKeys,
    indexCoverage: coverage.indexCoverage,
  });
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    throw listenError(err, config.port, config.host);
  }
  logger.info({ address, ingest: rpcUrl ? redactUrl(rpcUrl) : 'off', database: db.kind, readReplica: !!readDb }, 'solgate: listening');
  // Commands run while this process owns the embedded directory find its admin API here (loopback).
  db.lock?.update({ admin: { url: `${loopbackUrl(app.server.address(), config.host)}/admin/api`, token: cliToken } });

  if (demo) await printDemoBanner(rt, demo, config.port, adminToken);

  signal.setUnsaved(demo ? 'the demo chain (the next start begins a new chain after the indexed slots)' : null);
  await signal.stopped;
  logger.info('solgate: shutting down');
  // The demo chain stops producing, the ingester indexes its last slot (bounded wait), then the chain is saved.
  const demoSettled = demo && ingester ? await demo.settle({ indexedSlot: () => getCheckpoint(db) }).catch((err) => {
    logger.error({ err }, 'localnet: settling the demo chain failed');
    return false;
  }) : false;
  // Shutdown order: stop accepting connections and let the requests in flight finish (idle keep-alive connections
  // close at once; a request still running after SHUTDOWN_DRAIN_MS has its connection closed), then ingestion, then
  // the webhook worker (its deliveries in flight finish), then the rest.
  const drain = setTimeout(() => {
    logger.warn(`solgate: requests still in flight after ${SHUTDOWN_DRAIN_MS} ms; closing their connections`);
    app.server.closeAllConnections();
  }, SHUTDOWN_DRAIN_MS);
  await app.close();
  clearTimeout(drain);
  ctl.abort();
  await pyth?.stop();
  await coverage.stop();
  await backfill?.stop();
  await replays?.stop();
  await ingestDone;
  // Deliveries in flight finish and are recorded; the rest stay queued for the next start or another worker.
  await deliveries?.stop();
  await accounts.close();
  if (demo) {
    await demo.stop().catch(() => {});
    if (demoSettled) {
      try {
        demo.save();
      } catch (err) {
        logger.error({ err }, 'localnet: saving the demo chain failed; the next start begins a fresh chain');
      }
    } else logger.warn('localnet: the demo chain was not saved (its last slots were not indexed in time); the next start begins a fresh chain');
  }
  signal.setUnsaved(null);
  for (const c of closers.reverse()) await c().catch(() => {});
  await db.close();
  return 0;
}
