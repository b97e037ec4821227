/**
 * Replays of the same history must leave identical ZK tables: the four variants Photon's e2e tests run (each
 * batch separately or all merged; the list as given, or followed by all but the last again), the same batch twice,
 * and beyond Photon, out-of-order input (reversed, shuffled) — spends before creations, batch events before the
 * queue entries they cover.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { mergeZkWrites } from '../../../src/store/zk/types.js';
import { applyMerged, applySeparately, resetZk, shuffled, zkDigests } from './helpers.js';
import { history } from './scenario.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.drop());

async function digestAfter(apply: () => Promise<void>) {
  await resetZk(t.db);
  await apply();
  return zkDigests(t.db);
}

describe('ZK writes are idempotent and order-independent', () => {
  let reference: Awaited<ReturnType<typeof zkDigests>>;
  const h = history();
  const allButLast = h.slice(0, -1);

  beforeAll(async () => {
    reference = await digestAfter(() => applySeparately(t.db, h));
  });

  it('the reference run wrote every table', () => {
    for (const [table, d] of Object.entries(reference)) expect(d.rows, table).toBeGreaterThan(0);
  });

  it('variant: all batches merged into one', async () => {
    expect(await digestAfter(() => applyMerged(t.db, h))).toEqual(reference);
  });

  it('variant: separately, then all but the last again', async () => {
    expect(await digestAfter(() => applySeparately(t.db, [...h, ...allButLast]))).toEqual(reference);
  });

  it('variant: merged, with all but the last again inside the merge', async () => {
    expect(await digestAfter(() => applyMerged(t.db, [...h, ...allButLast]))).toEqual(reference);
  });

  it('the same batch twice, and a merged replay after a separate run', async () => {
    expect(await digestAfter(async () => {
      for (const w of h) {
        await applySeparately(t.db, [w, w]);
      }
      await applyMerged(t.db, h);
    })).toEqual(reference);
  });

  it('out of order: reversed (spends before creations, events before the queue entries they cover)', async () => {
    expect(await digestAfter(() => applySeparately(t.db, [...h].reverse()))).toEqual(reference);
  });

  it('out of order: shuffled batches, and shuffled rows inside one merged batch', async () => {
    for (const seed of [1, 7, 42]) {
      expect(await digestAfter(() => applySeparately(t.db, shuffled(h, seed))), `seed ${seed}`).toEqual(reference);
    }
    const m = mergeZkWrites(h);
    const rowShuffled = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, shuffled(v as unknown[], 3)])) as unknown as typeof m;
    expect(await digestAfter(() => applyMerged(t.db, [rowShuffled]))).toEqual(reference);
  });
});
