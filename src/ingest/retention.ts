/**
 * Partition maintenance and retention of the append-only tables (docs/storage.md), a background job of every
 * process that ingests (`serve` with ingestion, `ingest`). Each round, per table family (`src/store/partitions.ts`):
 *
 *  - creates the next partitions ahead of what is being written: `history` (transactions, address_slots,
 *    address_typed, wallet_transfers) by slot, `partitionSlots` wide, up to two partitions past the checkpoint; `webhook_attempts`
 *    by UTC day, two days ahead; `usage` (usage_daily) in 30-day ranges, one ahead;
 *  - with a retention set, drops the partitions wholly older than the horizon (the checkpoint minus
 *    `historySlots`; today minus `webhookAttemptDays` / `usageDays`) and deletes what the DEFAULT partitions hold
 *    below it; the history answers then say they are partial from the horizon on (`basis=retention`).
 *
 * Every change runs in its own short transaction under a `lock_timeout` (`lockTimeoutMs`, 200 ms): one that cannot
 * get its lock in time gives up and is tried again next round, so ingestion and reads are never held up longer (and
 * in a lock cycle with ingestion it is the change that gives up: 200 ms is below PostgreSQL's deadlock_timeout).
 * Rounds run every `intervalMs`; a failed round is logged and counted, never fatal.
 */
import type { Logger } from 'pino';
import { partitionLockTimeouts, partitionsCreated, partitionsDropped, retentionRowsDeleted } from '../core/metrics.js';
import { createWorkLoop } from '../core/work-loop.js';
import { getCheckpoint } from '../store/chain.js';
import { getIndexOrigin } from '../store/coverage.js';
import type { Db } from '../store/db.js';
import { createPartitionsAhead, dayNumber, dropPartitionsBelow, family, type FamilyName } from '../store/partitions.js';

export interface RetentionOptions {
  db: Db;
  logger?: Pick<Logger, 'warn' | 'info' | 'debug'>;
  /** Pause between rounds (default 60 s). */
  intervalMs?: number;
  /** Width of a history partition in slots (default 432,000: one epoch, about two days of mainnet). */
  partitionSlots?: number;
  /** History kept, in slots behind the checkpoint; 0 = forever. */
  historySlots: number;
  /** Webhook delivery attempts kept, in days; 0 = forever. */
  webhookAttemptDays: number;
  /** Usage rows kept, in days; 0 = forever. */
  usageDays: number;
  /** Lock timeout of each change (default 200 ms; keep it below PostgreSQL's deadlock_timeout, 1 s). */
  lockTimeoutMs?: number;

  /** Test seam: the wall clock (ms). */
  now?: () => number;
}

export interface RetentionRound {
  created: Partial<Record<FamilyName, number>>;
  dropped: Partial<Record<FamilyName, number>>;
  rowsDeleted: Partial<Record<FamilyName, number>>;
  /** Families whose step gave up on a lock timeout this round. */
  lockTimeouts: FamilyName[];
}

export interface RetentionJob {
  runOnce(): Promise<RetentionRound>;
  start(): void;
  stop(): Promise<void>;
}

export const DEFAULT_PARTITION_SLOTS = 432_000;
const USAGE_WIDTH_DAYS = 30;
/** Lock not available (lock_timeout), deadlock victim: tried again next round. */
const RETRIED = new Set(['55P03', '40P01']);

export function createRetentionJob(o: RetentionOptions): RetentionJob {
  const lockTimeoutMs = o.lockTimeoutMs ?? 200;
  const clock = o.now ?? Date.now;

  async function step(round: RetentionRound, name: FamilyName, now: number, width: number, ahead: number, keep: number, lockedMargin: number): Promise<void> {
    const f = family(name);
    try {
      const created = await createPartitionsAhead(o.db, f, { now, width, ahead, lockTimeoutMs, lockedMargin });
      if (created) {
        round.created[name] = created;
        partitionsCreated.inc({ family: name }, created);
      }
      if (keep > 0) {
        const r = await dropPartitionsBelow(o.db, f, now - keep, lockTimeoutMs);
        if (r.dropped) {
          round.dropped[name] = r.dropped;
          partitionsDropped.inc({ family: name }, r.dropped);
          o.logger?.info({ family: name, partitions: r.dropped, horizon: now - keep }, 'retention: dropped partitions older than the horizon');
        }
        if (r.rowsDeleted) {
          round.rowsDeleted[name] = r.rowsDeleted;
          retentionRowsDeleted.inc({ family: name }, r.rowsDeleted);
        }
      }
    } catch (e) {
      if (!RETRIED.has((e as { code?: string } | null)?.code ?? '')) throw e;
      round.lockTimeouts.push(name);
      partitionLockTimeouts.inc({ family: name });
      o.logger?.debug({ family: name }, 'retention: a lock was not granted in time; trying again next round');
    }
  }

  async function runOnce(): Promise<RetentionRound> {
    const round: RetentionRound = { created: {}, dropped: {}, rowsDeleted: {}, lockTimeouts: [] };
    // Before the first block is written, the slot ingestion starts from (recorded first): its partitions come first.
    const slot = (await getCheckpoint(o.db)) ?? (await getIndexOrigin(o.db));
    // A range within 2000 slots (≈13 minutes of mainnet; more than a catch-up batch) of the checkpoint, or starting
    // tomorrow at the latest, may be written while it is attached: attached with the tables locked.
    if (slot !== null) await step(round, 'history', slot, o.partitionSlots ?? DEFAULT_PARTITION_SLOTS, 2, o.historySlots, 2000);
    const today = dayNumber(clock());
    await step(round, 'webhook_attempts', today, 1, 2, o.webhookAttemptDays, 1);
    await step(round, 'usage', today, USAGE_WIDTH_DAYS, 1, o.usageDays, 1);
    return round;
  }

  const loop = createWorkLoop(async () => {
    try {
      await runOnce();
    } catch (e) {
      o.logger?.warn({ err: e }, 'retention: partition maintenance round failed');
    }
    return false;
  }, { idleMs: o.intervalMs ?? 60_000 });

  return { runOnce, start: () => loop.start(), stop: () => loop.stop() };
}

/** The settings the job reads (a subset of the configuration, `src/config`). */
export interface RetentionSettings {
  partitionIntervalMs: number;
  partitionSlots: number;
  retentionHistorySlots: number;
  retentionUsageDays: number;
  webhookRetentionDays: number;
}

/** The job as the settings configure it, started; null with SOLGATE_PARTITION_INTERVAL_MS=0. */
export function startRetention(db: Db, s: RetentionSettings, logger?: RetentionOptions['logger']): RetentionJob | null {
  if (s.partitionIntervalMs <= 0) return null;
  const job = createRetentionJob({
    db, logger, intervalMs: s.partitionIntervalMs, partitionSlots: s.partitionSlots,
    historySlots: s.retentionHistorySlots, webhookAttemptDays: s.webhookRetentionDays, usageDays: s.retentionUsageDays,
  });
  job.start();
  return job;
}
