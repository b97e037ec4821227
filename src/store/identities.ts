/**
 * Table family "identities": the known-entity registry and SPL Name Service records (domains and their
 * reverse-lookup names), which back the Wallet identity endpoints.
 */
import type { Queryable } from './db.js';
import { bulkInsert, dedupeBy } from './bulk.js';
import type { NameRecordRow } from './block-update.js';

export interface Identity {
  address: string;
  name: string;
  type: string;
  category: string;
  tags: string[];
}

/** Inserts or replaces registry entries in one statement; returns how many were written. */
export async function upsertIdentities(q: Queryable, rows: Identity[]): Promise<number> {
  const uniq = dedupeBy(rows, (r) => r.address, () => true);
  await bulkInsert(
    q,
    'identities',
    [
      { name: 'address', type: 'text', get: (r: Identity) => r.address },
      { name: 'name', type: 'text', get: (r) => r.name },
      { name: 'type', type: 'text', get: (r) => r.type },
      { name: 'category', type: 'text', get: (r) => r.category },
      // Arrays of arrays do not pass through unnest; tags travel as JSON text and are split back in SQL.
      { name: 'tags', type: 'text', get: (r) => JSON.stringify(r.tags) },
    ],
    uniq,
    `ON CONFLICT (address) DO UPDATE SET name = EXCLUDED.name, type = EXCLUDED.type, category = EXCLUDED.category, tags = EXCLUDED.tags`,
    `address, name, type, category, ARRAY(SELECT jsonb_array_elements_text(tags::jsonb))`,
  );
  return uniq.length;
}

export async function countIdentities(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM identities');
  return rows[0].n;
}

export async function getIdentities(q: Queryable, addresses: string[]): Promise<Map<string, Identity>> {
  const out = new Map<string, Identity>();
  if (!addresses.length) return out;
  const { rows } = await q.query<Identity>(
    'SELECT address, name, type, category, tags FROM identities WHERE address = ANY($1::text[])',
    [addresses],
  );
  for (const r of rows) out.set(r.address, r);
  return out;
}

export async function writeNameRecords(q: Queryable, rows: NameRecordRow[]): Promise<void> {
  const uniq = dedupeBy(rows, (r) => r.address, (a, b) => a.slot > b.slot || (a.slot === b.slot && a.writeVersion >= b.writeVersion));
  await bulkInsert(
    q,
    'name_records',
    [
      { name: 'address', type: 'text', get: (r: NameRecordRow) => r.address },
      { name: 'parent', type: 'text', get: (r) => r.parent },
      { name: 'owner', type: 'text', get: (r) => r.owner },
      { name: 'class', type: 'text', get: (r) => r.class },
      { name: 'reverse_name', type: 'text', get: (r) => r.reverseName },
      { name: 'slot', type: 'bigint', get: (r) => r.slot },
      { name: 'write_version', type: 'numeric', get: (r) => r.writeVersion },
    ],
    uniq,
    `ON CONFLICT (address) DO UPDATE SET parent = EXCLUDED.parent, owner = EXCLUDED.owner, class = EXCLUDED.class,
       reverse_name = EXCLUDED.reverse_name, slot = EXCLUDED.slot, write_version = EXCLUDED.write_version
     WHERE (EXCLUDED.slot, EXCLUDED.write_version) >= (t.slot, t.write_version)`,
  );
}

export interface NameRecord {
  address: string;
  parent: string;
  owner: string;
  class: string;
  reverseName: string | null;
}

export async function getNameRecords(q: Queryable, addresses: string[]): Promise<Map<string, NameRecord>> {
  const out = new Map<string, NameRecord>();
  if (!addresses.length) return out;
  const { rows } = await q.query<{ address: string; parent: string; owner: string; class: string; reverse_name: string | null }>(
    'SELECT address, parent, owner, class, reverse_name FROM name_records WHERE address = ANY($1::text[])',
    [addresses],
  );
  for (const r of rows) out.set(r.address, { address: r.address, parent: r.parent, owner: r.owner, class: r.class, reverseName: r.reverse_name });
  return out;
}

/** Name accounts owned by `owner` directly under `parent` (e.g. the `.sol` root). */
export async function getOwnedNames(q: Queryable, owner: string, parent: string): Promise<string[]> {
  const { rows } = await q.query<{ address: string }>(
    'SELECT address FROM name_records WHERE owner = $1 AND parent = $2 ORDER BY address',
    [owner, parent],
  );
  return rows.map((r) => r.address);
}
