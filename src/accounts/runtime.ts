/**
 * The accounts pieces a process composes from the configuration: the plan table, the usage recorder, the Redis
 * client when REDIS_URL is set, and the meter over them.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { Db } from '../store/db.js';
import { createMeter, type Meter } from './meter.js';
import { loadPlanTable, type PlanTable } from './plans.js';
import { createUsageRecorder, type UsageRecorder } from './usage.js';

export interface Accounts {
  plans: PlanTable;
  usage: UsageRecorder;
  meter: Meter;
  redis: Redis | null;
  /** Webhooks per key by plan (the management API's limit). */
  webhookLimits: Record<string, number>;
  close(): Promise<void>;
}

export function openAccounts(config: Config, db: Db, logger?: Logger): Accounts {
  const plans = loadPlanTable(config.plansFile);
  const usage = createUsageRecorder(db, { flushMs: config.usageFlushMs, logger });
  let redis: Redis | null = null;
  if (config.redisUrl) {
    redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    redis.on('error', (err) => logger?.warn({ err: err.message }, 'redis: unreachable; limits fall back to this process'));
  }
  const meter = createMeter({ db, plans, usage, redis: redis ?? undefined });
  return {
    plans,
    usage,
    meter,
    redis,
    webhookLimits: Object.fromEntries(Object.entries(plans.plans).map(([name, p]) => [name, p.maxWebhooks])),
    async close() {
      await usage.close();
      if (redis) await redis.quit().catch(() => redis!.disconnect());
    },
  };
}
