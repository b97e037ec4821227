/**
 * Table family "chain": blocks, transactions and the ingest checkpoint (the address links' writes are in
 * ./address-links.ts).
 * Writers are idempotent (keyed by slot / signature); the reads of transactions and links are in ./chain-reads.ts.
 */
import type { Queryable } from './db.js';
import { bulkInsertStatement, run, withCopy, type BulkColumn, type Statement } from './bulk.js';
import type { BlockRow, TxRow } from './block-update.js';

const CHECKPOINT_ID = 'chain';

/** The checkpoint as a scalar subquery: a read statement selects it beside its rows (one snapshot, one round trip). */
export const CHECKPOINT_SLOT_SQL = `(SELECT slot FROM ingest_checkpoint WHERE id = '${CHECKPOINT_ID}')`;

export function blocksStatement(rows: BlockRow[]): Statement | null {
  return bulkInsertStatement(
    'blocks',
    [
      { name: 'slot', type: 'bigint', get: (r: BlockRow) => r.slot },
      { name: 'parent_slot', type: 'bigint', get: (r) => r.parentSlot },
      { name: 'blockhash', type: 'text', get: (r) => r.blockhash },
      { name: 'block_time', type: 'bigint', get: (r) => r.blockTime },
      { name: 'block_height', type: 'bigint', get: (r) => r.blockHeight },
      { name: 'tx_count', type: 'int', get: (r) => r.txCount },
    ],
    rows,
    'ON CONFLICT (slot) DO NOTHING',
  );
}

export async function writeBlocks(q: Queryable, rows: BlockRow[]): Promise<void> {
  await run(q, blocksStatement(rows));
}

/** The columns of a transaction row, for the statement and (in this order) for COPY. */
const TX_COLUMNS: BulkColumn<TxRow>[] = [
  { name: 'signature', type: 'text', get: (r) => r.signature },
  { name: 'slot', type: 'bigint', get: (r) => r.slot },
  { name: 'tx_index', type: 'int', get: (r) => r.txIndex },
  { name: 'block_time', type: 'bigint', get: (r) => r.blockTime },
  { name: 'fee', type: 'bigint', get: (r) => r.fee },
  { name: 'fee_payer', type: 'text', get: (r) => r.feePayer },
  { name: 'err', type: 'jsonb', get: (r) => (r.err == null ? null : JSON.stringify(r.err)) },
  { name: 'has_meta', type: 'bool', get: (r) => r.hasMeta },
  { name: 'enhanced_type', type: 'text', get: (r) => r.enhancedType },
  { name: 'memo', type: 'text', get: (r) => r.memo },
];

/**
 * `fresh`: the rows are taken to be new (whole blocks not written before, src/store/write-block.ts): a plain INSERT,
 * which a stored key fails as a whole (the caller then writes the guarded statement), also as COPY (`copy`).
 */
export function transactionsStatement(rows: TxRow[], fresh = false): Statement | null {
  const s = bulkInsertStatement(
    'transactions',
    TX_COLUMNS,
    rows,
    // A record with meta completes one seen earlier without it (Geyser-style); otherwise the first write stays,
    // except that a row without a type (written before migration 015) takes the type of a record at least as
    // complete (re-ingesting old slots fills types in), and a row whose memo is not known ('', written before
    // migration 028) takes the record's. The key is (signature, slot): the table is partitioned by slot (migration 032).
    fresh
      ? ''
      : `ON CONFLICT (signature, slot) DO UPDATE SET
       fee = CASE WHEN t.has_meta THEN t.fee ELSE EXCLUDED.fee END,
       err = CASE WHEN t.has_meta THEN t.err ELSE EXCLUDED.err END,
       has_meta = t.has_meta OR EXCLUDED.has_meta,
       block_time = COALESCE(t.block_time, EXCLUDED.block_time),
       enhanced_type = COALESCE(EXCLUDED.enhanced_type, t.enhanced_type),
       memo = CASE WHEN t.memo = '' THEN EXCLUDED.memo ELSE t.memo END
     WHERE (NOT t.has_meta AND EXCLUDED.has_meta)
        OR (t.enhanced_type IS NULL AND EXCLUDED.enhanced_type IS NOT NULL AND EXCLUDED.has_meta >= t.has_meta)
        OR (t.memo = '' AND EXCLUDED.memo IS DISTINCT FROM '')`,
  );
  return fresh ? withCopy(s, 'transactions', TX_COLUMNS, rows) : s;
}

export async function writeTransactions(q: Queryable, rows: TxRow[]): Promise<void> {
  await run(q, transactionsStatement(rows));
}

/** Moves the checkpoint forward to `slot` (never back). */
export function checkpointStatement(slot: number): Statement {
  return {
    sql: `INSERT INTO ingest_checkpoint AS t (id, slot) VALUES ($1, $2)
     ON CONFLICT (id) DO UPDATE SET slot = GREATEST(t.slot, EXCLUDED.slot), updated_at = now()`,
    params: [CHECKPOINT_ID, slot],
  };
}

export async function advanceCheckpoint(q: Queryable, slot: number): Promise<void> {
  await run(q, checkpointStatement(slot));
}

/** NOTIFY channel of a moved checkpoint (a hint for processes that follow the committed blocks; they also poll). */
export const BLOCKS_CHANNEL = 'solgate_blocks';

export async function notifyBlocksWritten(q: Queryable): Promise<void> {
  await q.query(`SELECT pg_notify('${BLOCKS_CHANNEL}', '')`);
}

/**
 * Which of `slots` hold a block row, as slot → blockhash. A block row is written in the same transaction as every
 * other row of its block (live, replay, or a whole-block history write), so a stored (slot, blockhash) means the
 * block is applied.
 */
export async function writtenBlockHashes(q: Queryable, slots: readonly number[]): Promise<Map<number, string | null>> {
  if (!slots.length) return new Map();
  const { rows } = await q.query<{ slot: string | number; blockhash: string | null }>('SELECT slot, blockhash FROM blocks WHERE slot = ANY($1::bigint[])', [slots]);
  return new Map(rows.map((r) => [Number(r.slot), r.blockhash]));
}

/** The highest slot fully written, or null before anything was ingested. */
export async function getCheckpoint(q: Queryable): Promise<number | null> {
  const { rows } = await q.query<{ slot: number }>('SELECT slot FROM ingest_checkpoint WHERE id = $1', [CHECKPOINT_ID]);
  return rows.length ? Number(rows[0].slot) : null;
}
