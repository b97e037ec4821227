/**
 * The embedded database's memory settings and its creation: a new data directory is made by initdb in a child
 * process (src/store/pglite-init.ts) and opened with the small buffer pool of PGLITE_SETTINGS; reopening it runs
 * no initdb; a failed initdb is reported with what it printed.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDb, PGLITE_SETTINGS } from '../../src/store/db.js';
import { initPgliteDataDir } from '../../src/store/pglite-init.js';

const root = mkdtempSync(join(tmpdir(), 'solgate-pglite-memory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('creates a new data directory in a child process and opens it with the memory settings', async () => {
  const dir = join(root, 'data');
  const db = await openDb({ dataDir: dir, owner: 'test' });
  try {
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
    for (const [name, value] of Object.entries(PGLITE_SETTINGS)) {
      const { rows } = await db.query<Record<string, string>>(`SHOW ${name}`);
      expect(Object.values(rows[0])[0]).toBe(value);
    }
    await db.exec('CREATE TABLE t (x int); INSERT INTO t VALUES (1), (2)');
  } finally {
    await db.close();
  }
  const created = statSync(join(dir, 'PG_VERSION')).mtimeMs;
  const again = await openDb({ dataDir: dir, owner: 'test' });
  try {
    expect((await again.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0].n).toBe(2);
    expect(statSync(join(dir, 'PG_VERSION')).mtimeMs).toBe(created);
  } finally {
    await again.close();
  }
});

it('keeps the in-memory database (tests) on the same settings', async () => {
  const db = await openDb({ inMemory: true });
  try {
    const { rows } = await db.query<{ shared_buffers: string }>('SHOW shared_buffers');
    expect(rows[0].shared_buffers).toBe(PGLITE_SETTINGS.shared_buffers);
  } finally {
    await db.close();
  }
});

it('reports why initdb failed', async () => {
  const dir = join(root, 'bad');
  await expect(initPgliteDataDir(dir, ['--single', '-c', 'shared_buffers=lots'])).rejects.toThrow(/^initdb exited with 1: .+/s);
});
