/**
 * A read transaction on a real hot standby that the replay of the primary's WAL cancels (a conflict with recovery:
 * the primary takes an ACCESS EXCLUSIVE lock on a table the standby transaction has read, as a partition's creation
 * or drop does, and the standby's `max_standby_streaming_delay` is 0) fails with SQLSTATE 40001 on the bare
 * handle, and is run again and answers through the replica handle `serve` uses (src/store/replica-conflicts.ts).
 * Needs the PostgreSQL server binaries (a private primary and a streaming replica of it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { isRecoveryConflict, retryRecoveryConflicts } from '../../src/store/replica-conflicts.js';
import { findPgBin, privatePostgres, startReplica, type PrivatePostgres } from './private-postgres.js';

const pgBin = findPgBin();

describe.skipIf(!pgBin)('reads on a streaming replica cancelled by a conflict with recovery (needs PostgreSQL binaries)', () => {
  let primary: PrivatePostgres;
  let replica: PrivatePostgres;
  let p: Db;
  let r: Db;

  beforeAll(async () => {
    primary = await privatePostgres(pgBin!);
    p = await openDb({ databaseUrl: primary.url, poolSize: 2 });
    await p.exec('CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t SELECT generate_series(1, 100)');
    replica = await startReplica(pgBin!, primary);
    r = await openDb({ databaseUrl: replica.url, poolSize: 2 });
    await r.query(`ALTER SYSTEM SET max_standby_streaming_delay = '0'`);
    await r.query('SELECT pg_reload_conf()');
    for (let i = 0; i < 200 && (await r.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0].n !== 100; i++) await new Promise((s) => setTimeout(s, 50));
  }, 120_000);

  afterAll(async () => {
    await r?.close().catch(() => {});
    await p?.close().catch(() => {});
    replica?.destroy();
    primary?.destroy();
  });

  /** A read transaction that, on its first run, lets the primary lock the table it read before reading again. */
  const readAcrossALock = (runs: { n: number }) => async (q: Parameters<Parameters<Db['tx']>[0]>[0]) => {
    const first = (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0].n;
    if (runs.n++ === 0) {
      await p.tx(async (w) => void (await w.query('LOCK TABLE t IN ACCESS EXCLUSIVE MODE')));
      const { rows: [lsn] } = await p.query<{ l: string }>('SELECT pg_current_wal_lsn()::text AS l');
      // the lock's record replayed (the conflict resolved by cancelling this transaction)
      for (let i = 0; i < 200; i++) {
        const { rows } = await p.query<{ ok: boolean }>(`SELECT coalesce(bool_and(replay_lsn >= $1::pg_lsn), false) AS ok FROM pg_stat_replication`, [lsn.l]);
        if (rows[0].ok) break;
        await new Promise((s) => setTimeout(s, 25));
      }
    }
    const second = (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0].n;
    return first + second;
  };

  it('the bare handle gives the 40001 error; the replica handle runs the transaction again and answers', async () => {
    const bare = { n: 0 };
    const err = await r.tx(readAcrossALock(bare)).then(() => null, (e: unknown) => e);
    expect(err, 'the standby cancelled the transaction').not.toBeNull();
    expect(isRecoveryConflict(err), `${(err as { code?: string }).code} ${String((err as Error).message)}`).toBe(true);

    const retried = { n: 0 };
    expect(await retryRecoveryConflicts(r).tx(readAcrossALock(retried))).toBe(200);
    expect(retried.n).toBe(2);
  }, 60_000);
});
