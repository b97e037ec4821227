/**
 * Backlog sizes for the Prometheus scrape (`GET /metrics`): webhook events waiting for delivery, addresses waiting
 * for the DAS refresher, off-chain metadata documents due for a fetch, addresses whose history backfill is not finished, webhook replays reading the cluster. Each count stops at `cap + 1` rows (a
 * `LIMIT` inside the count, read through the tables' indexes), so a huge backlog costs no more than a bounded
 * scan: a value of `cap + 1` means "more than `cap`".
 */
import type { Queryable } from './db.js';

/** Largest backlog counted exactly; a count of QUEUE_COUNT_CAP + 1 means "more than QUEUE_COUNT_CAP". */
export const QUEUE_COUNT_CAP = 100_000;

export interface QueueDepths {
  /** webhook_events rows in state 'pending' (queued or waiting for a retry). */
  webhookEventsPending: number;
  /** das_dirty rows (addresses whose DAS rows the refresher has not derived again yet). */
  dasDirty: number;
  /** offchain_metadata rows whose next fetch (first fetch, retry or refresh) is due now. */
  offchainDue: number;
  /** backfill_addresses rows queued or running (history backfills not finished). */
  backfillPending: number;
  /** webhook_replays rows queued or running (replays that read the cluster, not finished). */
  webhookReplaysPending: number;
}

/** The backlog counts in one statement, each capped at `cap + 1`. */
export async function queueDepths(q: Queryable, cap: number = QUEUE_COUNT_CAP): Promise<QueueDepths> {
  const { rows } = await q.query<{ webhook: number; das: number; offchain: number; backfill: number; replays: number }>(
    `SELECT (SELECT count(*) FROM (SELECT 1 FROM webhook_events WHERE state = 'pending' LIMIT $1) s)::int AS webhook,
            (SELECT count(*) FROM (SELECT 1 FROM das_dirty LIMIT $1) s)::int AS das,
            (SELECT count(*) FROM (SELECT 1 FROM offchain_metadata WHERE next_attempt_at <= now() LIMIT $1) s)::int AS offchain,
            (SELECT count(*) FROM (SELECT 1 FROM backfill_addresses WHERE status IN ('pending', 'running') LIMIT $1) s)::int AS backfill,
            (SELECT count(*) FROM (SELECT 1 FROM webhook_replays WHERE status IN ('pending', 'running') LIMIT $1) s)::int AS replays`,
    [cap + 1],
  );
  const r = rows[0];
  return {
    webhookEventsPending: Number(r.webhook), dasDirty: Number(r.das), offchainDue: Number(r.offchain), backfillPending: Number(r.backfill),
    webhookReplaysPending: Number(r.replays),
  };
}
