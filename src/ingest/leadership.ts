/**
 * One ingester per database. On PostgreSQL every process that would ingest (`ingest`, `serve` with a cluster) first
 * takes the session advisory lock `ingester`; the others wait in standby and the first to get the lock after the
 * holder dies (its connection ends, even on `kill -9`) resumes from the checkpoint. Writes are committed with the
 * checkpoint and are idempotent, so a takeover neither skips nor repeats a slot. A holder that loses its lock
 * connection stops its run at once and waits for the lock again. The embedded database (one process) takes no lock.
 */
import type { Logger } from 'pino';
import { waitAdvisoryLock } from '../store/advisory-lock.js';

export const INGESTER_LOCK = 'ingester';

export interface LeadershipOptions {
  /** PostgreSQL URL; unset = the embedded database, which has a single process: `run` is called at once. */
  databaseUrl: string | undefined;
  signal: AbortSignal;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** How often a standby process tries the lock (default 500 ms). */
  pollMs?: number;
  /** Called when this process starts waiting (another holds the lock) and when it takes the lock. */
  onStandby?: () => void;
  onLead?: () => Promise<void> | void;
}

/** Calls `run` while this process holds the ingester lock, until `signal` aborts (or `run` returns on its own). */
export async function runWhileLeader(o: LeadershipOptions, run: (signal: AbortSignal) => Promise<void>): Promise<void> {
  if (!o.databaseUrl) return run(o.signal);
  while (!o.signal.aborted) {
    const lock = await waitAdvisoryLock(o.databaseUrl, INGESTER_LOCK, {
      signal: o.signal,
      pollMs: o.pollMs,
      onWait: () => {
        o.logger.info('ingest: standby — another process holds the ingester lock on this database; taking over when it stops');
        o.onStandby?.();
      },
      onError: (err) => o.logger.warn({ err }, 'ingest: trying the ingester lock failed; trying again'),
    });
    if (!lock) return;
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    o.signal.addEventListener('abort', onAbort, { once: true });
    let lost = false;
    lock.onLost((err) => {
      lost = true;
      o.logger.error({ err }, 'ingest: the connection holding the ingester lock ended; stopping and waiting for the lock again');
      ctl.abort();
    });
    try {
      o.logger.info('ingest: holding the ingester lock; this process writes the index');
      await o.onLead?.();
      await run(ctl.signal);
    } finally {
      o.signal.removeEventListener('abort', onAbort);
      await lock.release();
    }
    if (!lost) return;
    o.onStandby?.();
  }
}
