/**
 * EXPLAIN (ANALYZE, BUFFERS) of every SQL statement one ZK JSON-RPC request runs: bench/gen/das-explain.ts records
 * the statements of the method's handler and explains each; this adds the ZK tables to what a plan is flagged for
 * (a sequential scan of a big ZK table reading ≥ 1,000 rows) and marks the ZK list queries (ORDER BY … LIMIT over
 * zk_token_accounts / zk_accounts), flagging a sort step in them (the list indexes are meant to give the order).
 */
import type { Db } from '../../src/store/db.js';
import { explainRequest, type ExplainedStatement } from './das-explain.js';

/** ZK tables big enough that a full scan per request is a defect. */
const BIG_ZK_TABLES = new Set(['zk_accounts', 'zk_token_accounts', 'zk_state_nodes', 'zk_indexed_elements', 'zk_owner_balances', 'zk_token_owner_balances', 'zk_batch_events']);

export type { ExplainedStatement };

export async function explainZkRequest(db: Db, method: string, params: unknown): Promise<ExplainedStatement[]> {
  const out = await explainRequest(db, method, params);
  for (const s of out) {
    for (const line of s.text.split('\n')) {
      const m = /Seq Scan on (zk_\w+).*actual time=[\d.]+\.\.[\d.]+ rows=(\d+) loops=(\d+)/.exec(line);
      if (m && BIG_ZK_TABLES.has(m[1])) {
        const removed = /Rows Removed by Filter: (\d+)/.exec(s.text.slice(s.text.indexOf(line)))?.[1];
        const read = (Number(m[2]) + Number(removed ?? 0)) * Number(m[3]);
        if (read >= 1_000) s.flags.push(`Seq Scan on ${m[1]} (${read.toLocaleString('en-US')} rows read)`);
      }
    }
    if (/\bORDER BY\b[\s\S]*\bLIMIT\b/i.test(s.sql) && /\bzk_(token_)?accounts\b/.test(s.sql) && !s.list) {
      s.list = true;
      const sort = /->\s+((Incremental )?Sort\b.*)/.exec(s.text) ?? /^((Incremental )?Sort\b.*)/m.exec(s.text);
      if (sort) s.flags.push(`sort step in a list query: ${sort[1].trim()}`);
    }
  }
  return out;
}
