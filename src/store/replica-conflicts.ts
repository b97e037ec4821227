/**
 * Reads on a hot standby (DATABASE_READ_URL) that the replay of the primary's WAL cancels. PostgreSQL cancels a
 * standby query that still needs row versions the primary's cleanup removed, or holds a lock a replayed statement
 * needs (the partitions' creation and drops), once the replay has waited `max_standby_streaming_delay` for it; the
 * query then fails with SQLSTATE 40001 "canceling statement due to conflict with recovery". Every read of the index is
 * idempotent, so such a read is tried again, a few times after short pauses, before its error reaches the client;
 * each retry is counted in `solgate_replica_conflict_retries_total` (docs/operations.md, "Several API machines on
 * replicas").
 */
import { replicaConflictRetries } from '../core/metrics.js';
import type { Db } from './db.js';

/** Pauses before each retry (ms): three retries, then the error as it is. */
export const CONFLICT_RETRY_DELAYS_MS = [10, 50, 250] as const;

/** Whether `e` is a standby's cancellation for a conflict with recovery (retrying the read can succeed). */
export function isRecoveryConflict(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  return !!err && err.code === '40001' && typeof err.message === 'string' && err.message.includes('conflict with recovery');
}

async function retrying<T>(run: () => Promise<T>, delays: readonly number[]): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= delays.length || !isRecoveryConflict(e)) throw e;
      replicaConflictRetries.inc();
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
    }
  }
}

/** `db` (a replica's handle) with its queries and read transactions tried again after a recovery conflict. */
export function retryRecoveryConflicts(db: Db, delays: readonly number[] = CONFLICT_RETRY_DELAYS_MS): Db {
  return {
    kind: db.kind,
    query: (sql, params, opts) => retrying(() => db.query(sql, params, opts), delays),
    tx: (fn) => retrying(() => db.tx(fn), delays),
    exec: (sql) => db.exec(sql),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
    lock: db.lock,
  };
}
