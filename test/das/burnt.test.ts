/** A Token Metadata account closed at a later slot marks its asset burnt and keeps the last known data. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { replayInto } from '../../src/ingest/replay.js';
import { applyInputs, callRpc, expectedOf, loadCases } from './harness.js';

const c = loadCases().find((x) => x.id === 'reg_get_asset')!;
const META = '52J4tmbP9o3GHQrkts8vhXm84CLzM7KSXboKGnrw3YTW';
let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
  await applyInputs(ta, c.inputs);
});
afterAll(async () => ta?.close());

describe('burnt Token Metadata asset', () => {
  it('a closed metadata account at a newer slot → burnt: true, everything else as before; an older one is ignored', async () => {
    const before = (await callRpc(ta, c.method, c.params)).result as Record<string, unknown>;
    expect(before).toEqual(expectedOf(c));
    const dir = mkdtempSync(join(tmpdir(), 'burnt-'));
    const closed = (slot: number) => ({ pubkey: META, lamports: 0, owner: 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s', data: ['', 'base64'], slot });
    writeFileSync(join(dir, 'stale.json'), JSON.stringify(closed(0)));
    await replayInto(ta.t.db, [join(dir, 'stale.json')]);
    expect((await callRpc(ta, c.method, c.params)).result).toEqual(before);
    writeFileSync(join(dir, 'closed.json'), JSON.stringify(closed(10_000_000_000)));
    await replayInto(ta.t.db, [join(dir, 'closed.json')]);
    expect((await callRpc(ta, c.method, c.params)).result).toEqual({ ...before, burnt: true });
  });
});
