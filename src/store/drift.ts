/**
 * The drift detector's reads of DAS assets and Merkle tree roots (src/ingest/drift/): cheap samples in key order
 * from a starting point (index scans, wrapping to the start), and the indexed state each comparison needs, with the
 * position or slot of its last change.
 */
import { base58ToBytes } from '../core/encoding.js';
import type { Queryable } from './db.js';

/** Up to `n` non-compressed, unburnt single-owner DAS assets from `from` on: Core assets and token-backed ones. */
export async function sampleOwnedAssets(q: Queryable, from: string, n: number): Promise<string[]> {
  const where = `NOT compressed AND NOT burnt AND owner IS NOT NULL AND owner_type = 'single'
                 AND (supply_mint IS NOT NULL OR interface = 'MplCoreAsset')`;
  const { rows } = await q.query<{ id: string }>(
    `(SELECT id FROM das_assets WHERE id >= $1 AND ${where} ORDER BY id LIMIT $2)
     UNION ALL (SELECT id FROM das_assets WHERE id < $1 AND ${where} ORDER BY id LIMIT $2)`,
    [from, n],
  );
  return rows.slice(0, n).map((r) => r.id);
}

/** An indexed asset's owner as served (das_assets) and the source rows it comes from. */
export interface IndexedAssetOwner {
  id: string;
  /** das_assets.owner and the latest slot of the asset's sources. */
  owner: string | null;
  updatedSlot: number;
  /** The MPL Core asset account (kind core.asset / core.closed), when the asset is one. */
  core: { kind: string; owner: string | null; slot: number } | null;
  /** Token-backed: the token account DAS takes the owner from (largest amount, as getAsset picks it), with the position of its last change. */
  holder: { address: string; owner: string; pos: number } | null;
  tokenBacked: boolean;
}

export async function readAssetOwners(q: Queryable, ids: string[]): Promise<Map<string, IndexedAssetOwner>> {
  const out = new Map<string, IndexedAssetOwner>();
  if (!ids.length) return out;
  const { rows } = await q.query<{
    id: string; owner: string | null; updated_slot: string; supply_mint: string | null; kind: string | null; core_owner: string | null;
    core_slot: string | null; holder: string | null; holder_owner: string | null; holder_pos: string | null;
  }>(
    `SELECT d.id, d.owner, d.updated_slot::text AS updated_slot, d.supply_mint, a.kind, a.owner AS core_owner, a.slot::text AS core_slot,
            h.address AS holder, h.owner AS holder_owner, h.pos::text AS holder_pos
       FROM das_assets d
       LEFT JOIN asset_accounts a ON a.address = d.id AND a.kind IN ('core.asset', 'core.closed')
       LEFT JOIN LATERAL (SELECT address, owner, GREATEST(COALESCE(owner_pos, 0), COALESCE(amount_pos, 0)) AS pos
                            FROM token_accounts WHERE d.supply_mint IS NOT NULL AND mint = d.id AND NOT closed AND owner IS NOT NULL
                           ORDER BY amount DESC, amount_pos DESC NULLS LAST, address LIMIT 1) h ON true
      WHERE d.id = ANY($1::text[])`,
    [ids],
  );
  for (const r of rows) {
    out.set(r.id, {
      id: r.id,
      owner: r.owner,
      updatedSlot: Number(r.updated_slot),
      core: r.kind ? { kind: r.kind, owner: r.core_owner, slot: Number(r.core_slot) } : null,
      holder: r.holder && r.holder_owner ? { address: r.holder, owner: r.holder_owner, pos: Number(r.holder_pos) } : null,
      tokenBacked: r.supply_mint !== null,
    });
  }
  return out;
}

/** Up to `n` Bubblegum trees with indexed change-log nodes from `from` on (one index probe per tree, not a scan of their nodes). */
export async function sampleCnftTrees(q: Queryable, from: string, n: number): Promise<string[]> {
  const walk = (start: string, op: '>=' | '<') => `
    WITH RECURSIVE t(tree, k) AS (
      SELECT (SELECT min(tree) FROM cnft_nodes WHERE tree ${op} ${start}), 1
      UNION ALL
      SELECT (SELECT min(tree) FROM cnft_nodes WHERE tree > t.tree ${op === '<' ? `AND tree < ${start}` : ''}), k + 1 FROM t WHERE t.tree IS NOT NULL AND k < $2
    ) SELECT tree FROM t WHERE tree IS NOT NULL`;
  const { rows } = await q.query<{ tree: string }>(`(${walk('$1', '>=')}) UNION ALL (${walk('$1', '<')})`, [from, n]);
  return [...new Set(rows.map((r) => r.tree))].slice(0, n);
}

/** The indexed root (node 1: base58 hash and the seq of the change that wrote it) of each tree that has one. */
export async function readCnftRoots(q: Queryable, trees: string[]): Promise<Map<string, { hash: string; seq: number }>> {
  const out = new Map<string, { hash: string; seq: number }>();
  if (!trees.length) return out;
  const { rows } = await q.query<{ tree: string; hash: string; seq: string }>(
    'SELECT tree, hash, seq::text AS seq FROM cnft_nodes WHERE node_index = 1 AND tree = ANY($1::text[])',
    [trees],
  );
  for (const r of rows) out.set(r.tree, { hash: r.hash, seq: Number(r.seq) });
  return out;
}

/**
 * Up to `n` unspent compressed accounts of `tree` that have a leaf (V2: appended, not waiting in the output queue), in leaf order from the leaf at `fraction` of the
 * tree's highest indexed leaf (wrapping to the start): hash and leaf index (index scans on (tree, leaf_index)).
 */
export async function sampleZkLeaves(q: Queryable, treeHex: string, fraction: number, n: number): Promise<{ hash: Uint8Array; leafIndex: number }[]> {
  const { rows } = await q.query<{ m: string | null }>(`SELECT max(leaf_index)::text AS m FROM zk_accounts WHERE tree = decode($1, 'hex')`, [treeHex]);
  const top = rows[0]?.m ?? null;
  if (top === null) return [];
  const start = Math.floor(Number(top) * Math.min(Math.max(fraction, 0), 1));
  const pick = (cond: string) =>
    `(SELECT hash, leaf_index::text AS leaf_index FROM zk_accounts
       WHERE tree = decode($1, 'hex') AND ${cond} AND NOT spent AND NOT in_output_queue ORDER BY leaf_index LIMIT $3)`;
  const picked = await q.query<{ hash: Uint8Array; leaf_index: string }>(
    `${pick('leaf_index >= $2')} UNION ALL ${pick('leaf_index < $2')}`,
    [treeHex, start, n],
  );
  return picked.rows.slice(0, n).map((r) => ({ hash: new Uint8Array(r.hash), leafIndex: Number(r.leaf_index) }));
}

/** An indexed (address) tree element as sampled: leaf index, value and successor (32-byte big-endian values). */
export interface SampledIndexedElement {
  leafIndex: number;
  value: Uint8Array;
  nextIndex: number;
  nextValue: Uint8Array;
}

/**
 * Up to `n` elements of the indexed (address) tree `tree` in leaf order from the leaf at `fraction` of its highest
 * indexed leaf (wrapping to the start): index scans on the (tree, leaf_index) key.
 */
export async function sampleIndexedElements(q: Queryable, treeHex: string, fraction: number, n: number): Promise<SampledIndexedElement[]> {
  const { rows } = await q.query<{ m: string | null }>(`SELECT max(leaf_index)::text AS m FROM zk_indexed_elements WHERE tree = decode($1, 'hex')`, [treeHex]);
  const top = rows[0]?.m ?? null;
  if (top === null) return [];
  const start = Math.floor(Number(top) * Math.min(Math.max(fraction, 0), 1));
  const pick = (cond: string) =>
    `(SELECT leaf_index::text AS leaf_index, value, next_index::text AS next_index, next_value FROM zk_indexed_elements
       WHERE tree = decode($1, 'hex') AND ${cond} ORDER BY leaf_index LIMIT $3)`;
  const picked = await q.query<{ leaf_index: string; value: Uint8Array; next_index: string; next_value: Uint8Array }>(
    `${pick('leaf_index >= $2')} UNION ALL ${pick('leaf_index < $2')}`,
    [treeHex, start, n],
  );
  return picked.rows.slice(0, n).map((r) => ({
    leafIndex: Number(r.leaf_index), value: new Uint8Array(r.value), nextIndex: Number(r.next_index), nextValue: new Uint8Array(r.next_value),
  }));
}

/**
 * How many elements each V2 batched tree's own queue has received as indexed — its input queue's nullifiers (state
 * tree: the highest `nullifier_queue_index` + 1) or its address queue's addresses (address tree: the highest queue
 * index still queued + 1, or the addresses the last address append consumed) — keyed by tree; one index probe each.
 */
export async function readZkQueueNextIndexes(q: Queryable, trees: readonly { tree: string; address: boolean }[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const { tree, address } of trees) {
    const key = Buffer.from(base58ToBytes(tree));
    const sql = address
      ? `SELECT GREATEST((SELECT max(queue_index) + 1 FROM zk_address_queue WHERE tree = $1),
                         (SELECT max(new_next_index) - 1 FROM zk_batch_events WHERE tree = $1 AND kind = 3), 0)::text AS n`
      : `SELECT COALESCE((SELECT max(nullifier_queue_index) + 1 FROM zk_accounts WHERE tree = $1 AND nullifier_queue_index IS NOT NULL), 0)::text AS n`;
    const { rows } = await q.query<{ n: string }>(sql, [key]);
    out.set(tree, Number(rows[0].n));
  }
  return out;
}
