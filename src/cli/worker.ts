/**
 * `solgate worker`: a webhook delivery process (no HTTP server, no ingestion). Any number may run against one
 * database beside `serve`/`ingest`; they share the outbox through per-webhook leases. Stops gracefully on
 * SIGINT/SIGTERM (deliveries in flight finish and are recorded).
 */
import { openRuntime } from './runtime.js';
import { startDeliveryWorker } from '../webhooks/worker.js';
import { deliveryOptions } from '../webhooks/config.js';
import { UsageError } from './usage-error.js';

export async function runWorker(): Promise<number> {
  const rt = await openRuntime();
  const { config, logger, db } = rt;
  if (config.webhookConcurrency < 1) {
    await db.close();
    throw new UsageError('SOLGATE_WEBHOOK_CONCURRENCY must be at least 1 for `solgate worker`');
  }
  const worker = startDeliveryWorker(deliveryOptions(config, db, logger));
  logger.info({ worker: worker.id, concurrency: config.webhookConcurrency, database: db.kind }, 'solgate worker: delivering webhooks');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  logger.info('solgate worker: shutting down');
  await worker.stop();
  await db.close();
  return 0;
}
