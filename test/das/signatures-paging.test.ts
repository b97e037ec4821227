/**
 * getSignaturesForAsset paging on the reference's cNFT transactions: change-log order both ways, page / keyset
 * (`before`/`after`) / `cursor` modes with the list methods' exclusivity rules and messages, `tree` + `leafIndex`
 * instead of `id`, and every page served by the order index (no sort step). Expected orders come from the fixture
 * transactions' change-log seqs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, callRpc, DAS_DIR, loadCases } from './harness.js';
import { createReplaySource } from '../../src/sources/replay.js';
import { parseBubblegumTransaction } from '../../src/parsers/bubblegum/index.js';
import { getCnftSignaturePage } from '../../src/store/cnft.js';
import type { Queryable } from '../../src/store/db.js';

const CASE = loadCases().find((c) => c.id === 'mint_transfer_transfer')!;
const ASSET = (CASE.params as { id: string }).id;
const ONE_MODE = 'Pagination Error. Only one pagination parameter supported per query.';
const OTHER_SIG = '5coWPFty37s7haT3SVyMf6PkTaABEnhCRhfDjXeMNS58czHB5dCFPY6VrsZNwxBnqypmNic1LbLp1j5qjbdnZAc8';

/** [signature, instruction] of the asset, newest (highest seq) first, from the fixture transactions. */
async function fixtureSigs(): Promise<[string, string][]> {
  const out: { sig: string; ix: string; seq: bigint }[] = [];
  for await (const item of createReplaySource(CASE.inputs.flat().map((i) => join(DAS_DIR, i.decoded))).items()) {
    if (item.kind !== 'block') continue;
    for (const tx of item.block.transactions)
      for (const e of parseBubblegumTransaction(tx))
        if (e.kind !== 'parse.failed' && e.changeLog && 'assetId' in e && e.assetId === ASSET) out.push({ sig: tx.signature, ix: e.instruction, seq: e.changeLog.seq });
  }
  return out.sort((a, b) => (a.seq < b.seq ? 1 : -1)).map((s) => [s.sig, s.ix]);
}

type SigList = { total: number; limit: number; page?: number; before?: string; after?: string; cursor?: string; items: [string, string][] };
let ta: TestApp;
let want: [string, string][];
const sig = (i: number) => want[i][0];
const list = async (params: Record<string, unknown>) => {
  const r = await callRpc(ta, 'getSignaturesForAsset', { id: ASSET, ...params });
  expect(r.error, JSON.stringify(params)).toBeUndefined();
  return r.result as SigList;
};
const error = async (params: Record<string, unknown>) => (await callRpc(ta, 'getSignaturesForAsset', params)).error;

beforeAll(async () => {
  ta = await createTestApp();
  await applyInputs(ta, [...CASE.inputs].reverse());
  want = await fixtureSigs();
});
afterAll(async () => ta?.close());

describe('getSignaturesForAsset paging', () => {
  it('fixture sanity: three transactions, newest first', () => {
    expect(want.map((w) => w[1])).toEqual(['Transfer', 'Transfer', 'MintV1']);
  });

  it('no paging params: everything newest first, total = items on the page, no page/cursor keys (reference shape)', async () => {
    const r = await list({});
    expect(r).toEqual({ total: 3, limit: 1000, items: want, last_indexed_slot: expect.any(Number) });
    expect((await list({ sortDirection: 'asc' })).items).toEqual([...want].reverse());
    expect(await list({ page: 2, limit: 2 })).toMatchObject({ total: 1, limit: 2, page: 2, items: [want[2]] });
    expect(await list({ page: 1, limit: 2, sortDirection: 'asc' })).toMatchObject({ total: 2, page: 1, items: [want[2], want[1]] });
  });

  it('cursor: the last signature of a page continues the listing, in both directions, to an empty page', async () => {
    for (const [dir, order] of [['desc', want], ['asc', [...want].reverse()]] as const) {
      const seen: [string, string][] = [];
      let cursor: string | undefined;
      for (;;) {
        const r = await list({ limit: 1, sortDirection: dir, ...(cursor ? { cursor } : {}) });
        expect(r.total).toBe(r.items.length);
        expect(r).not.toHaveProperty('cursor');
        if (!r.items.length) break;
        seen.push(...r.items);
        cursor = r.items[r.items.length - 1][0];
      }
      expect(seen, dir).toEqual(order);
    }
  });

  it('before = older than, after = newer than a signature (seq order, whatever the direction); both echoed', async () => {
    expect(await list({ before: sig(1) })).toMatchObject({ total: 1, before: sig(1), items: [want[2]] });
    expect((await list({ before: sig(0), sortDirection: 'asc' })).items).toEqual([want[2], want[1]]);
    expect(await list({ after: sig(2) })).toMatchObject({ after: sig(2), items: [want[0], want[1]] });
    expect((await list({ after: sig(2), limit: 1, sortDirection: 'asc' })).items).toEqual([want[1]]);
    const both = await list({ after: sig(2), before: sig(0) });
    expect(both).toMatchObject({ before: sig(0), after: sig(2), items: [want[1]] });
    expect(both).not.toHaveProperty('page');
    expect((await list({ after: sig(0) })).items).toEqual([]);
  });

  it('tree + leafIndex instead of id gives the same listing', async () => {
    const a = (await callRpc(ta, 'getAsset', { id: ASSET })).result as { compression: { tree: string; leaf_id: number } };
    const r = await callRpc(ta, 'getAssetSignatures', { tree: a.compression.tree, leafIndex: a.compression.leaf_id, cursor: sig(0) });
    expect((r.result as SigList).items).toEqual([want[1], want[2]]);
  });

  it('errors: the list methods’ pagination rules and messages, the reference’s id/tree rule, bad values', async () => {
    const id = ASSET;
    expect(await error({ id, page: 1, cursor: sig(0) })).toEqual({ code: -32000, message: ONE_MODE });
    expect(await error({ id, page: 1, before: sig(0) })).toEqual({ code: -32000, message: ONE_MODE });
    expect(await error({ id, cursor: sig(0), after: sig(1) })).toEqual({ code: -32000, message: ONE_MODE });
    expect(await error({ id, limit: 1001 })).toEqual({ code: -32000, message: 'Pagination Error. Limit should not be greater than 1000.' });
    expect(await error({ id, page: 0 })).toEqual({ code: -32000, message: 'Pagination Error. No Pagination Method Selected' });
    expect(await error({ id, cursor: 'nope' })).toEqual({ code: -32000, message: 'Cursor Validation Err: nope is invalid' });
    expect(await error({ id, before: ASSET })).toEqual({ code: -32000, message: `Signature Validation Err: ${ASSET} is invalid` });
    expect((await error({ id, after: OTHER_SIG }))?.code).toBe(-32000);
    const rule = { code: -32000, message: "Validation Error: Must provide either 'id' or both 'tree' and 'leafIndex'" };
    expect(await error({})).toEqual(rule);
    expect(await error({ tree: ASSET })).toEqual(rule);
    expect(await error({ id, tree: ASSET, leafIndex: 0 })).toEqual(rule);
    for (const bad of [{ id, sortDirection: 'up' }, { id, sortBy: { sortBy: 'id' } }, { id, cursor: 5 }, { id, limit: -1 }, { tree: ASSET, leafIndex: -1 }, { id: 5 }])
      expect((await error(bad))?.code, JSON.stringify(bad)).toBe(-32602);
  });

  it('every mode is one walk of the order index, forwards or backwards, with no sort step', async () => {
    const seen: { sql: string; params: unknown[] }[] = [];
    const spy: Queryable = { query: (sql, params) => (seen.push({ sql, params: params ?? [] }), ta.t.db.query(sql, params)) };
    const modes = [{}, { offset: 1 }, { before: sig(0) }, { after: sig(2), before: sig(0) }, { cursor: sig(1) }];
    for (const ascending of [false, true]) for (const m of modes) await getCnftSignaturePage(spy, ASSET, { limit: 2, ascending, ...m });
    const pages = seen.filter((s) => s.sql.includes('ORDER BY'));
    expect(pages).toHaveLength(modes.length * 2);
    for (const { sql, params } of pages) {
      const plan = await ta.t.db.tx(async (q) => {
        // Tiny tables: make the planner show whether the index can give the order (a Sort would remain, costed high).
        for (const k of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) await q.query(`SET LOCAL ${k} = off`);
        const { rows } = await q.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan, sql).toContain('cnft_signatures_order_idx');
      expect(plan, sql).not.toMatch(/\bSort\b/);
    }
  });
});
