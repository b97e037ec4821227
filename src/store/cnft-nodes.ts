/**
 * Table family "compressed NFTs": the reads and guarded rewrites of `cnft_nodes` the drift detector's node repair
 * needs (src/ingest/drift/cnft-repair.ts). Rows are otherwise written only from change logs (src/store/cnft.ts).
 */
import type { Queryable } from './db.js';

/** A stored node row: base58 hash and the seq of the change that wrote it. */
export interface StoredNodeRow {
  nodeIndex: number;
  hash: string;
  seq: bigint;
}

/**
 * Up to `limit` level-0 rows (leaves) of a tree of `depth`, in leaf order, from node index `from` on (a primary-key
 * range scan: leaves are nodes 2^depth .. 2^(depth+1) - 1).
 */
export async function readLeafRows(q: Queryable, tree: string, depth: number, from: number, limit: number): Promise<StoredNodeRow[]> {
  const { rows } = await q.query<{ node_index: string; hash: string; seq: string }>(
    `SELECT node_index::text AS node_index, hash, seq::text AS seq FROM cnft_nodes
      WHERE tree = $1 AND node_index >= $2 AND node_index < $3 ORDER BY node_index LIMIT $4`,
    [tree, Math.max(from, 2 ** depth), 2 ** (depth + 1), limit],
  );
  return rows.map((r) => ({ nodeIndex: Number(r.node_index), hash: r.hash, seq: BigInt(r.seq) }));
}

/** Stored rows of one tree by node index; nodes without a row are absent. */
export async function readNodeRows(q: Queryable, tree: string, nodeIndexes: number[]): Promise<Map<number, StoredNodeRow>> {
  const { rows } = await q.query<{ node_index: string; hash: string; seq: string }>(
    'SELECT node_index::text AS node_index, hash, seq::text AS seq FROM cnft_nodes WHERE tree = $1 AND node_index = ANY($2::bigint[])',
    [tree, nodeIndexes],
  );
  return new Map(rows.map((r) => [Number(r.node_index), { nodeIndex: Number(r.node_index), hash: r.hash, seq: BigInt(r.seq) }]));
}

/** A node row to set to `hash` / `seq`, replacing the row read as `read` (null: there was no row). */
export interface NodeRewrite {
  nodeIndex: number;
  level: number;
  hash: string;
  seq: bigint;
  read: { hash: string; seq: bigint } | null;
}

/**
 * Rewrites node rows, each only while it is still the row read (same hash and seq: a change written meanwhile by
 * live ingestion has a higher seq and is never replaced) and inserts the missing ones unless a row appeared
 * meanwhile. Returns the node indexes written.
 */
export async function rewriteNodeRows(q: Queryable, tree: string, rows: readonly NodeRewrite[]): Promise<number[]> {
  const updates = rows.filter((r) => r.read !== null);
  const inserts = rows.filter((r) => r.read === null);
  const written: number[] = [];
  if (updates.length) {
    const res = await q.query<{ node_index: string }>(
      `UPDATE cnft_nodes t SET hash = v.hash, seq = v.seq
         FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::bigint[]) AS v(node_index, hash, seq, read_hash, read_seq)
        WHERE t.tree = $1 AND t.node_index = v.node_index AND t.hash = v.read_hash AND t.seq = v.read_seq
        RETURNING t.node_index::text AS node_index`,
      [tree, updates.map((r) => r.nodeIndex), updates.map((r) => r.hash), updates.map((r) => r.seq.toString()),
        updates.map((r) => r.read!.hash), updates.map((r) => r.read!.seq.toString())],
    );
    written.push(...res.rows.map((r) => Number(r.node_index)));
  }
  if (inserts.length) {
    const res = await q.query<{ node_index: string }>(
      `INSERT INTO cnft_nodes (tree, node_index, level, hash, seq)
       SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::text[], $5::bigint[])
       ON CONFLICT (tree, node_index) DO NOTHING RETURNING node_index::text AS node_index`,
      [tree, inserts.map((r) => r.nodeIndex), inserts.map((r) => r.level), inserts.map((r) => r.hash), inserts.map((r) => r.seq.toString())],
    );
    written.push(...res.rows.map((r) => Number(r.node_index)));
  }
  return written;
}

/**
 * Up to `n` level-0 rows of a tree of `depth` in leaf order from the leaf at `fraction` of its highest indexed leaf
 * (wrapping to the start): primary-key range scans.
 */
export async function sampleLeafRows(q: Queryable, tree: string, depth: number, fraction: number, n: number): Promise<StoredNodeRow[]> {
  if (n <= 0) return [];
  const { rows } = await q.query<{ m: string | null }>(
    'SELECT max(node_index)::text AS m FROM cnft_nodes WHERE tree = $1 AND node_index >= $2 AND node_index < $3',
    [tree, 2 ** depth, 2 ** (depth + 1)],
  );
  if (rows[0]?.m === null || rows[0]?.m === undefined) return [];
  const first = 2 ** depth;
  const start = first + Math.floor((Number(rows[0].m) - first) * Math.min(Math.max(fraction, 0), 1));
  const after = await readLeafRows(q, tree, depth, start, n);
  const before = after.length < n ? (await readLeafRows(q, tree, depth, first, n - after.length)).filter((r) => r.nodeIndex < start) : [];
  return [...after, ...before];
}
