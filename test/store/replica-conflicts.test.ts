/**
 * Reads on a hot standby cancelled by the replay of the primary's WAL (SQLSTATE 40001, "canceling statement due to
 * conflict with recovery", as PostgreSQL sends it through pg) are tried again and then answer; any other error, and
 * a conflict that outlasts the retries, reaches the caller as it is.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { replicaConflictRetries } from '../../src/core/metrics.js';
import type { Db } from '../../src/store/db.js';
import { isRecoveryConflict, retryRecoveryConflicts } from '../../src/store/replica-conflicts.js';

/** The error pg raises for PostgreSQL's ErrorResponse of a standby's recovery conflict. */
function conflict(): pg.DatabaseError {
  const e = new pg.DatabaseError('canceling statement due to conflict with recovery', 100, 'error');
  e.code = '40001';
  e.severity = 'ERROR';
  e.detail = 'User query might have needed to see row versions that must be removed.';
  return e;
}

/** A replica handle whose reads fail with `errors` in turn, then answer one row. */
function replica(errors: unknown[]): Db & { calls: number } {
  const db = {
    kind: 'postgres' as const,
    calls: 0,
    async query() {
      db.calls++;
      const e = errors.shift();
      if (e) throw e;
      return { rows: [{ slot: 7 }], rowCount: 1 };
    },
    async tx<T>(fn: (q: Db) => Promise<T>) {
      return fn(db as unknown as Db);
    },
    async exec() {},
    async listen() {
      return async () => {};
    },
    async close() {},
  };
  return db as unknown as Db & { calls: number };
}

const retries = async () => (await replicaConflictRetries.get()).values[0]?.value ?? 0;

describe('reads on a replica cancelled by a conflict with recovery', () => {
  it('are tried again and answer', async () => {
    const before = await retries();
    const inner = replica([conflict(), conflict()]);
    const db = retryRecoveryConflicts(inner, [1, 1, 1]);
    expect((await db.query('SELECT slot FROM ingest_checkpoint')).rows).toEqual([{ slot: 7 }]);
    expect(inner.calls).toBe(3);
    expect(await retries()).toBe(before + 2);
    // a read transaction is run again as a whole
    const innerTx = replica([conflict()]);
    expect(await retryRecoveryConflicts(innerTx, [1]).tx(async (q) => (await q.query('SELECT 1')).rows)).toEqual([{ slot: 7 }]);
    expect(innerTx.calls).toBe(2);
  });

  it('give their error when the conflict outlasts the retries, and other errors at once', async () => {
    const inner = replica([conflict(), conflict(), conflict(), conflict()]);
    await expect(retryRecoveryConflicts(inner, [1, 1, 1]).query('SELECT 1')).rejects.toMatchObject({ code: '40001' });
    expect(inner.calls).toBe(4);
    const other = Object.assign(new pg.DatabaseError('could not serialize access due to concurrent update', 80, 'error'), { code: '40001' });
    const timeout = Object.assign(new pg.DatabaseError('canceling statement due to statement timeout', 60, 'error'), { code: '57014' });
    for (const e of [other, timeout, new Error('connection terminated')]) {
      const one = replica([e]);
      await expect(retryRecoveryConflicts(one, [1, 1, 1]).query('SELECT 1')).rejects.toBe(e);
      expect(one.calls).toBe(1);
    }
    expect(isRecoveryConflict(conflict())).toBe(true);
    expect(isRecoveryConflict(null)).toBe(false);
  });
});
