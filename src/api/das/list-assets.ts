/**
 * DAS asset lists (getAssetsByOwner/ByGroup/ByCreator/ByAuthority, searchAssets) over the list index (migration
 * 005). A query names the table that drives it (the asset rows, one side table, or an owner's holdings), the
 * filters on the asset row, and the sort; it reads one page of ids walking the index that matches filter and
 * sort (keyset by the id's bytes as the reference orders them; `page` is an offset, as the interface defines
 * it) together with those assets' stored documents (migration 031), in one statement; assets whose document may be
 * stale are rendered with `loadAssets` (api/das/asset-docs.ts).
 */
import { SolgateError } from '../../core/errors.js';
import { docColumnsSql, idKeyHex, type AssetDocRow } from '../../store/das-index.js';
import type { TokenRegistry } from '../../pricing/token-registry.js';
import type { Queryable } from '../../store/db.js';
import { querySolBalance } from '../../store/tokens.js';
import type { AssetJson, DisplayOptions } from './asset-json.js';
import { answersFromDocRows, assetsFromDocRows, loadAssetDocs, passThrough, type AssetAnswer } from './asset-docs.js';
import { addTokenPrices } from './price-info.js';
import { PAGINATION_KEYS, parsePagination, type Pagination } from './pagination.js';
import type { Params } from './params.js';

export type SortKey = 'id' | 'created' | 'recent_action' | 'updated' | 'none';
export interface Sort {
  by: SortKey;
  dir: 'asc' | 'desc';
}

const SORT_KEYS: SortKey[] = ['id', 'created', 'recent_action', 'updated', 'none'];

/** `sortBy: {sortBy, sortDirection}`; the reference's default is id, descending. */
export function parseSort(p: Params): Sort {
  const raw = p.sortBy;
  if (raw === undefined || raw === null) return { by: 'id', dir: 'desc' };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new SolgateError('INVALID_PARAMS', 'Invalid params: `sortBy` must be an object {sortBy, sortDirection}');
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'sortBy' && k !== 'sortDirection') throw new SolgateError('INVALID_PARAMS', `Invalid params: unknown field \`${k}\` in \`sortBy\`, expected \`sortBy\` or \`sortDirection\``);
  const by = o.sortBy ?? 'id';
  const dir = o.sortDirection ?? 'desc';
  if (typeof by !== 'string' || !SORT_KEYS.includes(by as SortKey))
    throw new SolgateError('INVALID_PARAMS', `Invalid params: unknown variant \`${String(by)}\` of \`sortBy.sortBy\`, expected one of ${SORT_KEYS.map((k) => `\`${k}\``).join(', ')}`);
  if (dir !== 'asc' && dir !== 'desc') throw new SolgateError('INVALID_PARAMS', `Invalid params: unknown variant \`${String(dir)}\` of \`sortBy.sortDirection\`, expected \`asc\` or \`desc\``);
  return { by: by as SortKey, dir };
}

/** The pagination and sort of a list request (keyset modes need the id sort, as in the reference). */
export function parseListPaging(p: Params): { sort: Sort; pg: Pagination } {
  const sort = parseSort(p);
  return { sort, pg: parsePagination(p, { sortedById: sort.by === 'id' || sort.by === 'none' }) };
}

export const LIST_KEYS = [...PAGINATION_KEYS, 'sortBy', 'options', 'displayOptions'] as const;

/** What drives a list query. */
export type Drive =
  | { kind: 'assets' }
  | { kind: 'side'; table: 'das_asset_groups' | 'das_asset_creators' | 'das_asset_authorities'; where: string[] }
  /**
   * Assets an owner holds: single-owner assets whose owner it is (an NFT's owner is its holder) plus the
   * token-owned (fungible) mints of its non-empty token accounts. The two parts are disjoint (UNION ALL, no
   * de-duplication of wide rows). The mints are collected first (`= ANY(ARRAY(…))`), so each is one
   * primary-key probe; as a semi-join the planner may hash the whole asset table for owners with thousands of
   * token accounts.
   */
  | { kind: 'holdings'; ownerParam: string; zeroBalance?: boolean; group?: { keyParam: string; valueParam: string } };

export interface ListQuery {
  drive: Drive;
  /** Conditions on the asset row `a`, ANDed. */
  where: string[];
  params: unknown[];
}

/** Adds a parameter and returns its placeholder. */
export function bind(query: ListQuery, v: unknown): string {
  query.params.push(v);
  return `$${query.params.length}`;
}

/** One part of a list query: its FROM, the alias its sort keys are read from, and conditions of its own. */
interface FromPart {
  from: string;
  k: string;
  where?: string[];
}

function fromClause(q: ListQuery): FromPart | FromPart[] {
  const d = q.drive;
  if (d.kind === 'assets') return { from: 'das_assets a', k: 'a' };
  if (d.kind === 'side') return { from: `${d.table} s JOIN das_assets a ON a.id = s.asset_id`, k: 's' };
  const o = d.ownerParam;
  if (d.group) {
    // Holdings in one group (migration 029): the group rows carry the owner an asset is listed under directly, so
    // the owner's direct holdings in the group are one index range in id order; the group's token-owned members
    // (rare in collections) are checked against the owner's token accounts. Two parts, each read in index order
    // up to the page's end and merged in order (Merge Append; a plain UNION ALL of joins would be sorted whole).
    const { keyParam: gk, valueParam: gv } = d.group;
    const from = 'das_asset_groups g JOIN das_assets a ON a.id = g.asset_id';
    return [
      { from, k: 'g', where: [`g.group_key = ${gk}`, `g.group_value = ${gv}`, `g.owner = ${o}`] },
      {
        from,
        k: 'g',
        where: [`g.group_key = ${gk}`, `g.group_value = ${gv}`, 'g.token_owned',
          `EXISTS (SELECT 1 FROM token_accounts ta WHERE ta.owner = ${o} AND ta.mint = g.asset_id${d.zeroBalance ? '' : ' AND ta.amount > 0'} AND NOT ta.closed)`],
      },
    ];
  }
  return {
    from: `(SELECT x.* FROM das_assets x WHERE x.owner = ${o} AND (x.supply_mint IS NULL OR x.owner_type = 'single')
             UNION ALL
            SELECT x.* FROM das_assets x WHERE x.id = ANY(ARRAY(SELECT ta.mint FROM token_accounts ta
                                                  WHERE ta.owner = ${o}${d.zeroBalance ? '' : ' AND ta.amount > 0'} AND NOT ta.closed AND ta.mint IS NOT NULL))
                                         AND x.owner_type = 'token' AND x.supply_mint IS NOT NULL) a`,
    k: 'a',
  };
}

function sortColumn(sort: Sort, k: string): string | null {
  if (sort.by === 'created') return `${k}.created_slot`;
  if (sort.by === 'updated' || sort.by === 'recent_action') return `${k}.updated_slot`;
  return null;
}

export interface ListPage {
  ids: string[];
  grandTotal?: number;
}

/**
 * The SQL of one page (and of the count of all matches) of a list query: `page` selects the ids; `docs` the same
 * rows with their stored documents (`docColumnsSql`: document, staleness, off-chain content), in page order.
 */
export function buildListSql(query: ListQuery, sort: Sort, pg: Pagination): { page: string; docs: string; count: string; params: unknown[]; countParams: unknown[] } {
  const q: ListQuery = { ...query, where: [...query.where, ...(query.drive.kind === 'side' ? query.drive.where : [])], params: [...query.params] };
  const fc = fromClause(q);
  const dir = sort.dir === 'asc' ? 'ASC' : 'DESC';
  const order = (k: string) => {
    const col = sortColumn(sort, k);
    return col ? `${col} ${dir}, ${k}.id_key ${dir}` : `${k}.id_key ${dir}`;
  };
  const countParams = [...q.params];
  // Keyset bounds on the id bytes, as [operator, placeholder].
  const bounds: [string, string][] = [];
  let offset = '';
  if (pg.mode === 'page') offset = ` OFFSET ${(pg.page - 1) * pg.limit}`;
  else if (pg.mode === 'cursor') {
    if (pg.cursor) bounds.push([sort.dir === 'asc' ? '>' : '<', bind(q, idKeyHex(pg.cursor))]);
  } else {
    if (pg.before) bounds.push(['<', bind(q, idKeyHex(pg.before))]);
    if (pg.after) bounds.push(['>', bind(q, idKeyHex(pg.after))]);
  }
  const keyset = (k: string) => bounds.map(([op, ph]) => `${k}.id_key ${op} decode(${ph}, 'hex')`);
  const where = (extra: string[]) => {
    const all = [...q.where, ...extra];
    return all.length ? ` WHERE ${all.map((c) => `(${c})`).join(' AND ')}` : '';
  };
  // The page's rows wrapped by a plain subquery scan (no join: the page's order is kept), each row's document
  // columns computed for the page's rows only.
  const docCols = (k: string) => ['doc', 'owner_type', 'json_uri'].map((c) => `, ${k}.${c}`).join('');
  const docs = (inner: string) => `SELECT ${docColumnsSql('p')} FROM (${inner}) p`;
  if (!Array.isArray(fc)) {
    const page = (cols: string) => `SELECT ${cols} FROM ${fc.from}${where(keyset(fc.k))} ORDER BY ${order(fc.k)} LIMIT ${pg.limit}${offset}`;
    return {
      page: page('a.id'),
      docs: docs(page(`a.id${docCols('a')}`)),
      count: `SELECT count(*)::text AS n FROM ${fc.from}${where([])}`,
      params: q.params,
      countParams,
    };
  }
  // Disjoint parts: each read in its own order up to the end of the page, then merged.
  const end = pg.limit + (pg.mode === 'page' ? (pg.page - 1) * pg.limit : 0);
  const parts = (cols: string) =>
    fc.map((f) => `(SELECT a.id, ${f.k}.id_key, ${f.k}.created_slot, ${f.k}.updated_slot${cols} FROM ${f.from}${where([...(f.where ?? []), ...keyset(f.k)])} ORDER BY ${order(f.k)} LIMIT ${end})`);
  return {
    page: `SELECT m.id FROM (${parts('').join(' UNION ALL ')}) m ORDER BY ${order('m')} LIMIT ${pg.limit}${offset}`,
    docs: docs(`SELECT m.id${docCols('m')} FROM (${parts(docCols('a')).join(' UNION ALL ')}) m ORDER BY ${order('m')} LIMIT ${pg.limit}${offset}`),
    count: `SELECT count(*)::text AS n FROM (${fc.map((f) => `SELECT 1 FROM ${f.from}${where(f.where ?? [])}`).join(' UNION ALL ')}) m`,
    params: q.params,
    countParams,
  };
}

/**
 * Lists keep their statement's plan (planning a union of parts was most of a small page's SQL time) for the texts
 * that repeat: first pages and keyset pages. A `page` beyond the first has its offset in the text; not kept.
 */
const keepPlan = (pg: Pagination) => ({ prepare: pg.mode !== 'page' || pg.page === 1 });

/** One page of asset ids, plus the count of all matches when asked (both queries at once). */
export async function listAssetIds(db: Queryable, query: ListQuery, sort: Sort, pg: Pagination, grandTotal: boolean): Promise<ListPage> {
  const sql = buildListSql(query, sort, pg);
  const [{ rows }, total] = await Promise.all([
    db.query<{ id: string }>(sql.page, sql.params, keepPlan(pg)),
    grandTotal ? db.query<{ n: string }>(sql.count, sql.countParams) : null,
  ]);
  return { ids: rows.map((r) => r.id), ...(total ? { grandTotal: Number(total.rows[0].n) } : {}) };
}

/** One page of the list's rows with their stored documents, plus the count of all matches when asked (both queries at once). */
export async function listAssetDocs(db: Queryable, query: ListQuery, sort: Sort, pg: Pagination, grandTotal: boolean): Promise<{ rows: AssetDocRow[]; grandTotal?: number }> {
  const sql = buildListSql(query, sort, pg);
  const [{ rows }, total] = await Promise.all([
    db.query<AssetDocRow>(sql.docs, sql.params, keepPlan(pg)),
    grandTotal ? db.query<{ n: string }>(sql.count, sql.countParams) : null,
  ]);
  return { rows, ...(total ? { grandTotal: Number(total.rows[0].n) } : {}) };
}

/** Renders a page of ids in order (ids whose asset vanished meanwhile are skipped). */
export async function renderPage(db: Queryable, ids: string[], opts: DisplayOptions): Promise<AssetJson[]> {
  const assets = await loadAssetDocs(db, ids, opts);
  return ids.flatMap((id) => (assets.has(id) ? [assets.get(id)!] : []));
}

/**
 * The AssetList result (reference shape: `page` in page mode, `before`/`after` in keyset mode, `cursor` otherwise);
 * `ids`, the items' ids.
 */
export function assetList(pg: Pagination, items: AssetAnswer[], page: ListPage, ids: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { total: items.length, limit: pg.limit };
  if (pg.mode === 'page') out.page = pg.page;
  else if (pg.mode === 'keyset') {
    if (pg.before) out.before = pg.before;
    if (pg.after) out.after = pg.after;
  } else if (items.length) out.cursor = ids[ids.length - 1];
  out.items = items;
  if (page.grandTotal !== undefined) out.grand_total = page.grandTotal;
  return out;
}

/**
 * Fungible holdings in an owner's list show the owner's side: `ownership.owner` is the owner, `token_info`
 * carries its balance and token account (the largest when it has several).
 */
export async function withOwnerBalances(db: Queryable, owner: string, items: AssetJson[]): Promise<void> {
  const fungible = items.filter((a) => (a.ownership as Record<string, unknown> | undefined)?.ownership_model === 'token');
  if (!fungible.length) return;
  const { rows } = await db.query<{ mint: string; address: string; amount: string }>(
    `SELECT DISTINCT ON (mint) mint, address, amount::text FROM token_accounts
      WHERE owner = $1 AND mint = ANY($2::text[]) AND NOT closed ORDER BY mint, amount DESC, address`,
    [owner, fungible.map((a) => String(a.id))],
  );
  const byMint = new Map(rows.map((r) => [r.mint, r]));
  for (const a of fungible) {
    const acct = byMint.get(String(a.id));
    if (!acct) continue;
    (a.ownership as Record<string, unknown>).owner = owner;
    if (a.token_info && typeof a.token_info === 'object') {
      const ti = a.token_info as Record<string, unknown>;
      ti.balance = Number(acct.amount);
      ti.associated_token_address = acct.address;
    }
  }
}

const WSOL = 'So11111111111111111111111111111111111111112';

/**
 * `nativeBalance` of an owner's list (showNativeBalance): its indexed lamports, and their value at the token
 * registry's SOL price (chain-derived or overridden, docs/prices.md; 0 when none is usable).
 */
export async function nativeBalance(db: Queryable, owner: string, tokens?: TokenRegistry): Promise<{ lamports: number; price_per_sol: number; total_price: number }> {
  const [balance, prices] = await Promise.all([
    querySolBalance(db, owner),
    tokens ? tokens.lookup([WSOL]) : Promise.resolve(new Map<string, { priceUsd?: number | null }>()),
  ]);
  const lamports = Number(balance ?? 0n);
  const price = prices.get(WSOL)?.priceUsd ?? 0;
  return { lamports, price_per_sol: price, total_price: (lamports / 1e9) * price };
}

/**
 * Runs a list query and renders its AssetList (fungible holdings shown from `owner`'s side when given; the
 * owner's `nativeBalance` with showNativeBalance; fungibles' `token_info.symbol`/`price_info` from `tokens`).
 */
export async function answerList(
  db: Queryable,
  query: ListQuery,
  p: Params,
  opts: DisplayOptions,
  owner?: string,
  tokens?: TokenRegistry,
): Promise<Record<string, unknown>> {
  const { sort, pg } = parseListPaging(p);
  const [docs, native] = await Promise.all([
    listAssetDocs(db, query, sort, pg, opts.showGrandTotal),
    owner && opts.showNativeBalance ? nativeBalance(db, owner, tokens) : Promise.resolve(undefined),
  ]);
  const page: ListPage = { ids: docs.rows.map((r) => r.id), ...(docs.grandTotal !== undefined ? { grandTotal: docs.grandTotal } : {}) };
  let out: Record<string, unknown>;
  if (passThrough(opts)) {
    // Without options that add data, current documents are answered as their text (api/wire/json.ts writes it as is).
    const answers = await answersFromDocRows(db, docs.rows, opts);
    const ids = page.ids.filter((id) => answers.has(id));
    out = assetList(pg, ids.map((id) => answers.get(id)!), page, ids);
  } else {
    const assets = await assetsFromDocRows(db, docs.rows, opts);
    const ids = page.ids.filter((id) => assets.has(id));
    const items = ids.map((id) => assets.get(id)!);
    if (owner && opts.showFungible) await withOwnerBalances(db, owner, items);
    if (opts.showFungible) await addTokenPrices(items, tokens);
    out = assetList(pg, items, page, ids);
  }
  if (native) out.nativeBalance = native;
  return out;
}

/** The live single-owner assets of `owner` (getAssetsByOwner without showFungible; the wallet's NFTs). */
export function ownerAssetsQuery(owner: string): ListQuery {
  const query: ListQuery = { drive: { kind: 'assets' }, where: [], params: [] };
  query.where.push(`a.owner = ${bind(query, owner)}`, "a.owner_type = 'single'", 'a.supply > 0', 'NOT a.burnt');
  return query;
}

/** The filters the by-group/creator/authority lists share with the reference: live supply, single owners unless fungibles are asked for. */
export function commonListFilters(opts: DisplayOptions): string[] {
  return ['a.supply > 0', ...(opts.showFungible ? [] : ["a.owner_type = 'single'"])];
}
