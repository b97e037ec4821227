/**
 * Table family "asset accounts": decoded Token Metadata / MPL Core / inscription accounts, the latest state per
 * account. A row is replaced only by a state at a later (slot, write version) — an older update is stale and
 * rejected, as the DAS reference does per account.
 */
import type { Queryable } from './db.js';
import { bulkInsert, dedupeBy } from './bulk.js';

export interface AssetAccountRow {
  address: string;
  kind: string;
  assetId: string | null;
  owner: string | null;
  collection: string | null;
  /** JSON-safe decoded account. */
  data: Record<string, unknown>;
  slot: number;
  writeVersion: bigint;
}

const newer = (a: AssetAccountRow, b: AssetAccountRow) =>
  a.slot > b.slot || (a.slot === b.slot && a.writeVersion >= b.writeVersion);

export async function writeAssetAccounts(q: Queryable, rows: AssetAccountRow[]): Promise<void> {
  const uniq = dedupeBy(rows, (r) => r.address, newer);
  await bulkInsert(
    q,
    'asset_accounts',
    [
      { name: 'address', type: 'text', get: (r: AssetAccountRow) => r.address },
      { name: 'kind', type: 'text', get: (r) => r.kind },
      { name: 'asset_id', type: 'text', get: (r) => r.assetId },
      { name: 'owner', type: 'text', get: (r) => r.owner },
      { name: 'collection', type: 'text', get: (r) => r.collection },
      { name: 'data', type: 'jsonb', get: (r) => JSON.stringify(r.data) },
      { name: 'slot', type: 'bigint', get: (r) => r.slot },
      { name: 'write_version', type: 'numeric', get: (r) => r.writeVersion },
    ],
    uniq,
    // A closed account (tm.closed / core.closed) is a newer state, but its decoded data is empty: keep the last
    // known data so the asset still renders (as burnt).
    `ON CONFLICT (address) DO UPDATE SET kind = EXCLUDED.kind,
       asset_id = COALESCE(EXCLUDED.asset_id, t.asset_id), owner = EXCLUDED.owner, collection = EXCLUDED.collection,
       data = CASE WHEN EXCLUDED.kind LIKE '%.closed' THEN t.data || EXCLUDED.data ELSE EXCLUDED.data END,
       slot = EXCLUDED.slot, write_version = EXCLUDED.write_version
     WHERE (EXCLUDED.slot, EXCLUDED.write_version) > (t.slot, t.write_version)`,
  );
}

/** The JSON form of a stored Token Metadata `tm.metadata` row's data (u64 values as strings or numbers). */
export interface StoredTmMetadata {
  address: string;
  updateAuthority: string;
  mint: string;
  name: string;
  symbol: string;
  uri: string;
  sellerFeeBasisPoints: number;
  creators: { address: string; verified: boolean; share: number }[] | null;
  primarySaleHappened: boolean;
  isMutable: boolean;
  editionNonce: number | null;
  tokenStandard: string | null;
  collection: { key: string; verified: boolean } | null;
  uses: { useMethod: string; remaining: string | number; total: string | number } | null;
  collectionDetails: { version: string; size?: string | number } | null;
}

/** A stored row as reads return it. */
export type StoredAssetAccount = Omit<AssetAccountRow, 'writeVersion'>;

type Row = { address: string; kind: string; asset_id: string | null; owner: string | null; collection: string | null; data: Record<string, unknown>; slot: number };
const stored = (r: Row): StoredAssetAccount => ({ address: r.address, kind: r.kind, assetId: r.asset_id, owner: r.owner, collection: r.collection, data: r.data, slot: Number(r.slot) });

/**
 * The (master) edition account of each mint, found through the edition → mint links written with every
 * 0-decimals mint (tm_edition_mints): `null` when the mint is linked but its edition account is unknown; mints
 * without a link (their mint account was never seen) are absent, so the caller derives their edition PDA.
 */
export async function getEditionAccountsByMint(q: Queryable, mints: string[]): Promise<Map<string, StoredAssetAccount | null>> {
  const out = new Map<string, StoredAssetAccount | null>();
  if (!mints.length) return out;
  const { rows } = await q.query<Row & { mint: string; linked: string }>(
    `SELECT l.mint, l.edition AS linked, a.address, a.kind, a.asset_id, a.owner, a.collection, a.data, a.slot
       FROM tm_edition_mints l LEFT JOIN asset_accounts a ON a.address = l.edition
      WHERE l.mint = ANY($1::text[])`,
    [mints],
  );
  for (const r of rows) out.set(r.mint, r.address === null ? null : stored(r));
  return out;
}

/**
 * What rendering reads first about a set of ids, in one statement: the rows at those addresses (Core assets), the
 * Token Metadata rows describing them (by mint), and the edition links of those mints (as
 * `getEditionAccountsByMint`; ids that are no mints have none). Each part keeps the row order of its own query.
 */
export async function getAssetSources(q: Queryable, ids: string[]): Promise<{
  direct: Map<string, StoredAssetAccount>;
  metas: Map<string, StoredAssetAccount>;
  editions: Map<string, StoredAssetAccount | null>;
}> {
  const direct = new Map<string, StoredAssetAccount>();
  const metas = new Map<string, StoredAssetAccount>();
  const editions = new Map<string, StoredAssetAccount | null>();
  if (!ids.length) return { direct, metas, editions };
  const { rows } = await q.query<Row & { part: string; key: string }>(
    `SELECT * FROM (
       SELECT 'd' AS part, address AS key, address, kind, asset_id, owner, collection, data, slot FROM asset_accounts WHERE address = ANY($1::text[])
     ) d
     UNION ALL
     SELECT * FROM (
       SELECT 'm', asset_id, address, kind, asset_id, owner, collection, data, slot FROM asset_accounts
        WHERE asset_id = ANY($1::text[]) AND kind IN ('tm.metadata', 'tm.closed')
     ) m
     UNION ALL
     SELECT * FROM (
       SELECT 'e', l.mint, a.address, a.kind, a.asset_id, a.owner, a.collection, a.data, a.slot
         FROM tm_edition_mints l LEFT JOIN asset_accounts a ON a.address = l.edition
        WHERE l.mint = ANY($1::text[])
     ) e`,
    [ids],
  );
  for (const r of rows) {
    if (r.part === 'd') direct.set(r.key, stored(r));
    else if (r.part === 'm') metas.set(r.key, stored(r));
    else editions.set(r.key, r.address === null ? null : stored(r));
  }
  return { direct, metas, editions };
}

/** Rows by account address. */
export async function getAssetAccounts(q: Queryable, addresses: string[]): Promise<Map<string, StoredAssetAccount>> {
  const out = new Map<string, StoredAssetAccount>();
  if (!addresses.length) return out;
  const { rows } = await q.query<{ address: string; kind: string; asset_id: string | null; owner: string | null; collection: string | null; data: Record<string, unknown>; slot: number }>(
    'SELECT address, kind, asset_id, owner, collection, data, slot FROM asset_accounts WHERE address = ANY($1::text[])',
    [addresses],
  );
  for (const r of rows) out.set(r.address, { address: r.address, kind: r.kind, assetId: r.asset_id, owner: r.owner, collection: r.collection, data: r.data, slot: Number(r.slot) });
  return out;
}

/** Token Metadata rows by the asset (mint) they describe. */
export async function getMetadataByMint(q: Queryable, mints: string[]): Promise<Map<string, StoredAssetAccount>> {
  const out = new Map<string, StoredAssetAccount>();
  if (!mints.length) return out;
  const { rows } = await q.query<{ address: string; kind: string; asset_id: string; owner: string | null; collection: string | null; data: Record<string, unknown>; slot: number }>(
    `SELECT address, kind, asset_id, owner, collection, data, slot FROM asset_accounts
      WHERE asset_id = ANY($1::text[]) AND kind IN ('tm.metadata', 'tm.closed')`,
    [mints],
  );
  for (const r of rows) out.set(r.asset_id, { address: r.address, kind: r.kind, assetId: r.asset_id, owner: r.owner, collection: r.collection, data: r.data, slot: Number(r.slot) });
  return out;
}

/**
 * Rows of one kind by the asset they describe (e.g. the inscription of a mint); `version` keeps only rows whose
 * decoded `version` field is that layout version (one asset can have accounts of two layouts).
 */
export async function getAccountsByAsset(q: Queryable, assetIds: string[], kind: string, version?: number): Promise<Map<string, StoredAssetAccount>> {
  const out = new Map<string, StoredAssetAccount>();
  if (!assetIds.length) return out;
  const { rows } = await q.query<{ address: string; kind: string; asset_id: string; owner: string | null; collection: string | null; data: Record<string, unknown>; slot: number }>(
    `SELECT address, kind, asset_id, owner, collection, data, slot FROM asset_accounts
      WHERE asset_id = ANY($1::text[]) AND kind = $2 AND ($3::text IS NULL OR data->>'version' = $3::text)
      ORDER BY asset_id, slot, address`,
    [assetIds, kind, version === undefined ? null : String(version)],
  );
  for (const r of rows) out.set(r.asset_id, { address: r.address, kind: r.kind, assetId: r.asset_id, owner: r.owner, collection: r.collection, data: r.data, slot: Number(r.slot) });
  return out;
}
