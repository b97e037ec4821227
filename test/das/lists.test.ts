/**
 * DAS list methods over several reference cases' inputs in one database: ordering by the ids' bytes (the
 * reference's order), every pagination mode walking a whole list without gaps or repeats, grand totals,
 * searchAssets' negate/conditionType, the reference's parameter errors, the index following ownership changes,
 * and each list query being answerable from an index in its own order (no sort step).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, callRpc, expectedOf, loadCases, type DasCase } from './harness.js';
import { buildListSql, ownerAssetsQuery, parseListPaging, type ListQuery } from '../../src/api/das/list-assets.js';
import { resetChainTables } from '../helpers/db.js';

type Asset = { id: string; interface: string; ownership: { owner: string }; creators: { address: string; verified: boolean }[]; grouping: { group_key: string; group_value: string }[] };
type AssetList = { total: number; limit: number; page?: number; cursor?: string; before?: string; after?: string; items: Asset[]; grand_total?: number };

const CASES = ['mpl_core_get_assets_by_group', 'reg_get_asset_by_group', 'search_asset_with_token_type_all_scenario_1', 'search_asset_with_token_type_fungible', 'search_asset_with_token_type_compressed'];

/** Byte-wise comparison of two ids, as the reference's bytea ordering (independent of our code). */
function cmpIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(bs58.decode(a)), Buffer.from(bs58.decode(b)));
}

let ta: TestApp;
let cases: Map<string, DasCase>;
const list = async (method: string, params: unknown): Promise<AssetList> => {
  const r = await callRpc(ta, method, params);
  if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r.result as AssetList;
};
const ids = (l: AssetList) => l.items.map((a) => a.id);

beforeAll(async () => {
  ta = await createTestApp();
  cases = new Map(loadCases().map((c) => [c.id, c]));
  for (const id of CASES) await applyInputs(ta, cases.get(id)!.inputs);
}, 120_000);
afterAll(() => ta?.close());

describe('DAS list methods', () => {
  const COLLECTION = '8Rt3Ayqth4DAiPnW9MDFi63TiQJHmohfTWLMQFHi4KZH';
  const groupIds = () => {
    // Members of the collection per the reference's recorded inputs: the three NFT seeds of reg_get_asset_by_group.
    return cases.get('reg_get_asset_by_group')!.inputs.map((g) => (g.find((i) => (i as { role?: string }).role === 'nft-mint') as unknown as { pubkey: string }).pubkey);
  };

  it('orders ids by their bytes, descending by default and ascending on request', async () => {
    const want = groupIds().sort(cmpIds);
    const desc = await list('getAssetsByGroup', { groupKey: 'collection', groupValue: COLLECTION });
    expect(ids(desc)).toEqual([...want].reverse());
    expect(desc.total).toBe(3);
    expect(desc.cursor).toBe(want[0]);
    const asc = await list('getAssetsByGroup', { groupKey: 'collection', groupValue: COLLECTION, sortBy: { sortBy: 'id', sortDirection: 'asc' } });
    expect(ids(asc)).toEqual(want);
  });

  it('walks a whole list with cursor, page, before and after, each item exactly once', async () => {
    const all = groupIds().sort(cmpIds).reverse();
    const base = { groupKey: 'collection', groupValue: COLLECTION, limit: 1 };
    // cursor
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const l = await list('getAssetsByGroup', { ...base, ...(cursor ? { cursor } : {}) });
      if (!l.items.length) {
        expect(l.cursor).toBeUndefined();
        break;
      }
      seen.push(...ids(l));
      cursor = l.cursor;
    }
    expect(seen).toEqual(all);
    // pages
    const pages = [];
    for (let page = 1; page <= 4; page++) pages.push(...ids(await list('getAssetsByGroup', { ...base, page })));
    expect(pages).toEqual(all);
    // before / after (keyset on the id, the list's own order)
    const after = await list('getAssetsByGroup', { groupKey: 'collection', groupValue: COLLECTION, after: all[2] });
    expect(ids(after)).toEqual(all.slice(0, 2));
    expect(after.after).toBe(all[2]);
    const before = await list('getAssetsByGroup', { groupKey: 'collection', groupValue: COLLECTION, before: all[0] });
    expect(ids(before)).toEqual(all.slice(1));
    const between = await list('getAssetsByGroup', { groupKey: 'collection', groupValue: COLLECTION, before: all[0], after: all[2] });
    expect(ids(between)).toEqual([all[1]]);
  });

  it('counts every match with showGrandTotal, whatever the page size', async () => {
    const l = await list('getAssetsByGroup', { groupKey: 'collection', groupValue: COLLECTION, limit: 1, options: { showGrandTotal: true } });
    expect(l.items).toHaveLength(1);
    expect(l.grand_total).toBe(3);
    const none = await list('getAssetsByGroup', { groupKey: 'collection', groupValue: COLLECTION, limit: 1 });
    expect(none.grand_total).toBeUndefined();
  });

  it('getAssetsByCreator with onlyVerified keeps the assets where that creator is verified', async () => {
    // The reference's recorded view of these two assets (search_asset_with_token_type_all_scenario_1).
    const recorded = (expectedOf(cases.get('search_asset_with_token_type_all_scenario_1')!) as AssetList).items;
    for (const creator of new Set(recorded.flatMap((a) => a.creators.map((c) => c.address)))) {
      const wantAll = recorded.filter((a) => a.creators.some((c) => c.address === creator)).map((a) => a.id).sort(cmpIds).reverse();
      const wantVerified = recorded.filter((a) => a.creators.some((c) => c.address === creator && c.verified)).map((a) => a.id).sort(cmpIds).reverse();
      expect(ids(await list('getAssetsByCreator', { creatorAddress: creator }))).toEqual(wantAll);
      expect(ids(await list('getAssetsByCreator', { creatorAddress: creator, onlyVerified: true }))).toEqual(wantVerified);
    }
  });

  it('searchAssets: negate inverts the conditions, conditionType any ORs them, candidates stay fixed', async () => {
    const owner = '2oerfxddTpK5hWAmCMYB6fr9WvNrjEH54CHCWK8sAq7g';
    const everything = await list('searchAssets', { ownerAddress: owner });
    const byIface = new Map<string, string[]>();
    for (const a of everything.items) byIface.set(a.interface, [...(byIface.get(a.interface) ?? []), a.id]);
    // The owner holds pNFTs (scenario_1) and a fungible token (fungible case), per the reference's recorded outputs.
    expect([...byIface.keys()].sort()).toEqual(['FungibleToken', 'ProgrammableNFT']);
    const pnfts = await list('searchAssets', { ownerAddress: owner, interface: 'ProgrammableNFT' });
    expect(ids(pnfts)).toEqual(byIface.get('ProgrammableNFT'));
    const notPnfts = await list('searchAssets', { ownerAddress: owner, interface: 'ProgrammableNFT', negate: true });
    expect(ids(notPnfts)).toEqual(byIface.get('FungibleToken'));
    const anyOf = await list('searchAssets', { ownerAddress: owner, conditionType: 'any', interface: 'FungibleToken', compressed: true });
    expect(ids(anyOf).sort()).toEqual(everything.items.map((a) => a.id).sort());
    const allOf = await list('searchAssets', { ownerAddress: owner, conditionType: 'all', interface: 'FungibleToken', compressed: true });
    expect(allOf.items).toEqual([]);
    // Candidate filters combine with conditions: the collection restricts the owner's holdings.
    const recorded = (expectedOf(cases.get('search_asset_with_token_type_all_scenario_1')!) as AssetList).items;
    const collection = recorded[0].grouping[0].group_value;
    const inCollection = await list('searchAssets', { ownerAddress: owner, grouping: ['collection', collection] });
    expect(ids(inCollection)).toEqual(recorded.map((a) => a.id));
    const tokenType = await list('searchAssets', { ownerAddress: owner, tokenType: 'regularNft' });
    expect(ids(tokenType)).toEqual(byIface.get('ProgrammableNFT'));
  });

  it('rejects bad parameters with the reference codes and messages', async () => {
    const owner = '2oerfxddTpK5hWAmCMYB6fr9WvNrjEH54CHCWK8sAq7g';
    const cases: [unknown, number, RegExp][] = [
      [{ ownerAddress: owner, page: 0 }, -32000, /^Pagination Error. No Pagination Method Selected$/],
      [{ ownerAddress: owner, limit: 1001 }, -32000, /^Pagination Error. Limit should not be greater than 1000.$/],
      [{ ownerAddress: owner, page: 1, cursor: owner }, -32000, /^Pagination Error. Only one pagination parameter supported per query.$/],
      [{ ownerAddress: owner, before: owner, cursor: owner }, -32000, /^Pagination Error. Only one pagination parameter supported per query.$/],
      [{ ownerAddress: owner, cursor: owner, sortBy: { sortBy: 'updated' } }, -32000, /^Pagination Sorting Error. Only sorting based on id is supported for this pagination option.$/],
      [{ ownerAddress: 'not-a-key' }, -32000, /^Pubkey Validation Err: not-a-key is invalid$/],
      [{ ownerAddress: owner, cursor: '0OIl' }, -32000, /^Cursor Validation Err: 0OIl is invalid$/],
      [{ ownerAddress: owner, sortBy: { sortBy: 'price' } }, -32602, /unknown variant `price`/],
      [{ ownerAddress: owner, sortBy: { sortBy: 'id', sortDirection: 'up' } }, -32602, /sortDirection/],
      [{ ownerAddress: owner, limit: '10' }, -32602, /limit/],
      [{ ownerAddress: owner, colour: 'red' }, -32602, /unknown field `colour`/],
      [{}, -32602, /missing field `ownerAddress`/],
    ];
    for (const [params, code, message] of cases) {
      const r = await callRpc(ta, 'getAssetsByOwner', params);
      expect(r.error, JSON.stringify(params)).toBeDefined();
      expect(r.error!.code, JSON.stringify(params)).toBe(code);
      expect(r.error!.message, JSON.stringify(params)).toMatch(message);
    }
    const s = await callRpc(ta, 'searchAssets', { tokenType: 'gems' });
    expect(s.error?.code).toBe(-32602);
    const g = await callRpc(ta, 'searchAssets', { grouping: ['collection'] });
    expect(g.error?.code).toBe(-32602);
    const n = await callRpc(ta, 'searchAssets', { negate: 'yes' });
    expect(n.error?.code).toBe(-32602);
  });

  it('searchAssets by owner and grouping lists the owner\'s holdings in the group, for every owner and group', async () => {
    const { rows } = await ta.t.db.query<{ owner: string }>(
      `SELECT DISTINCT owner FROM das_assets WHERE owner IS NOT NULL
       UNION SELECT DISTINCT owner FROM token_accounts WHERE owner IS NOT NULL AND NOT closed`,
    );
    let pairs = 0;
    for (const { owner } of rows) {
      const all = await list('searchAssets', { ownerAddress: owner, limit: 1000 });
      const groups = new Set(all.items.flatMap((a) => (a.grouping ?? []).map((g) => `${g.group_key}\u0000${g.group_value}`)));
      for (const g of groups) {
        const [key, value] = g.split('\u0000');
        const want = all.items.filter((a) => (a.grouping ?? []).some((x) => x.group_key === key && x.group_value === value)).map((a) => a.id);
        for (const sortBy of [undefined, { sortBy: 'id', sortDirection: 'asc' }, { sortBy: 'updated', sortDirection: 'desc' }]) {
          const got = await list('searchAssets', { ownerAddress: owner, grouping: [key, value], limit: 1000, ...(sortBy ? { sortBy } : {}) });
          if (!sortBy) expect(ids(got), `${owner} in ${value}`).toEqual(want);
          else if (sortBy.sortBy === 'id') expect(ids(got), `${owner} in ${value}`).toEqual([...want].reverse());
          else expect(ids(got).sort(), `${owner} in ${value}`).toEqual([...want].sort());
        }
        pairs++;
      }
    }
    expect(pairs).toBeGreaterThan(0);
  });

  it('getGrouping counts the verified members of a group', async () => {
    const r = await callRpc(ta, 'getGrouping', { groupKey: 'collection', groupValue: COLLECTION });
    expect(r.result).toEqual({ group_key: 'collection', group_name: COLLECTION, group_size: 3 });
  });

  it('every list query can be answered by an index in its own order (no sort step)', async () => {
    const db = ta.t.db;
    const explain = async (query: ListQuery, p: Record<string, unknown>) => {
      const { sort, pg } = parseListPaging(p);
      const sql = buildListSql(query, sort, pg);
      return db.tx(async (q) => {
        // Tiny tables: make the planner show whether an index CAN deliver the rows in order (a Sort then only
        // appears when none can).
        for (const k of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) await q.query(`SET LOCAL ${k} = off`);
        // The statement a list request runs: the page with its rows' stored documents (migration 031).
        const { rows } = await q.query<Record<string, string>>(`EXPLAIN ${sql.docs}`, sql.params);
        return rows.map((r) => Object.values(r)[0]).join('\n');
      });
    };
    const owner = ownerAssetsQuery('x');
    for (const [p, index] of [[{}, 'das_assets_owner_idx'], [{ sortBy: { sortBy: 'updated', sortDirection: 'asc' } }, 'das_assets_owner_updated_idx'], [{ sortBy: { sortBy: 'created' } }, 'das_assets_owner_created_idx'], [{ cursor: COLLECTION }, 'das_assets_owner_idx']] as const) {
      const plan = await explain(owner, p);
      expect(plan, plan).toContain(index);
      expect(plan, plan).not.toMatch(/\bSort\b/);
    }
    // An owner's holdings in one group (searchAssets owner + grouping): each part is an index range read in id
    // order up to the page's end, the two merged in order.
    const inGroup: ListQuery = { drive: { kind: 'holdings', ownerParam: '$1', group: { keyParam: '$2', valueParam: '$3' } }, where: ['a.supply > 0'], params: ['x', 'collection', 'y'] };
    for (const p of [{}, { sortBy: { sortBy: 'id', sortDirection: 'asc' } }, { cursor: COLLECTION }, { page: 3, limit: 10 }]) {
      const plan = await explain(inGroup, p);
      expect(plan, plan).toContain('das_asset_groups_owner_idx');
      expect(plan, plan).toContain('das_asset_groups_token_owned_idx');
      expect(plan, plan).toContain('Merge Append');
      expect(plan, plan).not.toMatch(/(^|->\s+)Sort\b/m);
    }
    for (const [table, col, index] of [['das_asset_groups', 'group_value', 'das_asset_groups'], ['das_asset_creators', 'creator', 'das_asset_creators'], ['das_asset_authorities', 'authority', 'das_asset_authorities']] as const) {
      const where = table === 'das_asset_groups' ? ["s.group_key = 'collection'", `s.${col} = $1`] : [`s.${col} = $1`];
      for (const [p, suffix] of [[{}, '_idx'], [{ sortBy: { sortBy: 'recent_action' } }, '_updated_idx']] as const) {
        const plan = await explain({ drive: { kind: 'side', table, where }, where: ['a.supply > 0'], params: ['x'] }, p);
        expect(plan, plan).toContain(`${index}${suffix}`);
        expect(plan, plan).not.toMatch(/\bSort\b/);
      }
    }
  });
});

describe('the list index follows ownership changes', () => {
  it('after each transaction of a transfer chain, only the current owner lists the asset', async () => {
    const c = loadCases().find((x) => x.id === 'mint_transfer_transfer')!;
    const t = await createTestApp();
    try {
      await resetChainTables(t.t.db);
      const owners = new Set<string>();
      let assetId: string | undefined;
      for (const group of c.inputs) {
        await applyInputs(t, [group]);
        assetId ??= (c.params as { id: string }).id;
        const asset = (await callRpc(t, 'getAsset', { id: assetId })).result as Asset;
        const owner = asset.ownership.owner;
        owners.add(owner);
        for (const o of owners) {
          const l = (await callRpc(t, 'getAssetsByOwner', { ownerAddress: o })).result as AssetList;
          expect(l.items.map((a) => a.id).includes(assetId), `owner ${o}, current ${owner}`).toBe(o === owner);
          for (const g of asset.grouping ?? []) {
            const s = (await callRpc(t, 'searchAssets', { ownerAddress: o, grouping: [g.group_key, g.group_value] })).result as AssetList;
            expect(s.items.map((a) => a.id).includes(assetId), `owner ${o} in ${g.group_value}, current ${owner}`).toBe(o === owner);
          }
        }
      }
      expect(owners.size).toBeGreaterThan(1);
      // The final owner is the one the reference recorded.
      expect(owners.has((expectedOf(c) as Asset).ownership.owner)).toBe(true);
    } finally {
      await t.close();
    }
  });
});
