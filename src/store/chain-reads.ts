/**
 * Reads of the chain tables (transactions and their address links, migration 046): a wallet's history, the address
 * transaction pages of getSignaturesForAddress / getTransactionsForAddress, transaction positions and written addresses. The
 * writes are in ./chain.ts and ./address-links.ts.
 */
import type { Queryable } from './db.js';
import type { BalanceChange } from './block-update.js';

export interface TxPosition {
  slot: number;
  txIndex: number;
  signature: string;
}

/** Where a transaction of the index sits, as a history cursor; null when the index does not hold it. */
export async function getTxPosition(q: Queryable, signature: string): Promise<TxPosition | null> {
  const p = await transactionPosition(q, signature);
  return p && { slot: p.slot, txIndex: p.index, signature };
}

export interface HistoryRow {
  signature: string;
  slot: number;
  txIndex: number;
  blockTime: number | null;
  fee: number | null;
  feePayer: string;
  err: unknown | null;
  changes: BalanceChange[];
}

export interface HistoryQuery {
  address: string;
  /** Highest relation included: 1 = direct only, 2 = + balance-changed token accounts, 3 = + any token account. */
  maxRelation: 1 | 2 | 3;
  limit: number;
  /** Exclusive keyset bound; with `ascending` false rows strictly older than it, else strictly newer. */
  from: TxPosition | null;
  ascending: boolean;
  /** Reads never go past the checkpoint. */
  maxSlot: number;
  /**
   * Only transactions of this enhanced type (never `UNKNOWN`: the type index leaves it out). Transactions indexed
   * before types were stored have none and never match.
   */
  type?: string;
}

/**
 * The address links of the relations `relations` (an SQL smallint[]) as rows (slot, tx_index, changes) for
 * `WHERE <address> = $1`, each with its transaction `t`: from the rows of address_slots (migration 046: one per address
 * and slot, the positions and what goes with them in aligned arrays), or, with a type filter, from address_typed's
 * entries (its key (address, type, slot, position) gives the order) and the slot row each one is in. `typeCondition`:
 * the SQL condition on the type parameter(s) `$n`, checked on the entry and on the transaction (whose type is the one
 * that counts: an entry a later record's type replaced never matches).
 */
function linkSource(
  typeCondition: ((column: string) => string) | null,
  relations: string,
  withChanges = true,
): { from: string; address: string; filter: string; slot: string; index: string; changes: string } {
  // Each link's transaction by one probe of its key (slot, position), in a LATERAL subquery the planner keeps as it is:
  // the links come in key order from the slot rows (an incremental sort orders each slot's positions), so a page
  // stops after the slots it needs instead of joining every link of the address first.
  const tx = (slot: string, index: string) => `CROSS JOIN LATERAL (SELECT t.signature, t.block_time, t.fee, t.fee_payer, t.err, t.memo, t.enhanced_type
                              FROM transactions t WHERE t.slot = ${slot} AND t.tx_index = ${index} LIMIT 1) t`;
  if (!typeCondition) {
    // Each slot row's arrays unnested once (the changes a JSON array aligned with the positions). The relation filter
    // is written so that the planner estimates it keeps nearly every link (an IS NOT NULL test of an expression it
    // knows nothing of: 0.995): as a plain `l.relation = ANY(…)` it was estimated at a row or two per slot row, and
    // the planner then sorted every link of a busy address (62 ms for a page of 1,000 over 27,300 links) instead of
    // reading its slot rows newest first and stopping after the page (3 ms; docs/benchmarks.md#address-slots).
    // A read that selects no balance changes leaves the row's changes alone: taking them apart (and decompressing a
    // busy address's row first) cost a third of a page of 100 signatures of the busiest address.
    return {
      from: `address_slots a CROSS JOIN LATERAL ROWS FROM (unnest(a.tx_index), unnest(a.relation)${withChanges ? ', jsonb_array_elements(a.changes)' : ''}) AS l(tx_index, relation${withChanges ? ', changes' : ''})
        ${tx('a.slot', 'l.tx_index')}`,
      address: 'a.address', filter: `(CASE WHEN l.relation = ANY(${relations}) THEN 1 END) IS NOT NULL`, slot: 'a.slot', index: 'l.tx_index',
      changes: withChanges ? `NULLIF(l.changes, 'null'::jsonb)` : 'NULL::jsonb',
    };
  }
  return {
    // The entries in key order; each one's link found in its slot row by position (array_position), in a LATERAL
    // subquery as the transaction's, so the plan walks the entries' index and stops after a page. The row's changes
    // are taken apart only where a read selects them.
    from: `address_typed y
        CROSS JOIN LATERAL (SELECT p.k, a.changes AS row_changes
                              FROM address_slots a CROSS JOIN LATERAL (SELECT array_position(a.tx_index, y.tx_index) AS k) p
                             WHERE a.address = y.address AND a.slot = y.slot AND a.relation[p.k] = ANY(${relations}) LIMIT 1) l
        ${tx('y.slot', 'y.tx_index')}`,
    address: 'y.address', filter: `${typeCondition('y.enhanced_type')} AND ${typeCondition('t.enhanced_type')}`, slot: 'y.slot', index: 'y.tx_index',
    changes: `NULLIF(l.row_changes -> (l.k - 1), 'null'::jsonb)`,
  };
}

/** One page of a wallet's transactions, newest first (or oldest first when `ascending`), keyset-paginated. */
export async function queryHistory(q: Queryable, h: HistoryQuery): Promise<HistoryRow[]> {
  // Relations 1..maxRelation.
  const params: unknown[] = [h.address, [1, 2, 3].filter((r) => r <= h.maxRelation), h.maxSlot, h.limit];
  let typeCondition: ((column: string) => string) | null = null;
  if (h.type !== undefined) {
    if (h.type === 'UNKNOWN') throw new Error('queryHistory: UNKNOWN is not a type filter');
    params.push(h.type);
    const n = params.length;
    typeCondition = (column) => `${column} = $${n}`;
  }
  const src = linkSource(typeCondition, '$2::smallint[]');
  let bound = '';
  if (h.from) {
    params.push(h.from.slot, h.from.txIndex);
    const [s, i] = [params.length - 1, params.length];
    bound = `AND ${src.slot} ${h.ascending ? '>=' : '<='} $${s} AND (${src.slot}, ${src.index}) ${h.ascending ? '>' : '<'} ($${s}, $${i})`;
  }
  const dir = h.ascending ? 'ASC' : 'DESC';
  const { rows } = await q.query<{
    signature: string; slot: number; tx_index: number; block_time: number | null; fee: number | null;
    fee_payer: string; err: unknown; changes: BalanceChange[] | null;
  }>(
    `SELECT t.signature, ${src.slot} AS slot, ${src.index} AS tx_index, t.block_time, t.fee, t.fee_payer, t.err, ${src.changes} AS changes
       FROM ${src.from}
      WHERE ${src.address} = $1 AND ${src.filter} AND ${src.slot} <= $3 ${bound}
      ORDER BY ${src.slot} ${dir}, ${src.index} ${dir}
      LIMIT $4`,
    params,
  );
  return rows.map((r) => ({
    signature: r.signature,
    slot: Number(r.slot),
    txIndex: r.tx_index,
    blockTime: r.block_time == null ? null : Number(r.block_time),
    fee: r.fee == null ? null : Number(r.fee),
    feePayer: r.fee_payer,
    err: r.err ?? null,
    changes: r.changes ?? [],
  }));
}

type Range = Partial<Record<'gt' | 'gte' | 'lt' | 'lte' | 'eq', number | string>>;

/** A page of `getTransactionsForAddress` (src/api/rpc/methods/getTransactionsForAddress.ts). */
export interface AddressTxQuery {
  address: string;
  desc: boolean;
  limit: number;
  /** Continue after this (slot, position) in the listing direction. */
  after?: { slot: number; index: number };
  slot?: Range;
  blockTime?: Range;
  signature?: Range;
  status: 'succeeded' | 'failed' | 'any';
  /** address_transactions relations to include (1 direct, 2 balance of an owned token account changed, 3 touched). */
  relations: number[];
  /** Only these enhanced types (the classification stored with the row). */
  types?: string[];
}

export interface AddressTxRow {
  signature: string;
  slot: number;
  txIndex: number;
  blockTime: number | null;
  err: unknown;
  /** agave's memo string; null when none; '' when not known (indexed before migration 028). */
  memo: string | null;
}

const OPS = { gt: '>', gte: '>=', lt: '<', lte: '<=', eq: '=' } as const;

/** One page of an address's transactions by the extension's filters; `more` when rows follow it. */
export async function addressTransactionsPage(q: Queryable, x: AddressTxQuery): Promise<{ rows: AddressTxRow[]; more: boolean }> {
  const params: unknown[] = [x.address, x.relations];
  // A type filter reads address_typed, which has no UNKNOWN entries; one that names UNKNOWN filters the slot rows'
  // transactions by their type instead.
  let typeCondition: ((column: string) => string) | null = null;
  const where: string[] = [];
  if (x.types?.length) {
    params.push(x.types);
    const n = params.length;
    if (x.types.includes('UNKNOWN')) where.push(`t.enhanced_type = ANY($${n}::text[])`);
    else typeCondition = (column) => `${column} = ANY($${n}::text[])`;
  }
  const src = linkSource(typeCondition, '$2::smallint[]', false);
  where.unshift(`${src.address} = $1`, src.filter);
  const add = (col: string, r: Range | undefined, cast: string) => {
    for (const [k, v] of Object.entries(r ?? {})) {
      params.push(v);
      where.push(`${col} ${OPS[k as keyof typeof OPS]} $${params.length}::${cast}`);
    }
  };
  add(src.slot, x.slot, 'int8');
  add('t.block_time', x.blockTime, 'int8');
  add('t.signature', x.signature, 'text');
  if (x.status === 'succeeded') where.push('t.err IS NULL');
  if (x.status === 'failed') where.push('t.err IS NOT NULL');
  if (x.after) {
    params.push(x.after.slot, x.after.index);
    const [s, i] = [params.length - 1, params.length];
    where.push(`${src.slot} ${x.desc ? '<=' : '>='} $${s}::int8`, `(${src.slot}, ${src.index}) ${x.desc ? '<' : '>'} ($${s}::int8, $${i}::int4)`);
  }
  params.push(x.limit + 1);
  const dir = x.desc ? 'DESC' : 'ASC';
  const { rows } = await q.query<{ signature: string; slot: string | number; tx_index: number; block_time: string | number | null; err: unknown; memo: string | null }>(
    `SELECT t.signature, ${src.slot} AS slot, ${src.index} AS tx_index, t.block_time, t.err, t.memo
       FROM ${src.from}
      WHERE ${where.join(' AND ')}
      ORDER BY ${src.slot} ${dir}, ${src.index} ${dir}
      LIMIT $${params.length}`,
    params,
  );
  const more = rows.length > x.limit;
  return {
    more,
    rows: rows.slice(0, x.limit).map((r) => ({
      signature: r.signature, slot: Number(r.slot), txIndex: r.tx_index, blockTime: r.block_time == null ? null : Number(r.block_time), err: r.err ?? null,
      memo: r.memo,
    })),
  };
}

/** Where a transaction of the index sits (slot, position), or null when the index does not hold it. */
export async function transactionPosition(q: Queryable, signature: string): Promise<{ slot: number; index: number } | null> {
  const { rows } = await q.query<{ slot: string | number; tx_index: number }>('SELECT slot, tx_index FROM transactions WHERE signature = $1 ORDER BY slot DESC LIMIT 1', [signature]);
  return rows.length ? { slot: Number(rows[0].slot), index: rows[0].tx_index } : null;
}

/** Addresses per query of `writtenBetween`. */
const WRITTEN_BATCH = 5000;

/**
 * Which of `addresses` an indexed transaction of slots `from`..`to` wrote: a direct link (relation 1) whose written
 * flag is not false (NULL — rows from before migration 027, records without a header — counts as written). One
 * query per WRITTEN_BATCH addresses, each an EXISTS probe of address_slots' key (address, slot) and the links of the
 * rows it finds (a NULL `writable` array: no flags known, every link counts).
 */
export async function writtenBetween(q: Queryable, addresses: readonly string[], from: number, to: number): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < addresses.length; i += WRITTEN_BATCH) {
    const { rows } = await q.query<{ address: string }>(
      `SELECT k.address FROM unnest($1::text[]) AS k(address)
        WHERE EXISTS (SELECT 1 FROM address_slots a CROSS JOIN LATERAL unnest(a.relation, a.writable) AS l(relation, writable)
                       WHERE a.address = k.address AND a.slot >= $2 AND a.slot <= $3 AND l.relation = 1 AND l.writable IS NOT FALSE)`,
      [addresses.slice(i, i + WRITTEN_BATCH), from, to],
    );
    for (const r of rows) out.add(r.address);
  }
  return out;
}
