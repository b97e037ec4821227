/**
 * DATABASE_READ_URL at start-up (src/cli/read-db.ts): refused without DATABASE_URL and on a process that ingests
 * (one line each, as every start-up error), a replica that cannot be read is named in one line, and a readable one
 * is opened without migrations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadDb } from '../../src/cli/read-db.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { StartupError } from '../../src/core/errors.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { freePort } from '../helpers/net.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
const base = loadConfig();
const cfg = (over: Partial<Config>): Config => ({ ...base, ...over });

beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t?.drop();
});

describe('DATABASE_READ_URL', () => {
  it('unset: no read database', async () => {
    expect(await openReadDb(cfg({ databaseReadUrl: undefined }), false)).toBeUndefined();
  });

  it('needs DATABASE_URL, and an API-only process', async () => {
    await expect(openReadDb(cfg({ databaseReadUrl: 'postgres://127.0.0.1:1/x', databaseUrl: undefined }), false)).rejects.toThrow(UsageError);
    await expect(openReadDb(cfg({ databaseReadUrl: 'postgres://127.0.0.1:1/x', databaseUrl: 'postgres://127.0.0.1:1/y' }), true)).rejects.toThrow(/API-only/);
  });

  it('a replica that does not answer: one line naming DATABASE_READ_URL', async () => {
    const port = await freePort();
    const err = await openReadDb(cfg({ databaseReadUrl: `postgres://postgres@127.0.0.1:${port}/x`, databaseUrl: 'postgres://127.0.0.1:1/y' }), false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(/^DATABASE_READ_URL: cannot connect to PostgreSQL/);
  });

  it.skipIf(!process.env.DATABASE_URL)('a readable database: opened, the index readable', async () => {
    const db = await openReadDb(cfg({ databaseReadUrl: t.url, databaseUrl: t.url }), false);
    try {
      expect((await db!.query('SELECT count(*)::int AS n FROM ingest_checkpoint')).rows).toEqual([{ n: 0 }]);
    } finally {
      await db?.close();
    }
  });
});
