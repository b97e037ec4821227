/**
 * Replaying the real recorded transactions (photon fixtures: base64 getTransaction results) ingests without
 * error, and a second pass changes nothing, row for row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDb, seedLightTrees, tableDigests, type TestDb } from '../helpers/db.js';
import { replayInto } from '../../src/ingest/replay.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'photon-transactions');
const files = readdirSync(DIR, { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile())
  .map((d) => join(d.parentPath, d.name))
  .sort();

describe('replay of recorded transactions', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
    // The recordings are Light (ZK Compression) transactions: their trees must be known to index them.
    await seedLightTrees(t.db);
  });
  afterAll(async () => t?.drop());

  it('ingests every recorded transaction, and a second pass leaves every table identical', async () => {
    expect(files.length).toBeGreaterThan(200);
    const first = await replayInto(t.db, [DIR]);
    expect(first.transactions).toBe(files.length);
    const d1 = await tableDigests(t.db);
    // Every recorded signature is stored exactly once.
    expect(d1.transactions.rows).toBe(files.length);
    expect(d1.address_slots.rows).toBeGreaterThan(files.length);
    const second = await replayInto(t.db, [DIR]);
    expect(second.transactions).toBe(files.length);
    const d2 = await tableDigests(t.db);
    expect(d2).toEqual(d1);
  });

  it('replaying in reverse order into a fresh database gives the same tables', async () => {
    const other = await createTestDb();
    try {
      await seedLightTrees(other.db);
      await replayInto(other.db, [...files].reverse());
      const a = await tableDigests(other.db);
      const b = await tableDigests(t.db);
      expect(a).toEqual(b);
    } finally {
      await other.drop();
    }
  });
});

describe('replay of recorded mainnet blocks', () => {
  const BLOCKS = join(import.meta.dirname, '..', 'fixtures', 'photon-blocks');
  const blockFiles = [join(BLOCKS, 'index_block_metadata', '254170887'), join(BLOCKS, 'get_lanon_voting_signatures', '270893658')];

  it('skips whole blocks already indexed (same slot and blockhash) on a second pass, leaving every table identical', async () => {
    const t = await createTestDb();
    try {
      const first = await replayInto(t.db, blockFiles);
      expect(first.skipped).toBe(0);
      expect(first.blocks).toBe(2);
      expect(first.transactions).toBeGreaterThan(400);
      const d1 = await tableDigests(t.db);
      const second = await replayInto(t.db, blockFiles);
      expect(second.skipped).toBe(2);
      expect(second.blocks).toBe(0);
      expect(second.transactions).toBe(0);
      expect(second.checkpoint).toBe(first.checkpoint);
      expect(await tableDigests(t.db)).toEqual(d1);
      // A block not yet stored among stored ones is still written.
      const other = await createTestDb();
      try {
        await replayInto(other.db, [blockFiles[0]]);
        const mixed = await replayInto(other.db, blockFiles);
        expect(mixed.skipped).toBe(1);
        expect(mixed.blocks).toBe(1);
        expect(await tableDigests(other.db)).toEqual(d1);
      } finally {
        await other.drop();
      }
    } finally {
      await t.drop();
    }
  });

  it('recognises a stored block from its file without decoding it', async () => {
    const t = await createTestDb();
    const dir = mkdtempSync(join(tmpdir(), 'solgate-replay-stored-'));
    try {
      const file = join(dir, '254170887');
      writeFileSync(file, readFileSync(blockFiles[0], 'utf8'));
      await replayInto(t.db, [file]);
      const d1 = await tableDigests(t.db);
      // The same block with text after it that no decoder accepts: skipped unread, so no error.
      writeFileSync(file, `${readFileSync(blockFiles[0], 'utf8')} not json`);
      const again = await replayInto(t.db, [file]);
      expect(again.skipped).toBe(1);
      expect(again.blocks).toBe(0);
      expect(await tableDigests(t.db)).toEqual(d1);
      // Under another slot's name it is decoded (and refused).
      const other = join(dir, '254170888');
      writeFileSync(other, `${readFileSync(blockFiles[0], 'utf8')} not json`);
      await expect(replayInto(t.db, [other])).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await t.drop();
    }
  });
});
