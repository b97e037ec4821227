/**
 * foldAhead (src/ingest/pipeline-prepare.ts): with a write in flight, the token-account context is read and the
 * batch folded before that write commits; the context is read again after it, and the batch folded again only when
 * the rows changed. Either way the result is the fold of the context read after the write, as without the fold ahead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedTx } from '../../src/core/model.js';
import type { FoldContext, ParsedTx } from '../../src/ingest/fold-block.js';
import { foldAhead, lookupContext } from '../../src/ingest/pipeline-prepare.js';
import { emptyUpdate } from '../../src/store/block-update.js';
import { writeUpdates } from '../../src/store/write-block.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const SOURCE = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
const DEST = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDEsYjvtt7vkVdfqZ';
const MINT = 'So11111111111111111111111111111111111111112';
const OWNER_A = '3zi7ET8HFv7CbfQ87Y9ziuNidLZz7biTeG5jTusE7LUm';
const OWNER_B = 'Fp1H9qJdd5MJg2N4kxzd1xo6x8ZFL4oBq1Di2dnr3BVd';

/** A transaction whose transfer names token accounts its meta does not describe (so they are looked up). */
const parsed: ParsedTx[] = [
  {
    tx: { accountKeys: [SOURCE, DEST], meta: { preTokenBalances: [], postTokenBalances: [] } } as unknown as NormalizedTx,
    events: [{ kind: 'token.transfer', path: { outer: 0, inner: null }, program: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', source: SOURCE, destination: DEST, authority: OWNER_A, amount: 1n, mint: null, decimals: null, fee: null }],
  },
];

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t?.drop();
});

async function setOwner(owner: string, pos: number): Promise<void> {
  const u = emptyUpdate(null);
  u.tokenAccounts.push({ address: SOURCE, mint: MINT, owner, program: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', ownerPos: pos });
  await writeUpdates(t.db, [u]);
}

/** A write in flight that the test commits when it chooses. */
function inFlight(): { done: Promise<void>; commit: (f: () => Promise<void>) => Promise<void> } {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { done, commit: async (f) => (await f(), release()) };
}

describe('foldAhead', () => {
  it('folds once, before the write in flight commits, when the write leaves the rows read as they were', async () => {
    await setOwner(OWNER_A, 1);
    const w = inFlight();
    const folds: FoldContext[] = [];
    let committed = false;
    const result = foldAhead(t.db, parsed, w.done, (ctx) => (folds.push(ctx), { owner: ctx.tokenAccounts.get(SOURCE)?.owner, committed }));
    // The fold ahead runs while the write is still in flight.
    while (folds.length === 0) await new Promise((r) => setImmediate(r));
    await w.commit(async () => {
      committed = true;
    });
    const r = await result;
    expect(folds).toHaveLength(1);
    expect(r.updates).toEqual({ owner: OWNER_A, committed: false });
    expect(r.ctx).toEqual(await lookupContext(t.db, parsed, null));
  });

  it('folds again with the rows read after the write when the write changed them', async () => {
    const w = inFlight();
    const folds: FoldContext[] = [];
    const result = foldAhead(t.db, parsed, w.done, (ctx) => (folds.push(ctx), ctx.tokenAccounts.get(SOURCE)?.owner));
    while (folds.length === 0) await new Promise((r) => setImmediate(r));
    // The write in flight changes the owner of an account the batch looks up.
    await w.commit(() => setOwner(OWNER_B, 2));
    const r = await result;
    expect(folds).toHaveLength(2);
    expect(folds[0].tokenAccounts.get(SOURCE)?.owner).toBe(OWNER_A);
    expect(r.updates).toBe(OWNER_B);
  });

  it('without a write in flight, or with nothing to look up, folds once with the rows read', async () => {
    let n = 0;
    const r = await foldAhead(t.db, parsed, null, (ctx) => (n++, ctx.tokenAccounts.get(SOURCE)?.owner));
    expect([n, r.updates]).toEqual([1, OWNER_B]);
    const none = await foldAhead(t.db, [{ ...parsed[0], events: [] }], Promise.resolve(), (ctx) => (n++, ctx.tokenAccounts.size));
    expect([n, none.updates]).toEqual([2, 0]);
  });
});
