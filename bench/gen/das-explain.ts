/**
 * EXPLAIN (ANALYZE, BUFFERS) of every SQL statement one JSON-RPC request runs: the method's handler is called
 * in-process with a database wrapper that records each statement and its parameters, then each distinct statement
 * is explained with those parameters (the driver sends them the way the app does, so the planner sees the same
 * custom plan). Plans are checked for what the DAS list index is designed to avoid: sequential scans of the big
 * tables (reading ≥ 1,000 rows), sort steps in list queries over more rows than the page, sorts/aggregates of more
 * than 10,000 rows, and reading many more rows than the answer needs.
 */
import pino from 'pino';
import type { ApiDeps } from '../../src/api/deps.js';
import { methodTable } from '../../src/api/rpc/registry.js';
import { createFileTokenRegistry } from '../../src/pricing/token-registry.js';
import type { Db, Queryable } from '../../src/store/db.js';

/** Tables big enough that a full scan per request is a defect. */
const BIG_TABLES = new Set([
  'das_assets', 'das_asset_groups', 'das_asset_creators', 'das_asset_authorities', 'asset_accounts', 'token_accounts', 'mints',
  'tm_edition_mints', 'cnft_assets', 'cnft_nodes', 'cnft_signatures', 'token_extensions', 'mint_supply_changes',
]);

export interface ExplainedStatement {
  sql: string;
  /** One-line abbreviation of the statement. */
  label: string;
  /** A list (page) query: ORDER BY … LIMIT over the list index. */
  list: boolean;
  executionMs: number;
  rowsReturned: number;
  /** Rows the scans produced or filtered out (× loops). */
  rowsScanned: number;
  indexes: string[];
  seqScans: string[];
  flags: string[];
  text: string;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Sort Key'?: string[];
  Plans?: PlanNode[];
}

function walk(n: PlanNode, f: (n: PlanNode) => void): void {
  f(n);
  for (const c of n.Plans ?? []) walk(c, f);
}

const rowsOf = (n: PlanNode) => ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) * (n['Actual Loops'] ?? 1);

/** Array literals of the parameters (hundreds of ids) shortened to their first element and count. */
function abbreviateArrays(line: string): string {
  return line.replace(/'\{([^,'}]*),([^']{100,})\}'/g, (_m, first: string, rest: string) => `'{${first},… ${rest.split(',').length + 1} elements}'`);
}

/** The LIMIT of a statement (Infinity without one). */
function limitOf(sql: string): number {
  const m = /\bLIMIT\s+(\d+)/i.exec(sql);
  return m ? Number(m[1]) : Infinity;
}

export function oneLine(sql: string, max = 140): string {
  const s = sql.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Runs `method(params)` through its handler, recording the statements, and explains each distinct one. */
export async function explainRequest(db: Db, method: string, params: unknown): Promise<ExplainedStatement[]> {
  const recorded: { sql: string; params: unknown[] }[] = [];
  const record = (q: Queryable): Queryable => ({
    query(sql, p) {
      recorded.push({ sql, params: p ?? [] });
      return q.query(sql, p);
    },
  });
  const recDb: Db = { ...db, ...record(db), tx: (fn) => db.tx((q) => fn(record(q))), kind: db.kind, exec: (s) => db.exec(s), close: () => db.close() };
  const deps: ApiDeps = {
    db: recDb,
    logger: pino({ level: 'silent' }),
    tokens: createFileTokenRegistry('/nonexistent/tokens.json'),
    explorerTxUrl: 'https://orbmarkets.io/tx/',
  };
  const m = methodTable().get(method);
  if (!m) throw new Error(`no JSON-RPC method ${method}`);
  await m.handler(params, deps);

  const out: ExplainedStatement[] = [];
  const seen = new Set<string>();
  for (const r of recorded) {
    if (seen.has(r.sql)) continue;
    seen.add(r.sql);
    const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${r.sql}`, r.params);
    const plan = rows[0]['QUERY PLAN'][0];
    const text = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${r.sql}`, r.params)).rows
      .map((x) => abbreviateArrays(x['QUERY PLAN']))
      .join('\n');
    const list = /\bORDER BY\b[\s\S]*\bLIMIT\b/i.test(r.sql) && /\bdas_asset/.test(r.sql);
    const indexes = new Set<string>();
    const seqScans: string[] = [];
    const flags: string[] = [];
    let scanned = 0;
    walk(plan.Plan, (n) => {
      if (n['Index Name']) indexes.add(n['Index Name']);
      const t = n['Node Type'];
      if (/Scan$/.test(t) && n['Relation Name']) scanned += rowsOf(n);
      if (t === 'Seq Scan' && n['Relation Name']) {
        seqScans.push(n['Relation Name']);
        if (BIG_TABLES.has(n['Relation Name']) && rowsOf(n) >= 1_000) flags.push(`Seq Scan on ${n['Relation Name']} (${rowsOf(n).toLocaleString('en-US')} rows read)`);
      }
      if (t === 'Sort' || t === 'Incremental Sort') {
        const input = (n.Plans ?? []).reduce((s, c) => s + (c['Actual Rows'] ?? 0) * (c['Actual Loops'] ?? 1), 0);
        if ((list && input > limitOf(r.sql)) || input > 10_000) flags.push(`${t} of ${input.toLocaleString('en-US')} rows by ${(n['Sort Key'] ?? []).join(', ')}`);
      }
      if ((t === 'HashAggregate' || t === 'Unique') && (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1) > 10_000) {
        flags.push(`${t} over ${((n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1)).toLocaleString('en-US')} rows`);
      }
    });
    const returned = plan.Plan['Actual Rows'] ?? 0;
    if (scanned > Math.max(10_000, 20 * returned)) flags.push(`reads ${scanned.toLocaleString('en-US')} rows to return ${returned.toLocaleString('en-US')}`);
    out.push({
      sql: r.sql,
      label: oneLine(r.sql),
      list,
      executionMs: plan['Execution Time'],
      rowsReturned: returned,
      rowsScanned: scanned,
      indexes: [...indexes],
      seqScans,
      flags,
      text,
    });
  }
  return out;
}
