/**
 * Table family "compressed NFTs" (Bubblegum): per-asset state in seq-guarded column groups (`cnft_assets`), Merkle
 * tree nodes from change logs (`cnft_nodes`, newest seq per node) and signatures per asset (`cnft_signatures`).
 * Every write is a bulk upsert whose result does not depend on the order the transactions arrive in, and
 * re-applying any input changes nothing.
 */
import type { Queryable } from './db.js';
import { bulkInsert, guardedSet } from './bulk.js';

/** The leaf as a Bubblegum instruction left it (or the zeroed leaf of a redeem). */
export interface CnftLeafGroup {
  schema: number;
  leafHash: string;
  dataHash: string;
  creatorHash: string;
  collectionHash: string | null;
  assetDataHash: string | null;
  flags: number | null;
  seq: bigint;
}

/** One instruction's changes to one compressed asset; groups are present only when the instruction set them. */
export interface CnftAssetPatch {
  assetId: string;
  tree: string | null;
  leafIndex: number | null;
  authority: string | null;
  leaf: CnftLeafGroup | null;
  owner: { owner: string; delegate: string | null; seq: bigint } | null;
  /** The full metadata after the instruction (JSON-safe), as `render-cnft.ts` reads it. */
  metadata: { data: Record<string, unknown>; version: number; seq: bigint } | null;
  seq: bigint | null;
  burnt: boolean;
}

/** A Merkle node written by a change log. */
export interface CnftNodeRow {
  tree: string;
  nodeIndex: number;
  level: number;
  hash: string;
  seq: bigint;
  leafIndex: number | null;
}

/** A signature that touched an asset. */
export interface CnftSignatureRow {
  assetId: string;
  signature: string;
  ixPath: string;
  instruction: string;
  slot: number;
  seq: bigint | null;
}

/** The compressed-NFT rows of one BlockUpdate. */
export interface CnftRows {
  assets: CnftAssetPatch[];
  nodes: CnftNodeRow[];
  signatures: CnftSignatureRow[];
}

/** Empty CnftRows. */
export const emptyCnftRows = (): CnftRows => ({ assets: [], nodes: [], signatures: [] });

const maxSeq = (a: bigint | null, b: bigint | null): bigint | null => (a === null ? b : b === null ? a : a > b ? a : b);
/** The group with the higher seq (the later one on a tie, as the guarded upsert does). */
function newerGroup<G extends { seq: bigint }>(a: G | null, b: G | null): G | null {
  if (a === null) return b;
  if (b === null) return a;
  return b.seq >= a.seq ? b : a;
}

/** Merges two patches of the same asset exactly as applying both through the guarded upsert would. */
export function mergeCnftPatches(a: CnftAssetPatch, b: CnftAssetPatch): CnftAssetPatch {
  return {
    assetId: a.assetId,
    tree: a.tree ?? b.tree,
    leafIndex: a.leafIndex ?? b.leafIndex,
    authority: a.authority ?? b.authority,
    leaf: newerGroup(a.leaf, b.leaf),
    owner: newerGroup(a.owner, b.owner),
    metadata: newerGroup(a.metadata, b.metadata),
    seq: maxSeq(a.seq, b.seq),
    burnt: a.burnt || b.burnt,
  };
}

function mergeAssets(rows: readonly CnftAssetPatch[]): CnftAssetPatch[] {
  const m = new Map<string, CnftAssetPatch>();
  for (const r of rows) {
    const cur = m.get(r.assetId);
    m.set(r.assetId, cur ? mergeCnftPatches(cur, r) : r);
  }
  return [...m.values()];
}

/** Writes the compressed-NFT rows (three bulk upserts; nothing without rows). */
export async function writeCnft(q: Queryable, rows: CnftRows | undefined): Promise<void> {
  if (!rows) return;
  const assets = mergeAssets(rows.assets);
  await bulkInsert(
    q,
    'cnft_assets',
    [
      { name: 'asset_id', type: 'text', get: (r: CnftAssetPatch) => r.assetId },
      { name: 'tree', type: 'text', get: (r) => r.tree },
      { name: 'leaf_index', type: 'bigint', get: (r) => r.leafIndex },
      { name: 'authority', type: 'text', get: (r) => r.authority },
      { name: 'leaf_schema', type: 'int', get: (r) => r.leaf?.schema },
      { name: 'leaf_hash', type: 'text', get: (r) => r.leaf?.leafHash },
      { name: 'data_hash', type: 'text', get: (r) => r.leaf?.dataHash },
      { name: 'creator_hash', type: 'text', get: (r) => r.leaf?.creatorHash },
      { name: 'collection_hash', type: 'text', get: (r) => r.leaf?.collectionHash },
      { name: 'asset_data_hash', type: 'text', get: (r) => r.leaf?.assetDataHash },
      { name: 'flags', type: 'int', get: (r) => r.leaf?.flags },
      { name: 'leaf_seq', type: 'bigint', get: (r) => r.leaf?.seq },
      { name: 'owner', type: 'text', get: (r) => r.owner?.owner },
      { name: 'delegate', type: 'text', get: (r) => r.owner?.delegate },
      { name: 'owner_seq', type: 'bigint', get: (r) => r.owner?.seq },
      { name: 'metadata', type: 'jsonb', get: (r) => (r.metadata ? JSON.stringify(r.metadata.data) : null) },
      { name: 'metadata_version', type: 'int', get: (r) => r.metadata?.version },
      { name: 'metadata_seq', type: 'bigint', get: (r) => r.metadata?.seq },
      { name: 'seq', type: 'bigint', get: (r) => r.seq },
      { name: 'burnt', type: 'boolean', get: (r) => r.burnt },
    ],
    assets,
    `ON CONFLICT (asset_id) DO UPDATE SET
       tree = COALESCE(t.tree, EXCLUDED.tree),
       leaf_index = COALESCE(t.leaf_index, EXCLUDED.leaf_index),
       authority = COALESCE(t.authority, EXCLUDED.authority),
       ${guardedSet('leaf_seq', ['leaf_schema', 'leaf_hash', 'data_hash', 'creator_hash', 'collection_hash', 'asset_data_hash', 'flags'])},
       ${guardedSet('owner_seq', ['owner', 'delegate'])},
       ${guardedSet('metadata_seq', ['metadata', 'metadata_version'])},
       seq = GREATEST(t.seq, EXCLUDED.seq),
       burnt = t.burnt OR EXCLUDED.burnt`,
  );

  const nodes = new Map<string, CnftNodeRow>();
  for (const n of rows.nodes) {
    const k = `${n.tree}|${n.nodeIndex}`;
    const cur = nodes.get(k);
    if (!cur || n.seq > cur.seq) nodes.set(k, n);
  }
  await bulkInsert(
    q,
    'cnft_nodes',
    [
      { name: 'tree', type: 'text', get: (r: CnftNodeRow) => r.tree },
      { name: 'node_index', type: 'bigint', get: (r) => r.nodeIndex },
      { name: 'level', type: 'int', get: (r) => r.level },
      { name: 'hash', type: 'text', get: (r) => r.hash },
      { name: 'seq', type: 'bigint', get: (r) => r.seq },
      { name: 'leaf_index', type: 'bigint', get: (r) => r.leafIndex },
    ],
    [...nodes.values()],
    `ON CONFLICT (tree, node_index) DO UPDATE SET level = EXCLUDED.level, hash = EXCLUDED.hash, seq = EXCLUDED.seq,
       leaf_index = EXCLUDED.leaf_index WHERE EXCLUDED.seq > t.seq`,
  );

  const sigs = new Map(rows.signatures.map((s) => [`${s.assetId}|${s.signature}|${s.ixPath}`, s]));
  await bulkInsert(
    q,
    'cnft_signatures',
    [
      { name: 'asset_id', type: 'text', get: (r: CnftSignatureRow) => r.assetId },
      { name: 'signature', type: 'text', get: (r) => r.signature },
      { name: 'ix_path', type: 'text', get: (r) => r.ixPath },
      { name: 'instruction', type: 'text', get: (r) => r.instruction },
      { name: 'slot', type: 'bigint', get: (r) => r.slot },
      { name: 'seq', type: 'bigint', get: (r) => r.seq },
    ],
    [...sigs.values()],
    'ON CONFLICT (asset_id, signature, ix_path) DO NOTHING',
  );
}

/** A stored compressed asset. */
export interface StoredCnft {
  assetId: string;
  tree: string | null;
  leafIndex: number | null;
  authority: string | null;
  leafSchema: number | null;
  leafHash: string | null;
  dataHash: string | null;
  creatorHash: string | null;
  collectionHash: string | null;
  assetDataHash: string | null;
  flags: number | null;
  owner: string | null;
  delegate: string | null;
  metadata: Record<string, unknown> | null;
  metadataVersion: number | null;
  seq: number | null;
  burnt: boolean;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Compressed assets by id. */
export async function getCnftAssets(q: Queryable, ids: string[]): Promise<Map<string, StoredCnft>> {
  const out = new Map<string, StoredCnft>();
  if (!ids.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT asset_id, tree, leaf_index, authority, leaf_schema, leaf_hash, data_hash, creator_hash, collection_hash,
            asset_data_hash, flags, owner, delegate, metadata, metadata_version, seq, burnt
       FROM cnft_assets WHERE asset_id = ANY($1::text[])`,
    [ids],
  );
  for (const r of rows) {
    out.set(r.asset_id as string, {
      assetId: r.asset_id as string,
      tree: r.tree as string | null,
      leafIndex: num(r.leaf_index),
      authority: r.authority as string | null,
      leafSchema: num(r.leaf_schema),
      leafHash: r.leaf_hash as string | null,
      dataHash: r.data_hash as string | null,
      creatorHash: r.creator_hash as string | null,
      collectionHash: r.collection_hash as string | null,
      assetDataHash: r.asset_data_hash as string | null,
      flags: num(r.flags),
      owner: r.owner as string | null,
      delegate: r.delegate as string | null,
      metadata: r.metadata as Record<string, unknown> | null,
      metadataVersion: num(r.metadata_version),
      seq: num(r.seq),
      burnt: r.burnt as boolean,
    });
  }
  return out;
}

/**
 * Whether the index holds `tree`'s history from its first change (a change log of seq 1 among the asset
 * instructions it indexed); a tree first seen later lacks the nodes its earlier changes wrote.
 */
export async function treeHistoryFromStart(q: Queryable, tree: string): Promise<boolean> {
  const { rows } = await q.query<{ first: string | number | null }>(
    'SELECT min(s.seq) AS first FROM cnft_signatures s JOIN cnft_assets a ON a.asset_id = s.asset_id WHERE a.tree = $1',
    [tree],
  );
  return rows[0]?.first !== null && rows[0]?.first !== undefined && Number(rows[0].first) <= 1;
}

/** Depth of each tree (the level of its stored root row); trees without a root row are absent. */
export async function getTreeDepths(q: Queryable, trees: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!trees.length) return out;
  const { rows } = await q.query<{ tree: string; level: number }>(
    'SELECT tree, level FROM cnft_nodes WHERE tree = ANY($1::text[]) AND node_index = 1',
    [trees],
  );
  for (const r of rows) out.set(r.tree, Number(r.level));
  return out;
}

/** Stored node hashes (base58) of one tree by node index; nodes never written are absent. */
export async function getTreeNodes(q: Queryable, tree: string, nodeIndexes: number[]): Promise<Map<number, string>> {
  const { rows } = await q.query<{ node_index: string | number; hash: string }>(
    'SELECT node_index, hash FROM cnft_nodes WHERE tree = $1 AND node_index = ANY($2::bigint[])',
    [tree, nodeIndexes],
  );
  return new Map(rows.map((r) => [Number(r.node_index), r.hash]));
}

/**
 * The order of an asset's signatures (getSignaturesForAsset): the change-log `seq` (a null seq — decompress, which
 * has no change log — counts as the newest), then slot, signature and instruction path byte-wise for a total
 * order. `007_cnft_signature_order.sql` indexes exactly this key, so every page is one index range scan, forwards
 * or backwards.
 */
const SIG_KEY = [`COALESCE(seq, 9223372036854775807)`, 'slot', 'signature COLLATE "C"', 'ix_path COLLATE "C"'];

/** A position in that order: the sort key of one signature row. */
interface SigPos {
  k: bigint;
  slot: bigint;
  signature: string;
  ixPath: string;
}

function cmpPos(a: SigPos, b: SigPos): number {
  if (a.k !== b.k) return a.k < b.k ? -1 : 1;
  if (a.slot !== b.slot) return a.slot < b.slot ? -1 : 1;
  // Base58 and instruction paths are ASCII: UTF-16 order is byte order ("C" collation).
  if (a.signature !== b.signature) return a.signature < b.signature ? -1 : 1;
  return a.ixPath === b.ixPath ? 0 : a.ixPath < b.ixPath ? -1 : 1;
}

/** Options of {@link getCnftSignaturePage}. Bounds are transaction signatures of the asset. */
export interface CnftSignaturePageOpts {
  limit: number;
  ascending: boolean;
  /** Rows skipped (page mode). */
  offset?: number;
  /** Only rows older than every row of this signature (lower seq), whatever the direction. */
  before?: string;
  /** Only rows newer than every row of this signature (higher seq), whatever the direction. */
  after?: string;
  /** Only rows past this signature in the listing direction (older when descending, newer when ascending). */
  cursor?: string;
}

/**
 * One page of an asset's `[signature, instruction]` pairs in seq order (see {@link SIG_KEY}), with keyset bounds
 * given as signatures. A signature with several rows (several instructions of one transaction on the asset) is
 * excluded entirely by a bound. Returns `{ unknown }` with the first bound that is not a signature of the asset.
 */
export async function getCnftSignaturePage(
  q: Queryable,
  assetId: string,
  opts: CnftSignaturePageOpts,
): Promise<{ items: [string, string][] } | { unknown: string }> {
  const bounds = [opts.before, opts.after, opts.cursor].filter((s): s is string => s !== undefined);
  const rowsOf = new Map<string, SigPos[]>();
  if (bounds.length) {
    const { rows } = await q.query<{ k: string; slot: string; signature: string; ix_path: string }>(
      `SELECT ${SIG_KEY[0]}::text AS k, slot::text AS slot, signature, ix_path FROM cnft_signatures
        WHERE asset_id = $1 AND signature = ANY($2::text[])`,
      [assetId, bounds],
    );
    for (const r of rows) {
      const pos = { k: BigInt(r.k), slot: BigInt(r.slot), signature: r.signature, ixPath: r.ix_path };
      rowsOf.set(r.signature, [...(rowsOf.get(r.signature) ?? []), pos]);
    }
    const unknown = bounds.find((s) => !rowsOf.has(s));
    if (unknown !== undefined) return { unknown };
  }
  const first = (s: string) => rowsOf.get(s)!.reduce((a, b) => (cmpPos(a, b) <= 0 ? a : b));
  const last = (s: string) => rowsOf.get(s)!.reduce((a, b) => (cmpPos(a, b) >= 0 ? a : b));
  const params: unknown[] = [assetId];
  const where = ['asset_id = $1'];
  const bound = (op: '<' | '>', p: SigPos) => {
    params.push(p.k.toString(), p.slot.toString(), p.signature, p.ixPath);
    const n = params.length;
    where.push(`(${SIG_KEY.join(', ')}) ${op} ($${n - 3}::bigint, $${n - 2}::bigint, $${n - 1}::text COLLATE "C", $${n}::text COLLATE "C")`);
  };
  if (opts.before !== undefined) bound('<', first(opts.before));
  if (opts.after !== undefined) bound('>', last(opts.after));
  if (opts.cursor !== undefined) bound(opts.ascending ? '>' : '<', opts.ascending ? last(opts.cursor) : first(opts.cursor));
  const dir = opts.ascending ? 'ASC' : 'DESC';
  const { rows } = await q.query<{ signature: string; instruction: string }>(
    `SELECT signature, instruction FROM cnft_signatures WHERE ${where.join(' AND ')}
      ORDER BY ${SIG_KEY.map((c) => `${c} ${dir}`).join(', ')}
      LIMIT ${Math.trunc(opts.limit)} OFFSET ${Math.trunc(opts.offset ?? 0)}`,
    params,
  );
  return { items: rows.map((r) => [r.signature, r.instruction]) };
}
