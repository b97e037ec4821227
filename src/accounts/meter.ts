/**
 * The meter: every keyed API call is checked and charged here, after authentication.
 *  - **Rate limit** per (key, bucket) from the key's plan: `perSecond` requests per second plus a burst allowance
 *    (`burstFactor × perSecond` extra requests per `burstWindowSeconds`), with rate-limiter-flexible — counters in
 *    Redis when REDIS_URL is set (shared by every API process), in memory otherwise. Every answer carries
 *    `x-ratelimit-limit`, `x-ratelimit-remaining` and `x-ratelimit-reset` (Unix seconds); over the limit → 429
 *    with `Retry-After`.
 *  - **Monthly quota**: credits used this UTC month (from usage_daily once per key and month, then counted in
 *    Redis or memory) + the call's cost above the plan's quota → 429 "max usage reached".
 *  - **Features**: an endpoint the plan does not include → 403.
 *  - **Usage**: the call's credits are counted by the usage recorder (flushed to PostgreSQL in the background).
 * Errors are SolgateErrors; each interface renders them in its own format.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { SolgateError } from '../core/errors.js';
import type { Db } from '../store/db.js';
import { creditsSince } from '../store/usage.js';
import { planOf, type Bucket, type CostCategory, type Feature, type Plan, type PlanTable } from './plans.js';
import type { UsageRecorder } from './usage.js';

export interface Call {
  bucket: Bucket;
  /** Credit category; null = free (still rate-limited and counted). */
  cost: CostCategory | null;
  /** Usage label, e.g. `getAsset` or `wallet.balances`. */
  method: string;
  feature?: Feature;
}

export interface Meter {
  readonly plans: PlanTable;
  /** Checks and charges one call of the authenticated key; sets the rate-limit headers; throws when refused. */
  charge(req: FastifyRequest, reply: FastifyReply | null, call: Call): Promise<void>;
  /** Counts usage of a key outside a request (webhook events). */
  chargeUsage(keyId: string, cost: CostCategory, method: string): void;
}

export interface MeterOptions {
  db: Db;
  plans: PlanTable;
  usage: UsageRecorder;
  /** Shared counters; absent = in-process memory. */
  redis?: Redis;
  now?: () => Date;
}

const FEATURE_MESSAGES: Record<Feature, string> = {
  walletIdentity: 'This endpoint requires a paid plan',
};

const monthOf = (d: Date) => d.toISOString().slice(0, 7);

export function createMeter(o: MeterOptions): Meter {
  const now = o.now ?? (() => new Date());
  const limiters = new Map<string, RateLimiterAbstract>();

  function limiterFor(plan: Plan, bucket: Bucket): RateLimiterAbstract {
    const id = `${plan.name}:${bucket}`;
    let l = limiters.get(id);
    if (l) return l;
    const rate = plan.perSecond[bucket];
    const burst = Math.floor(rate * plan.burstFactor);
    // With Redis, an in-memory limiter takes over while Redis is unreachable (limits then hold per process).
    const mk = (points: number, duration: number, prefix: string): RateLimiterAbstract =>
      o.redis
        ? new RateLimiterRedis({
            storeClient: o.redis, points, duration, keyPrefix: `solgate:rl:${prefix}:${id}`,
            insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix: `${prefix}:${id}` }),
          })
        : new RateLimiterMemory({ points, duration, keyPrefix: `${prefix}:${id}` });
    const primary = mk(Math.max(rate, 1), 1, 's');
    l = burst > 0 ? (new BurstyRateLimiter(primary as never, mk(burst, plan.burstWindowSeconds, 'b') as never) as unknown as RateLimiterAbstract) : primary;
    limiters.set(id, l);
    return l;
  }

  // Month-to-date credits per key: memory, or a Redis counter seeded once from PostgreSQL.
  const mem = new Map<string, { month: string; used: number; seeded: Promise<void> | null }>();
  const redisQuota = !!o.redis;
  async function quotaUsed(keyId: string, cost: number): Promise<number> {
    const month = monthOf(now());
    const fromDay = `${month}-01`;
    if (o.redis && redisQuota) {
      const k = `solgate:credits:${keyId}:${month}`;
      try {
        if (!(await o.redis.exists(k))) {
          const stored = await creditsSince(o.db, keyId, fromDay);
          await o.redis.set(k, String(stored), 'EX', 40 * 86_400, 'NX');
        }
        return Number(await o.redis.incrby(k, cost)) - cost;
      } catch {
        // Redis unreachable: count in this process (seeded from PostgreSQL) rather than fail the request.
      }
    }
    let e = mem.get(keyId);
    if (!e || e.month !== month) {
      const fresh: { month: string; used: number; seeded: Promise<void> | null } = { month, used: 0, seeded: null };
      fresh.seeded = creditsSince(o.db, keyId, fromDay).then((n) => {
        fresh.used += n;
        fresh.seeded = null;
      });
      mem.set(keyId, fresh);
      e = fresh;
    }
    if (e.seeded) await e.seeded;
    const before = e.used;
    e.used += cost;
    return before;
  }

  async function releaseQuota(keyId: string, cost: number): Promise<void> {
    const e = mem.get(keyId);
    if (e) e.used -= cost;
    else if (o.redis && redisQuota) await o.redis.decrby(`solgate:credits:${keyId}:${monthOf(now())}`, cost).catch(() => {});
  }

  function headers(reply: FastifyReply | null, limit: number, remaining: number, msBeforeNext: number) {
    if (!reply) return;
    reply.header('x-ratelimit-limit', String(limit));
    reply.header('x-ratelimit-remaining', String(Math.max(0, remaining)));
    reply.header('x-ratelimit-reset', String(Math.ceil((Date.now() + msBeforeNext) / 1000)));
  }

  return {
    plans: o.plans,
    async charge(req, reply, call) {
      const key = req.apiKey;
      if (!key) throw new SolgateError('UNAUTHORIZED', 'API key required');
      const plan = planOf(o.plans, key.plan);
      if (call.feature && !plan.features.includes(call.feature))
        throw new SolgateError('FORBIDDEN', FEATURE_MESSAGES[call.feature], { details: `the ${plan.name} plan does not include this endpoint` });
      const rate = plan.perSecond[call.bucket];
      if (rate <= 0) throw new SolgateError('FORBIDDEN', 'This endpoint is not available on your plan', { details: `the ${plan.name} plan allows no ${call.bucket} requests` });
      try {
        const r = await limiterFor(plan, call.bucket).consume(key.id, 1);
        headers(reply, rate, r.remainingPoints, r.msBeforeNext);
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        headers(reply, rate, 0, e.msBeforeNext);
        throw new SolgateError('RATE_LIMITED', 'rate limited', {
          details: `the ${plan.name} plan allows ${rate} ${call.bucket} requests per second (burst ${Math.floor(rate * plan.burstFactor)} per ${plan.burstWindowSeconds} s)`,
          retryAfter: Math.max(1, Math.ceil(e.msBeforeNext / 1000)),
        });
      }
      const cost = call.cost === null ? 0 : o.plans.credits[call.cost];
      if (plan.monthlyCredits !== null && cost > 0) {
        const used = await quotaUsed(key.id, cost);
        if (used + cost > plan.monthlyCredits) {
          // Not charged: give the reservation back.
          await releaseQuota(key.id, cost);
          const next = new Date(Date.UTC(now().getUTCFullYear(), now().getUTCMonth() + 1, 1));
          throw new SolgateError('RATE_LIMITED', 'max usage reached', {
            details: `the ${plan.name} plan's ${plan.monthlyCredits} monthly credits are used up; they renew on ${next.toISOString().slice(0, 10)}`,
            retryAfter: Math.max(1, Math.ceil((next.getTime() - Date.now()) / 1000)),
          });
        }
      }
      o.usage.record(key.id, call.method, cost);
    },
    chargeUsage(keyId, cost, method) {
      o.usage.record(keyId, method, o.plans.credits[cost]);
    },
  };
}
