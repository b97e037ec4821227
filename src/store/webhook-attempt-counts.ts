/**
 * Table family "webhook attempt counts" (migration 051): per webhook and second, the attempts recorded and how many
 * failed. The statements that record attempts (`recordAttempts`, `recordAttempt` in webhook-events.ts) add their
 * chunk's counts in the same statement ({@link countAttemptsCte}); the failure rate behind auto-deactivation
 * (`failureStats`) sums the seconds of its window — at most one row per second, however many attempts they hold.
 * Rows older than the deactivation window are never read; retention (`pruneAttemptCounts`) removes them.
 */
import type { Queryable } from './db.js';

/**
 * A data-modifying CTE (to follow the others of a recording statement) that adds the attempts of `rows` — a CTE with
 * a boolean column `ok`, one row per recorded attempt — to the current second's counts of webhook `webhook` (an SQL
 * expression). Nothing is written when no attempt was recorded (the lease was lost).
 */
export function countAttemptsCte(rows: string, webhook: string): string {
  return `counted AS (
       INSERT INTO webhook_attempt_counts AS c (webhook_id, second, attempts, failures)
       SELECT ${webhook}, date_trunc('second', clock_timestamp()), count(*), count(*) FILTER (WHERE NOT ok) FROM ${rows} HAVING count(*) > 0
       ON CONFLICT (webhook_id, second) DO UPDATE SET attempts = c.attempts + EXCLUDED.attempts, failures = c.failures + EXCLUDED.failures
     )`;
}

/**
 * Attempts and failures of a webhook over the last `windowMs`, counted by whole seconds: those of the second the
 * window starts in are left out, so the window read is between `windowMs` − 1 s and `windowMs` long.
 */
export async function failureStats(q: Queryable, webhookId: string, windowMs: number): Promise<{ attempts: number; failures: number }> {
  const { rows } = await q.query<{ attempts: number; failures: number }>(
    `SELECT coalesce(sum(attempts), 0)::int AS attempts, coalesce(sum(failures), 0)::int AS failures
       FROM webhook_attempt_counts WHERE webhook_id = $1 AND second > clock_timestamp() - $2::bigint * interval '1 millisecond'`,
    [webhookId, Math.round(windowMs)],
  );
  return rows[0];
}

/** Removes the counts of seconds older than `keepMs` (never read once older than the deactivation window). */
export async function pruneAttemptCounts(q: Queryable, keepMs: number): Promise<void> {
  await q.query(`DELETE FROM webhook_attempt_counts WHERE second < clock_timestamp() - $1::bigint * interval '1 millisecond'`, [Math.round(keepMs)]);
}
