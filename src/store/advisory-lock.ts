/**
 * Process-wide PostgreSQL advisory locks: a session-level `pg_try_advisory_lock` taken on a connection of its own
 * and held while the process runs (the server releases it when that connection ends, including when the process
 * dies). Used where exactly one process may do something on one database (the demo chain writer).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

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
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
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
