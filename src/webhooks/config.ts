/** Delivery worker settings from the configuration (SOLGATE_WEBHOOK_* and SOLGATE_WEBHOOKS_ALLOW_PRIVATE). */
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { Db } from '../store/db.js';
import type { DeliveryWorkerOptions } from './worker.js';

export function deliveryOptions(config: Config, db: Db, logger?: Logger): DeliveryWorkerOptions {
  return {
    db,
    logger,
    concurrency: config.webhookConcurrency,
    timeoutMs: config.webhookTimeoutMs,
    pipelining: config.webhookPipelining,
    retry: { baseMs: config.webhookRetryBaseMs, maxMs: config.webhookRetryMaxMs, windowMs: config.webhookRetryWindowSeconds * 1000 },
    deactivation: {
      failureRate: config.webhookDeactivateFailureRate,
      windowMs: config.webhookDeactivateWindowSeconds * 1000,
      minAttempts: config.webhookDeactivateMinAttempts,
    },
    ssrf: { allowPrivate: config.webhooksAllowPrivate },
    pollMs: config.webhookPollMs,
    retentionMs: config.webhookRetentionDays * 86_400_000,
    explorerTxUrl: config.explorerTxUrl,
  };
}
