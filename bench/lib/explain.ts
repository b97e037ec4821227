/** EXPLAIN of the requests a read benchmark sends (bench/gen/das-explain.ts, bench/gen/zk-explain.ts), and its report. */
import type { ExplainedStatement } from '../gen/das-explain.js';
import { fmt } from './report.js';

export interface ExplainedCase {
  case: string;
  statements: Omit<ExplainedStatement, 'sql'>[];
}

/** Explains every `[name, method, params]` request with `explain`. */
export async function explainRequests<P>(
  requests: readonly [string, string, P][],
  explain: (method: string, params: P) => Promise<ExplainedStatement[]>,
): Promise<ExplainedCase[]> {
  const out: ExplainedCase[] = [];
  for (const [name, method, params] of requests) {
    const statements = await explain(method, params);
    out.push({ case: name, statements: statements.map(({ sql: _sql, ...rest }) => rest) });
  }
  return out;
}

/** Prints the statements of each request; the plan text of every statement, or (`allPlans` false) of list queries and flagged ones. */
export function printExplain(explain: readonly ExplainedCase[], log: (s?: string) => void, allPlans: boolean): void {
  log('\n=== EXPLAIN (ANALYZE, BUFFERS) of every statement per request');
  for (const e of explain) {
    log(`\n--- ${e.case}: ${e.statements.length} statement(s)`);
    for (const s of e.statements) {
      const verdict = s.flags.length ? `FLAGGED: ${s.flags.join('; ')}` : 'ok';
      log(`  [${fmt(s.executionMs)} ms, ${fmt(s.rowsReturned)} rows, ${fmt(s.rowsScanned)} scanned; indexes: ${s.indexes.join(', ') || '-'}] ${verdict}`);
      log(`    ${s.label}`);
      if (allPlans || s.list || s.flags.length) log(s.text.split('\n').map((l) => `      ${l}`).join('\n'));
    }
  }
}
