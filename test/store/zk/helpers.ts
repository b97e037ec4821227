/** Shared helpers of the ZK store tests: applying writes and digesting the ZK tables. */
import type { Db } from '../../../src/store/db.js';
import { mergeZkWrites, type ZkWrite } from '../../../src/store/zk/types.js';
import { writeZk } from '../../../src/store/zk/write.js';
import { rng } from '../../helpers/rng.js';

/** Every table of migration 009 except tree metadata (not written by writeZk). */
export const ZK_TABLES = [
  'zk_accounts', 'zk_token_accounts', 'zk_owner_balances', 'zk_token_owner_balances', 'zk_state_nodes',
  'zk_indexed_elements', 'zk_address_queue', 'zk_batch_events', 'zk_transactions', 'zk_account_transactions',
  'zk_signature_index',
];

/** Row-for-row digest of each ZK table (order-independent), as test/helpers/db.ts `tableDigests` does. */
export async function zkDigests(db: Db): Promise<Record<string, { rows: number; md5: string }>> {
  const out: Record<string, { rows: number; md5: string }> = {};
  for (const t of ZK_TABLES) {
    const { rows } = await db.query<{ n: number; h: string | null }>(
      `SELECT count(*)::int AS n, md5(COALESCE(string_agg(r, '|' ORDER BY r), '')) AS h FROM (SELECT (x.*)::text AS r FROM ${t} x) s`,
    );
    out[t] = { rows: rows[0].n, md5: rows[0].h ?? '' };
  }
  return out;
}

export async function resetZk(db: Db): Promise<void> {
  await db.exec(`TRUNCATE ${ZK_TABLES.join(', ')}`);
}

/** Each write in its own transaction, in the given order. */
export async function applySeparately(db: Db, writes: readonly ZkWrite[]): Promise<void> {
  for (const w of writes) await db.tx((q) => writeZk(q, w));
}

/** All writes merged into one, in one transaction. */
export async function applyMerged(db: Db, writes: readonly ZkWrite[]): Promise<void> {
  await db.tx((q) => writeZk(q, mergeZkWrites(writes)));
}

/** A deterministic shuffle (seeded mulberry32). */
export function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const rnd = rng(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** EXPLAIN of a query with sequential scans, bitmap scans and sorts discouraged (as test/das/lists.test.ts does). */
export async function explain(db: Db, q: { sql: string; params: unknown[] }): Promise<string> {
  return db.tx(async (t) => {
    for (const k of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) await t.query(`SET LOCAL ${k} = off`);
    const { rows } = await t.query<Record<string, string>>(`EXPLAIN ${q.sql}`, q.params);
    return rows.map((r) => Object.values(r)[0]).join('\n');
  });
}
