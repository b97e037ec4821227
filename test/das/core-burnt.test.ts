/**
 * A closed MPL Core account renders its asset burnt (the reference's `burn_v1_asset` only sets `burnt`), on the
 * reference's MPL Core collection fixture: the assets keep their collection authority and grouping, a stale
 * closure is ignored, and a closure of an account never seen live is still "not found".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { replayInto } from '../../src/ingest/replay.js';
import { applyInputs, callRpc, expectedOf, loadCases } from './harness.js';

const CORE_PROGRAM = 'CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d';
const c = loadCases().find((x) => x.id === 'mpl_core_get_assets_by_group')!;
const COLLECTION = (c.params as { groupValue: string }).groupValue;
const items = (expectedOf(c) as { items: Record<string, unknown>[] }).items;
const [A, B] = items;
const NEVER_SEEN = 'CMVuYDS9nTeujfTPJb8ik7CRhAqZv4DfjfdamFLkJgxE';

let ta: TestApp;
let dir: string;
beforeAll(async () => {
  ta = await createTestApp();
  dir = mkdtempSync(join(tmpdir(), 'core-burnt-'));
  await applyInputs(ta, c.inputs);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await ta?.close();
});

/** Replays an account update of `pubkey` owned by MPL Core with `data` (empty = closed, [0] = Key::Uninitialized). */
async function coreUpdate(pubkey: string, slot: number, data: number[]): Promise<void> {
  const file = join(dir, `${pubkey}-${slot}-${data.length}.json`);
  const lamports = data.length ? 897_840 : 0;
  writeFileSync(file, JSON.stringify({ pubkey, lamports, owner: CORE_PROGRAM, data: [Buffer.from(data).toString('base64'), 'base64'], slot }));
  await replayInto(ta.t.db, [file]);
}

const getAsset = async (id: string) => callRpc(ta, 'getAsset', { id });

describe('burnt MPL Core assets', () => {
  it('a closed asset account at a newer slot → burnt: true, everything else (collection authority, grouping) as before', async () => {
    expect((await getAsset(A.id as string)).result).toEqual(A);
    await coreUpdate(A.id as string, 0, []);
    expect((await getAsset(A.id as string)).result, 'a stale closure is ignored').toEqual(A);
    await coreUpdate(A.id as string, 10_000_000_000, []);
    expect((await getAsset(A.id as string)).result).toEqual({ ...A, burnt: true });
  });

  it('MPL Core burn leaves one Key::Uninitialized byte: also burnt; batches show it too', async () => {
    await coreUpdate(B.id as string, 10_000_000_000, [0]);
    expect((await getAsset(B.id as string)).result).toEqual({ ...B, burnt: true });
    expect((await callRpc(ta, 'getAssetBatch', { ids: [A.id, B.id, items[2].id] })).result).toEqual([{ ...A, burnt: true }, { ...B, burnt: true }, items[2]]);
  });

  it('a burnt collection renders burnt and still gives its assets their authority', async () => {
    const before = (await getAsset(COLLECTION)).result as Record<string, unknown>;
    expect(before).toMatchObject({ interface: 'MplCoreCollection', id: COLLECTION, burnt: false });
    await coreUpdate(COLLECTION, 10_000_000_000, []);
    expect((await getAsset(COLLECTION)).result).toEqual({ ...before, burnt: true });
    expect((await getAsset(items[2].id as string)).result).toEqual(items[2]);
    expect((await getAsset(A.id as string)).result).toEqual({ ...A, burnt: true });
  });

  it('a closure of a Core account never seen live has nothing to render: not found, as in the reference', async () => {
    await coreUpdate(NEVER_SEEN, 10_000_000_000, []);
    expect((await getAsset(NEVER_SEEN)).error).toEqual({ code: -32000, message: 'Database Error: RecordNotFound Error: Asset Not Found' });
  });
});
