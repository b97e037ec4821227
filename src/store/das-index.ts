/**
 * Table family "DAS index" (migration 005): the per-asset list columns (das_assets), its one-to-many side tables
 * (creators, authorities, groups) and the dirty set that tells the refresher which assets to re-derive.
 * Writers here are used by the refresher (ingest/asset-index.ts); `dirtyStatement` rides along with every block
 * write so a change and its dirty mark commit together.
 */
import type { Queryable } from './db.js';
import { bulkInsertStatement, run, type Statement } from './bulk.js';
import { base58ToBytes } from '../core/encoding.js';

/** The id as the hex of its 32 bytes (the byte order the reference sorts ids by). */
export function idKeyHex(id: string): string {
  return Buffer.from(base58ToBytes(id)).toString('hex');
}

/**
 * Marks addresses whose rows changed (null when none). A mark that already exists is locked by a no-op update rather
 * than left alone (DO NOTHING takes no lock): otherwise the refresher could claim it while this write is still
 * uncommitted, derive the asset from the state before the write and consume the only mark, losing the change. Locked,
 * the refresher's `SKIP LOCKED` leaves it for a later round; claimed first, this insert waits and re-creates it.
 */
export function dirtyStatement(keys: Iterable<string>): Statement | null {
  const uniq = [...new Set(keys)];
  return bulkInsertStatement('das_dirty', [{ name: 'key', type: 'text', get: (k: string) => k }], uniq, 'ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key');
}

/**
 * Takes up to `limit` dirty keys: deleted now, restored by a rollback if the refresh fails. A writer marking one
 * of them again meanwhile waits for this transaction and then re-inserts it, so no change goes unseen.
 */
export async function claimDirty(q: Queryable, limit: number): Promise<string[]> {
  const { rows } = await q.query<{ key: string }>(
    `DELETE FROM das_dirty WHERE key IN (SELECT key FROM das_dirty LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING key`,
    [limit],
  );
  return rows.map((r) => r.key);
}

export async function countDirty(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: string }>('SELECT count(*)::text AS n FROM das_dirty');
  return Number(rows[0].n);
}

/**
 * The assets that changed addresses may describe: the address itself, the mint of a token account, the asset of
 * a Token Metadata / inscription account, the mint of an edition account, the members of an MPL Core
 * collection (whose rendered authority is the collection's: a Core asset's row carries its own address as asset
 * id, so members are found by kind and collection alone). Only ids that have asset sources (or an index row to remove) are returned.
 */
export async function resolveAssetIds(q: Queryable, keys: string[]): Promise<string[]> {
  if (!keys.length) return [];
  const { rows } = await q.query<{ id: string }>(
    `WITH k AS (SELECT DISTINCT unnest($1::text[]) AS key),
     ids AS (
       SELECT key AS id FROM k
       UNION SELECT ta.mint FROM token_accounts ta JOIN k ON ta.address = k.key WHERE ta.mint IS NOT NULL
       UNION SELECT aa.asset_id FROM asset_accounts aa JOIN k ON aa.address = k.key WHERE aa.asset_id IS NOT NULL
       UNION SELECT em.mint FROM tm_edition_mints em JOIN k ON em.edition = k.key
       UNION SELECT aa.address FROM asset_accounts aa JOIN k ON aa.collection = k.key
              WHERE aa.kind IN ('core.asset', 'core.closed')
     )
     SELECT id FROM ids
      WHERE EXISTS (SELECT 1 FROM asset_accounts a WHERE a.address = ids.id)
         OR EXISTS (SELECT 1 FROM asset_accounts a WHERE a.asset_id = ids.id)
         OR EXISTS (SELECT 1 FROM cnft_assets c WHERE c.asset_id = ids.id)
         OR EXISTS (SELECT 1 FROM token_extensions e WHERE e.target = ids.id)
         OR EXISTS (SELECT 1 FROM das_assets d WHERE d.id = ids.id)`,
    [keys],
  );
  return rows.map((r) => r.id);
}

/**
 * First and latest slot of each asset's sources: its accounts, its mint, the token accounts of NFT-like
 * (0-decimals) mints, and the Bubblegum instructions on it. Fungible mints' many holders are not scanned.
 */
export async function assetSourceSlots(q: Queryable, ids: string[]): Promise<Map<string, { first: number; last: number }>> {
  const out = new Map<string, { first: number; last: number }>();
  if (!ids.length) return out;
  const { rows } = await q.query<{ id: string; first: string; last: string }>(
    `WITH ids AS (SELECT DISTINCT unnest($1::text[]) AS id),
     s AS (
       SELECT a.address AS id, a.slot AS first, a.slot AS last FROM asset_accounts a JOIN ids ON a.address = ids.id
       UNION ALL SELECT a.asset_id, a.slot, a.slot FROM asset_accounts a JOIN ids ON a.asset_id = ids.id
       UNION ALL SELECT m.address, LEAST(m.init_pos, m.supply_pos, m.mint_authority_pos, m.freeze_authority_pos) / 1000000,
                        GREATEST(m.init_pos, m.supply_pos, m.mint_authority_pos, m.freeze_authority_pos) / 1000000
                   FROM mints m JOIN ids ON m.address = ids.id
       UNION ALL SELECT t.mint, min(LEAST(t.owner_pos, t.amount_pos, t.delegate_pos, t.frozen_pos)) / 1000000,
                        max(GREATEST(t.owner_pos, t.amount_pos, t.delegate_pos, t.frozen_pos)) / 1000000
                   FROM token_accounts t JOIN ids ON t.mint = ids.id JOIN mints m ON m.address = t.mint AND m.decimals = 0
                  GROUP BY t.mint
       UNION ALL SELECT c.asset_id, min(c.slot), max(c.slot) FROM cnft_signatures c JOIN ids ON c.asset_id = ids.id GROUP BY c.asset_id
     )
     SELECT id, min(first)::text AS first, max(last)::text AS last FROM s WHERE first IS NOT NULL OR last IS NOT NULL GROUP BY id`,
    [ids],
  );
  for (const r of rows) out.set(r.id, { first: Number(r.first ?? r.last), last: Number(r.last ?? r.first) });
  return out;
}

/** One asset's list columns. */
export interface DasIndexRow {
  id: string;
  interface: string;
  owner: string | null;
  ownerType: string;
  delegate: string | null;
  frozen: boolean;
  supply: bigint;
  supplyMint: string | null;
  compressed: boolean;
  tree: string | null;
  royaltyTargetType: string | null;
  royaltyTarget: string | null;
  royaltyAmount: number | null;
  burnt: boolean;
  jsonUri: string | null;
  name: string | null;
  createdSlot: number;
  updatedSlot: number;
  creators: { address: string; verified: boolean }[];
  authorities: { address: string; scopes: string[] }[];
  groups: { key: string; value: string; verified: boolean }[];
  /** The rendered DAS object's JSON text (migration 031; null: reads render the asset from its sources). */
  doc: string | null;
}

type Keyed<T> = T & { asset: string; hex: string; created: number; updated: number };

/**
 * Replaces the index rows of `rows` (created slot kept from the first derivation, updated slot never moving
 * back) and removes the rows of `removed` ids, side tables included.
 */
export async function writeIndexRows(q: Queryable, rows: DasIndexRow[], removed: string[]): Promise<void> {
  const all = [...rows.map((r) => r.id), ...removed];
  if (!all.length) return;
  await q.query('DELETE FROM das_asset_creators WHERE asset_id = ANY($1::text[])', [all]);
  await q.query('DELETE FROM das_asset_authorities WHERE asset_id = ANY($1::text[])', [all]);
  await q.query('DELETE FROM das_asset_groups WHERE asset_id = ANY($1::text[])', [all]);
  if (removed.length) await q.query('DELETE FROM das_assets WHERE id = ANY($1::text[])', [removed]);
  if (!rows.length) return;

  const withHex = rows.map((r) => ({ ...r, hex: idKeyHex(r.id) }));
  const { rows: stored } = await q.query<{ id: string; created_slot: string; updated_slot: string }>(
    `INSERT INTO das_assets AS t (id, id_key, interface, owner, owner_type, delegate, frozen, supply, supply_mint, compressed, tree,
        royalty_target_type, royalty_target, royalty_amount, burnt, json_uri, name, created_slot, updated_slot, doc)
     SELECT u.id, decode(u.hex, 'hex'), u.interface, u.owner, u.owner_type, u.delegate, u.frozen, u.supply, u.supply_mint, u.compressed,
        u.tree, u.rtt, u.rt, u.ra, u.burnt, u.json_uri, u.name, u.created_slot, u.updated_slot, u.doc
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::numeric[], $9::text[],
                   $10::boolean[], $11::text[], $12::text[], $13::text[], $14::int[], $15::boolean[], $16::text[], $17::text[],
                   $18::bigint[], $19::bigint[], $20::text[])
         AS u(id, hex, interface, owner, owner_type, delegate, frozen, supply, supply_mint, compressed, tree, rtt, rt, ra, burnt, json_uri,
              name, created_slot, updated_slot, doc)
     ON CONFLICT (id) DO UPDATE SET interface = EXCLUDED.interface, owner = EXCLUDED.owner, owner_type = EXCLUDED.owner_type,
        delegate = EXCLUDED.delegate, frozen = EXCLUDED.frozen, supply = EXCLUDED.supply, supply_mint = EXCLUDED.supply_mint,
        compressed = EXCLUDED.compressed, tree = EXCLUDED.tree, royalty_target_type = EXCLUDED.royalty_target_type,
        royalty_target = EXCLUDED.royalty_target, royalty_amount = EXCLUDED.royalty_amount, burnt = EXCLUDED.burnt,
        json_uri = EXCLUDED.json_uri, name = EXCLUDED.name, doc = EXCLUDED.doc,
        created_slot = LEAST(t.created_slot, EXCLUDED.created_slot), updated_slot = GREATEST(t.updated_slot, EXCLUDED.updated_slot)
     RETURNING id, created_slot::text, updated_slot::text`,
    [
      withHex.map((r) => r.id),
      withHex.map((r) => r.hex),
      withHex.map((r) => r.interface),
      withHex.map((r) => r.owner),
      withHex.map((r) => r.ownerType),
      withHex.map((r) => r.delegate),
      withHex.map((r) => r.frozen),
      withHex.map((r) => r.supply.toString()),
      withHex.map((r) => r.supplyMint),
      withHex.map((r) => r.compressed),
      withHex.map((r) => r.tree),
      withHex.map((r) => r.royaltyTargetType),
      withHex.map((r) => r.royaltyTarget),
      withHex.map((r) => r.royaltyAmount),
      withHex.map((r) => r.burnt),
      withHex.map((r) => r.jsonUri),
      withHex.map((r) => r.name),
      withHex.map((r) => r.createdSlot),
      withHex.map((r) => r.updatedSlot),
      withHex.map((r) => r.doc),
    ],
  );
  const slots = new Map(stored.map((s) => [s.id, { created: Number(s.created_slot), updated: Number(s.updated_slot) }]));
  const keyed = <T>(r: (typeof withHex)[number], x: T): Keyed<T> => ({ ...x, asset: r.id, hex: r.hex, created: slots.get(r.id)!.created, updated: slots.get(r.id)!.updated });
  const common = <T>() => [
    { name: 'asset_id', type: 'text', get: (x: Keyed<T>) => x.asset },
    { name: 'id_key', type: 'text', get: (x: Keyed<T>) => x.hex },
    { name: 'created_slot', type: 'bigint', get: (x: Keyed<T>) => x.created },
    { name: 'updated_slot', type: 'bigint', get: (x: Keyed<T>) => x.updated },
  ];
  const sel = (cols: string[]) => ['asset_id', "decode(id_key, 'hex')", 'created_slot', 'updated_slot', ...cols].join(', ');

  const creators = withHex.flatMap((r) => dedupe(r.creators, (c) => c.address).map((c, position) => keyed(r, { ...c, position })));
  await run(q, bulkInsertStatement('das_asset_creators', [
    ...common<{ address: string; verified: boolean; position: number }>(),
    { name: 'creator', type: 'text', get: (x) => x.address },
    { name: 'position', type: 'int', get: (x) => x.position },
    { name: 'verified', type: 'boolean', get: (x) => x.verified },
  ], creators, '', sel(['creator', 'position', 'verified'])));

  const authorities = withHex.flatMap((r) => dedupe(r.authorities, (a) => a.address).map((a) => keyed(r, a)));
  await run(q, bulkInsertStatement('das_asset_authorities', [
    ...common<{ address: string; scopes: string[] }>(),
    { name: 'authority', type: 'text', get: (x) => x.address },
    { name: 'scopes', type: 'text', get: (x) => x.scopes.join(',') },
  ], authorities, '', sel(['authority', "string_to_array(scopes, ',')"])));

  // The owner the asset is listed under directly, and whether it is listed through token accounts instead (the two
  // parts of an owner's holdings, list-assets.ts): owner+group searches walk one index range (migration 029).
  const groups = withHex.flatMap((r) => {
    const tokenOwned = r.ownerType === 'token' && r.supplyMint !== null;
    const owner = r.supplyMint === null || r.ownerType === 'single' ? r.owner : null;
    return dedupe(r.groups, (g) => `${g.key}\u0000${g.value}`).map((g) => keyed(r, { ...g, owner, tokenOwned }));
  });
  await run(q, bulkInsertStatement('das_asset_groups', [
    ...common<{ key: string; value: string; verified: boolean; owner: string | null; tokenOwned: boolean }>(),
    { name: 'group_key', type: 'text', get: (x) => x.key },
    { name: 'group_value', type: 'text', get: (x) => x.value },
    { name: 'verified', type: 'boolean', get: (x) => x.verified },
    { name: 'owner', type: 'text', get: (x) => x.owner },
    { name: 'token_owned', type: 'boolean', get: (x) => x.tokenOwned },
  ], groups, '', sel(['group_key', 'group_value', 'verified', 'owner', 'token_owned'])));
}

/**
 * SQL of whether the stored document of the das_assets row aliased `a` may be older than its sources: a dirty mark
 * is pending that the refresher would resolve to this asset (`das_doc_stale`, migration 031: `resolveAssetIds` read
 * backwards). Marks are written in the transaction of the change they mark and deleted in the refresher's
 * transaction that rewrites the document, so in one statement's snapshot a document without a pending mark is the
 * rendering of the sources that snapshot sees. With no mark at all (an idle refresher) only one probe of das_dirty
 * runs and the function is never called.
 */
export function docStaleSql(a: string): string {
  return `(EXISTS (SELECT 1 FROM das_dirty) AND das_doc_stale(${a}.id, ${a}.owner_type))`;
}

/** A stored document as a read takes it: null `doc` or `stale` means "render from the sources". */
export interface AssetDocRow {
  id: string;
  doc: string | null;
  stale: boolean;
  /** The fetched off-chain document at the asset's json_uri (null while none is fetched). */
  offchain: Record<string, unknown> | null;
}

/**
 * The columns a document read selects over a query `p` that yields das_assets rows' id, doc, owner_type and json_uri
 * (the off-chain document joined by its uri, as `getOffchainContents` reads it).
 */
export function docColumnsSql(p: string): string {
  return `${p}.id, ${p}.doc, ${docStaleSql(p)} AS stale,
          (SELECT o.content FROM offchain_metadata o WHERE o.uri = ${p}.json_uri AND ${p}.json_uri <> '' AND o.content IS NOT NULL) AS offchain`;
}

/**
 * The stored documents of `ids` (ids without an index row are absent), in one statement: `das_asset_docs` (migration
 * 039), the `docColumnsSql` read of those ids in a PL/pgSQL function whose plan each connection keeps (planning the
 * statement cost several times its execution).
 */
export async function readAssetDocs(q: Queryable, ids: string[]): Promise<AssetDocRow[]> {
  if (!ids.length) return [];
  const { rows } = await q.query<AssetDocRow>('SELECT id, doc, stale, offchain FROM das_asset_docs($1::text[])', [ids]);
  return rows;
}

function dedupe<T>(xs: T[], key: (x: T) => string): T[] {
  const seen = new Set<string>();
  return xs.filter((x) => (seen.has(key(x)) ? false : (seen.add(key(x)), true)));
}
