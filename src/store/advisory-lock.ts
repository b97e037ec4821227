/**
 * Process-wide PostgreSQL advisory locks: a session-level `pg_try_advisory_lock` taken on a connection of its own
 * and held while the process runs (the server releases it when that connection ends, including when the process
 * dies). Used where exactly one process may do something on one database (the demo chain writer, the ingester).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { sleepUnlessAborted } from '../core/sleep.js';

/** A held lock; `release` ends its connection. */
export interface HeldLock {
  release(): Promise<void>;
  /** Called once if the connection holding the lock is lost (the lock is then no longer held). */
  onLost(fn: (err: Error) => void): void;
}

/** The 64-bit lock key of a name (two processes agree on it without sharing constants). */
export function lockKey(name: string): bigint {
  return createHash('sha256').update(`solgate:${name}`).digest().readBigInt64BE(0);
}

/** Takes the named lock if no other session holds it; null when another session holds it. */
export async function tryAdvisoryLock(databaseUrl: string, name: string): Promise<HeldLock | null> {
  // TCP keep-alive: a holder cut off from the server learns it (onLost) instead of believing it still holds the lock.
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000, keepAlive: true, keepAliveInitialDelayMillis: 5_000 });
  let lost: ((err: Error) => void) | null = null;
  let released = false;
  client.on('error', (err) => {
    if (!released && lost) lost(err);
    lost = null;
  });
  await client.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [lockKey(name).toString()]);
    if (!rows[0]?.ok) {
      await client.end();
      return null;
    }
  } catch (err) {
    await client.end().catch(() => {});
    throw err;
  }
  return {
    async release() {
      released = true;
      await client.end().catch(() => {});
    },
    onLost(fn) {
      lost = fn;
    },
  };
}

/**
 * Waits until the named lock is free and takes it: tries every `pollMs` (default 500 ms), calling `onWait` once
 * if the first try finds it held. The server releases a lock when its holder's connection ends, so a holder that
 * dies (even `kill -9`) lets a waiter in within about `pollMs`. Returns null once `signal` aborts. A failed try (the
 * database unreachable) is retried after `pollMs` too, reported through `onError`.
 */
export async function waitAdvisoryLock(
  databaseUrl: string,
  name: string,
  o: { signal: AbortSignal; pollMs?: number; onWait?: () => void; onError?: (err: unknown) => void },
): Promise<HeldLock | null> {
  const pollMs = o.pollMs ?? 500;
  let told = false;
  while (!o.signal.aborted) {
    try {
      const held = await tryAdvisoryLock(databaseUrl, name);
      if (held) {
        if (!o.signal.aborted) return held;
        await held.release();
        return null;
      }
      if (!told) o.onWait?.();
      told = true;
    } catch (err) {
      o.onError?.(err);
    }
    await sleepUnlessAborted(pollMs, o.signal);
  }
  return null;
}
