/**
 * `query(sql, params, {prepare: true})` on PostgreSQL: the statement is kept by the connection (a named prepared
 * statement) and answers exactly as the unprepared one; a table that changes shape under a kept plan (a migration
 * while running) does not break the reads; a process prepares at most MAX_PREPARED texts and runs the others
 * unprepared. PGlite ignores the option (the same answers). Real PostgreSQL with DATABASE_URL, PGlite otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PREPARED, openDb, type Db } from '../../src/store/db.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let one: Db;
beforeAll(async () => {
  t = await createTestDb({ migrations: [] });
  // One connection, so the statements it keeps can be listed from it.
  one = t.url ? await openDb({ databaseUrl: t.url, poolSize: 1 }) : t.db;
  await one.exec(`CREATE TABLE prep_t (id int PRIMARY KEY, v text); INSERT INTO prep_t SELECT g, 'v' || g FROM generate_series(1, 50) g`);
}, 60_000);
afterAll(async () => {
  if (one !== t?.db) await one?.close();
  await t?.drop();
});

const kept = async (db: Db) =>
  db.kind === 'postgres' ? (await db.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'sg\\_%'`)).rows.length : 0;

describe('prepared reads', () => {
  it('answer as unprepared ones, and the connection keeps the statement', async () => {
    const sql = 'SELECT id, v FROM prep_t WHERE id > $1 ORDER BY id LIMIT 5';
    for (const from of [0, 10, 45, 50]) {
      const plain = await one.query(sql, [from]);
      const prepared = await one.query(sql, [from], { prepare: true });
      expect(prepared.rows).toEqual(plain.rows);
    }
    expect(await kept(one)).toBe(one.kind === 'postgres' ? 1 : 0);
  });

  it('a table that changes shape under a kept plan: the read still answers, with the new shape', async () => {
    const sql = 'SELECT * FROM prep_t WHERE id = $1';
    expect((await one.query(sql, [3], { prepare: true })).rows).toEqual([{ id: 3, v: 'v3' }]);
    await one.exec(`ALTER TABLE prep_t ADD COLUMN w int DEFAULT 7`);
    expect((await one.query(sql, [3], { prepare: true })).rows).toEqual([{ id: 3, v: 'v3', w: 7 }]);
    expect((await one.query(sql, [4], { prepare: true })).rows).toEqual([{ id: 4, v: 'v4', w: 7 }]);
  });

  it(`at most ${MAX_PREPARED} texts are prepared; the others still answer`, async () => {
    const before = await kept(one);
    for (let i = 0; i < MAX_PREPARED + 20; i++) {
      const r = await one.query<{ n: number }>(`SELECT id + ${i} AS n FROM prep_t WHERE id = $1`, [1], { prepare: true }); // text(i)
      expect(r.rows).toEqual([{ n: 1 + i }]);
    }
    const after = await kept(one);
    const text = (i: number) => `SELECT id + ${i} AS n FROM prep_t WHERE id = $1`;
    const isKept = async (i: number) =>
      one.kind === 'postgres' && (await one.query(`SELECT 1 FROM pg_prepared_statements WHERE statement = $1`, [text(i)])).rows.length === 1;
    if (one.kind === 'postgres') {
      expect(after).toBeLessThanOrEqual(MAX_PREPARED);
      expect(after - before).toBeGreaterThan(MAX_PREPARED - 10);
      expect(await isKept(0)).toBe(true);
      expect(await isKept(MAX_PREPARED + 19)).toBe(false);
    } else expect(after).toBe(0);
  });
});
