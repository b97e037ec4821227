/**
 * `solgate serve [--demo]`: the HTTP gateway, plus in-process ingestion from SOLANA_RPC_URL, or (with --demo and
 * no cluster URL) from the built-in localnet running a demo workload. Shuts down gracefully on SIGINT/SIGTERM.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { openRuntime, seedIdentities, type Runtime } from './runtime.js';
import { buildApp } from '../api/app.js';
import { createFileTokenRegistry, type TokenInfo } from '../pricing/token-registry.js';
import { createIngester, type Ingester } from '../ingest/pipeline.js';
import { loadTreeFile } from './light-trees.js';
import { createTipWatcher, type TipWatcher } from '../sources/tip-watcher.js';
import { createRpcPoller, fetchAccounts, type RpcPoller } from '../sources/rpc-poller.js';
import { getCheckpoint } from '../store/chain.js';
import { createApiKey } from '../store/keys.js';
import { DEMO_SNAPSHOT_DIR, startDemoChain, type DemoChain } from './demo-chain.js';
import { getTipSlot } from './ingest.js';
import { upsertIdentities } from '../store/identities.js';
import { createOffchainFetcher, offchainConfig } from '../offchain/fetcher.js';
import { createProverClient } from '../api/zk/prover.js';
import { createRpcTransactionFetcher } from '../api/zk/transaction-fetcher.js';
import { startDeliveryWorker, type DeliveryWorker } from '../webhooks/worker.js';
import { deliveryOptions } from '../webhooks/config.js';
import { senderDeps } from '../sender/config.js';
import { openAccounts } from '../accounts/runtime.js';
import { DEFAULT_TIP_ACCOUNTS } from '../sender/validate.js';

/** How long shutdown waits for HTTP requests in flight before closing their connections. */
const SHUTDOWN_DRAIN_MS = 30_000;

const maxOrNull = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

export async function runServe(opts: { demo: boolean }): Promise<number> {
  const rt = await openRuntime();
  await seedIdentities(rt);
  const { config, logger, db } = rt;
  const overlay = new Map<string, TokenInfo>();
  const ctl = new AbortController();
  const closers: (() => Promise<void>)[] = [];

  let rpcUrl = config.rpcUrl;
  let demo: DemoChain | null = null;
  if (!rpcUrl && opts.demo) {
    // The chain saved at the last graceful shutdown is restored when it ends at the checkpoint; otherwise a fresh
    // chain starts after the checkpoint (indexed slots never rewind), with a warning that chain state restarted.
    // The snapshot lives in SOLGATE_DATA_DIR, also with DATABASE_URL (the checkpoint check ties it to the database).
    const cp = await getCheckpoint(db);
    demo = await startDemoChain({
      port: config.localnetPort, slotMs: config.localnetSlotMs, startSlot: cp === null ? 0 : cp + 1, logger, light: config.localnetLight,
      snapshotDir: join(config.dataDir, DEMO_SNAPSHOT_DIR), checkpoint: cp,
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

  let ingester: Ingester | null = null;
  let poller: RpcPoller | null = null;
  let tips: TipWatcher | null = null;
  let ingestDone: Promise<void> = Promise.resolve();
  if (rpcUrl) {
    const url = rpcUrl;
    poller = createRpcPoller({
      url,
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
    });
    // Derive list-index rows left marked by an earlier run (or by a migration) without waiting for a new block.
    ingester.settle().catch((err) => logger.error({ err }, 'asset index: initial refresh failed'));
    const startSlot = demo ? demo.startSlot : (config.startSlot ?? (await getTipSlot(url)));
    ingestDone = followForever(ingester, poller, { startSlot, signal: ctl.signal, logger });
  }

  // Off-chain metadata documents (json_uri) queued by the list-index refresher and by /v0/token-metadata.
  const offchain = createOffchainFetcher({ db, logger, config: offchainConfig(config) });
  offchain.start();
  closers.push(() => offchain.stop());

  // Sender (/fast, /ping) when an upstream is configured (SOLGATE_SENDER_RPC_URLS, else the indexed cluster).
  const sender = senderDeps(config, { db, logger, fallbackRpcUrl: rpcUrl });
  if (sender) closers.push(() => sender.router.close());
  const app = await buildApp({
    sender: sender ?? undefined,
    db,
    logger,
    tokens: createFileTokenRegistry(config.tokensFile, { overlay }),
    explorerTxUrl: config.explorerTxUrl,
    fetchAccounts: rpcUrl ? (keys) => fetchAccounts(rpcUrl!, keys, { commitment: config.commitment }) : undefined,
    trustProxy: config.trustProxy,
    ingestStatus: poller ? () => ({ lastSlot: ingester?.stats.lastSlot ?? null, tip: maxOrNull(tips?.tip ?? null, poller!.stats.tip) }) : undefined,
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
    // Admin API and dashboard when SOLGATE_ADMIN_TOKEN is set.
    admin: config.adminToken ? { token: config.adminToken, plans: accounts.plans } : undefined,
  });
  const address = await app.listen({ port: config.port, host: config.host });
  logger.info({ address, ingest: rpcUrl ?? 'off', database: db.kind }, 'solgate: listening');

  if (demo) await printDemoBanner(rt, demo, config.port);

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
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
    }
  }
  for (const c of closers.reverse()) await c().catch(() => {});
  await db.close();
  return 0;
}

/** Airdrops 1 SOL to each tip account that has no lamports on the demo chain. */
async function fundTipAccounts(url: string, accounts: readonly string[]): Promise<void> {
  const call = async (method: string, params: unknown[]) => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await r.json()) as { result?: { value?: number }; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  for (const a of accounts) if (!(await call('getBalance', [a]))?.value) await call('requestAirdrop', [a, 1_000_000_000]);
}

/** Runs ingestion until aborted; a failure is logged and retried from the checkpoint after a pause. */
async function followForever(
  ingester: Ingester,
  poller: RpcPoller,
  o: { startSlot?: number; signal: AbortSignal; logger: Logger },
): Promise<void> {
  let pause = 1000;
  while (!o.signal.aborted) {
    try {
      await ingester.run(poller, { startSlot: o.startSlot, signal: o.signal });
      pause = 1000;
    } catch (e) {
      if (o.signal.aborted) break;
      o.logger.error({ err: e }, `ingest: failed; retrying from the checkpoint in ${pause} ms`);
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 30_000);
    }
  }
}

async function printDemoBanner(rt: Runtime, demo: DemoChain, port: number): Promise<void> {
  const { key } = await createApiKey(rt.db, { name: 'demo' });
  const base = `http://localhost:${port}`;
  const w = demo.wallets[0];
  const lines = [
    '',
    '  solgate is running on the embedded default (PGlite + built-in localnet with demo activity).',
    `  Localnet JSON-RPC: ${demo.url}`,
    `  API key (shown once): ${key}`,
    '',
    '  Try:',
    `    curl -H "X-Api-Key: ${key}" ${base}/v1/wallet/${w}/balances`,
    `    curl -H "X-Api-Key: ${key}" "${base}/v1/wallet/${w}/history?limit=5"`,
    `    curl -H "X-Api-Key: ${key}" "${base}/v1/wallet/${w}/transfers?limit=5"`,
    `    curl -H "X-Api-Key: ${key}" ${base}/v1/wallet/${w}/funded-by`,
    `    curl -H "X-Api-Key: ${key}" ${base}/v1/wallet/${demo.faucet}/identity`,
    ...(demo.light
      ? [
        '',
        '  ZK Compression (Photon JSON-RPC at the same URL; every demo wallet holds compressed SOL and tokens):',
        `    curl -H "X-Api-Key: ${key}" -H 'content-type: application/json' ${base}/ \\`,
        `         -d '{"jsonrpc":"2.0","id":1,"method":"getCompressedTokenBalancesByOwnerV2","params":{"owner":"${w}"}}'`,
      ]
      : []),
    '',
    `  Demo wallets: ${demo.wallets.join(' ')}`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
