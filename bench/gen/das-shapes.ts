/**
 * Keeps the synthetic DAS rows honest: replays recorded reference fixtures (test/fixtures/das) through the real
 * ingest path into a scratch database, then compares, per table and account kind, the shape of one generated row
 * with one ingested row (columns, nested JSON keys, value types; a null on either side matches anything), and the
 * shape of the rendered asset (loadAssets) of each kind. Any difference means the generator no longer writes what
 * the decoder/ingest writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replayInto } from '../../src/ingest/replay.js';
import { loadAssets } from '../../src/api/das/load-assets.js';
import { defaultDisplayOptions } from '../../src/api/das/asset-json.js';
import type { Db } from '../../src/store/db.js';
import { REPO_ROOT } from '../lib/report.js';

const DAS = join(REPO_ROOT, 'test', 'fixtures', 'das');

/** Fixture cases whose inputs produce every row kind the generator writes (replayed in order, one group at a time). */
const FIXTURE_CASES = ['reg_get_asset_by_group', 'get_nft_editions', 'mpl_core_get_assets_by_group', 'mint_verify_creator'];

/** (label, SQL returning one row) pairs compared between the two databases. */
const PROBES: [string, string][] = [
  ['asset_accounts tm.metadata (in a collection)', "SELECT * FROM asset_accounts WHERE kind = 'tm.metadata' AND collection IS NOT NULL LIMIT 1"],
  ['asset_accounts tm.masterEdition', "SELECT * FROM asset_accounts WHERE kind = 'tm.masterEdition' LIMIT 1"],
  ['asset_accounts core.asset (in a collection)', "SELECT * FROM asset_accounts WHERE kind = 'core.asset' AND collection IS NOT NULL LIMIT 1"],
  ['asset_accounts core.collection', "SELECT * FROM asset_accounts WHERE kind = 'core.collection' LIMIT 1"],
  ['mints (NFT mint)', 'SELECT * FROM mints WHERE decimals = 0 AND address IN (SELECT mint FROM tm_edition_mints) LIMIT 1'],
  ['token_accounts (NFT holder)', 'SELECT * FROM token_accounts WHERE amount = 1 LIMIT 1'],
  ['tm_edition_mints', 'SELECT * FROM tm_edition_mints LIMIT 1'],
  ['cnft_assets (V1 leaf)', 'SELECT * FROM cnft_assets WHERE leaf_schema = 1 LIMIT 1'],
  ['cnft_nodes (leaf)', 'SELECT * FROM cnft_nodes WHERE level = 0 LIMIT 1'],
  ['cnft_nodes (root)', 'SELECT * FROM cnft_nodes WHERE node_index = 1 LIMIT 1'],
  ['cnft_signatures', 'SELECT * FROM cnft_signatures LIMIT 1'],
];

/** Asset ids per kind whose rendered shapes are compared. */
const RENDERED: [string, string][] = [
  ['getAsset shape: Token Metadata NFT in a collection', "SELECT asset_id AS id FROM asset_accounts WHERE kind = 'tm.metadata' AND collection IS NOT NULL LIMIT 1"],
  ['getAsset shape: MPL Core asset in a collection', "SELECT address AS id FROM asset_accounts WHERE kind = 'core.asset' AND collection IS NOT NULL LIMIT 1"],
  ['getAsset shape: compressed NFT', 'SELECT asset_id AS id FROM cnft_assets LIMIT 1'],
];

type Json = unknown;

/** Objects keyed by name (MPL Core plugins by plugin name): their key sets legitimately differ. */
const MAPS = /\.plugins$/;

/** Differences between the shapes of `a` (generated) and `b` (ingested), as "path: what" lines. */
export function shapeDiff(a: Json, b: Json, path = ''): string[] {
  if (a === null || b === null || a === undefined || b === undefined) return [];
  const ta = Array.isArray(a) ? 'array' : typeof a;
  const tb = Array.isArray(b) ? 'array' : typeof b;
  if (ta !== tb) return [`${path || '.'}: generated ${ta}, ingested ${tb}`];
  if (ta === 'array') {
    const xa = a as Json[];
    const xb = b as Json[];
    return xa.length && xb.length ? shapeDiff(xa[0], xb[0], `${path}[0]`) : [];
  }
  if (ta !== 'object') return [];
  const oa = a as Record<string, Json>;
  const ob = b as Record<string, Json>;
  const out: string[] = [];
  if (!MAPS.test(path)) {
    for (const k of Object.keys(oa)) if (!(k in ob)) out.push(`${path}.${k}: only in generated`);
    for (const k of Object.keys(ob)) if (!(k in oa)) out.push(`${path}.${k}: only in ingested`);
  }
  for (const k of Object.keys(oa)) if (k in ob) out.push(...shapeDiff(oa[k], ob[k], `${path}.${k}`));
  return out;
}

export interface ShapeReport {
  checked: string[];
  differences: string[];
}

/** Replays the fixtures into `scratch` (an empty migrated database) and compares with `bench`. */
export async function checkShapes(bench: Db, scratch: Db): Promise<ShapeReport> {
  const cases = (JSON.parse(readFileSync(join(DAS, 'cases.json'), 'utf8')) as { cases: { id: string; inputs: { decoded: string }[][] }[] }).cases;
  for (const id of FIXTURE_CASES) {
    const c = cases.find((x) => x.id === id);
    if (!c) throw new Error(`shape check: fixture case ${id} not found`);
    for (const group of c.inputs) await replayInto(scratch, group.map((i) => join(DAS, i.decoded)));
  }
  const checked: string[] = [];
  const differences: string[] = [];
  for (const [label, sql] of PROBES) {
    const [g, f] = await Promise.all([bench.query(sql), scratch.query(sql)]);
    if (!g.rows.length || !f.rows.length) {
      differences.push(`${label}: no ${g.rows.length ? 'ingested' : 'generated'} row to compare`);
      continue;
    }
    checked.push(label);
    differences.push(...shapeDiff(g.rows[0], f.rows[0]).map((d) => `${label} ${d}`));
  }
  const opts = defaultDisplayOptions();
  for (const [label, sql] of RENDERED) {
    const [g, f] = await Promise.all([bench.query<{ id: string }>(sql), scratch.query<{ id: string }>(sql)]);
    const [ga, fa] = await Promise.all([loadAssets(bench, [g.rows[0].id], opts), loadAssets(scratch, [f.rows[0].id], opts)]);
    const x = ga.get(g.rows[0].id);
    const y = fa.get(f.rows[0].id);
    if (!x || !y) {
      differences.push(`${label}: not rendered (${x ? 'ingested' : 'generated'})`);
      continue;
    }
    checked.push(label);
    differences.push(...shapeDiff(x, y).map((d) => `${label} ${d}`));
  }
  return { checked, differences };
}
