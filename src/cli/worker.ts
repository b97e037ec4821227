/**
 * `solgate worker`: a webhook delivery process (no HTTP server, no ingestion). Any number may run against one
 * database beside `serve`/`ingest`; they share the outbox through per-webhook leases. Stops gracefully on
 * SIGINT/SIGTERM (deliveries in flight finish and are recorded).
 */
import { openRuntime } from './runtime.js';
import { startDeliveryWorker } from '../webhooks/worker.js';
import { deliveryOptions } from '../webhooks/config.js';
import { UsageError } from './usage-error.js';
import { createUsageRecorder } from '../accounts/usage.js';
import { loadPlanTable } from '../accounts/plans.js';

export async function runWorker(): Promise<number> {
  const rt = await openRuntime();
  const { config, logger, db } = rt;
  if (config.webhookConcurrency < 1) {
    await db.close();
    throw new UsageError('SOLGATE_WEBHOOK_CONCURRENCY must be at least 1 for `solgate worker`');
  }
  // Delivered events cost credits (counted here, flushed to the usage table).
  const usage = createUsageRecorder(db, { flushMs: config.usageFlushMs, logger });
  const plans = loadPlanTable(config.plansFile);
  const worker = startDeliveryWorker({ ...deliveryOptions(config, db, logger), onFirstAttempt: (keyId) => usage.record(keyId, 'webhook.event', plans.credits.webhookEvent) });
  logger.info({ worker: worker.id, concurrency: config.webhookConcurrency, database: db.kind }, 'solgate worker: delivering webhooks');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  logger.info('solgate worker: shutting down');
  await worker.stop();
  await usage.close();
  await db.close();
  return 0;
}
