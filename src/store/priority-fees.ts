/** Table family "priority fees" (priority_fees): recent compute-unit prices per slot and account. */
import type { Queryable } from './db.js';
import type { Statement } from './bulk.js';
import { copyPieces } from './copy-text.js';

export interface PriorityFeeRow {
  slot: number;
  /** A writable account, or `*` for every transaction of the slot. */
  account: string;
  rates: bigint[];
  votes: number;
}

/**
 * Inserts a batch's rows (a slot's rows are written once; a replayed block changes nothing). Null without rows. Its
 * plain form (no ON CONFLICT) is what a write of new blocks tries first: a mainnet block has about 1,000 rows, and
 * the guarded insert of 8 blocks' took about 1.5x the time of the plain one, in psql (docs/benchmarks.md#replay-tenth).
 */
export function priorityFeesStatement(rows: readonly PriorityFeeRow[]): Statement | null {
  if (!rows.length) return null;
  const insert = `INSERT INTO priority_fees (slot, account, rates, votes)
          SELECT u.slot, u.account, u.rates::int8[], u.votes
            FROM unnest($1::int8[], $2::text[], $3::text[], $4::int4[]) AS u (slot, account, rates, votes)`;
  return {
    sql: `${insert}
          ON CONFLICT (account, slot) DO NOTHING`,
    plainSql: insert,
    params: [
      rows.map((r) => r.slot), rows.map((r) => r.account), rows.map((r) => `{${r.rates.join(',')}}`), rows.map((r) => r.votes),
    ],
    copy: () => ({
      table: 'priority_fees',
      columns: ['slot', 'account', 'rates', 'votes'],
      text: copyPieces(rows, [(r) => r.slot, (r) => r.account, (r) => `{${r.rates.join(',')}}`, (r) => r.votes]),
    }),
  };
}

/** Deletes the slots before `slot`. */
export async function prunePriorityFees(q: Queryable, beforeSlot: number): Promise<void> {
  await q.query('DELETE FROM priority_fees WHERE slot < $1', [beforeSlot]);
}

/** The rows of `accounts` (and `*`) in slots (from, to]; `slots` lists the slots that have a `*` row (indexed blocks). */
export async function priorityFeeWindow(q: Queryable, accounts: string[], from: number, to: number): Promise<PriorityFeeRow[]> {
  const { rows } = await q.query<{ slot: string | number; account: string; rates: (string | number)[]; votes: number }>(
    'SELECT slot, account, rates, votes FROM priority_fees WHERE account = ANY($1::text[]) AND slot > $2 AND slot <= $3',
    [accounts, from, to],
  );
  return rows.map((r) => ({ slot: Number(r.slot), account: r.account, rates: r.rates.map((x) => BigInt(x)), votes: r.votes }));
}
