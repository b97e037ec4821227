/**
 * Table family "chain": blocks, transactions, address→transaction links and the ingest checkpoint.
 * Writers are idempotent (keyed by slot / signature); the reads of transactions and links are in ./chain-reads.ts.
 */
import type { Queryable } from './db.js';
import { bulkInsertStatement, run, type BulkColumn, type Copy, type Statement } from './bulk.js';
import { CopyPieceCollector, copyField } from './copy-text.js';
import type { AddressLinkRow, BalanceChange, BlockRow, TxRow } from './block-update.js';

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

export function transactionsStatement(rows: TxRow[]): Statement | null {
  return bulkInsertStatement(
    'transactions',
    [
      { name: 'signature', type: 'text', get: (r: TxRow) => r.signature },
      { name: 'slot', type: 'bigint', get: (r) => r.slot },
      { name: 'tx_index', type: 'int', get: (r) => r.txIndex },
      { name: 'block_time', type: 'bigint', get: (r) => r.blockTime },
      { name: 'fee', type: 'bigint', get: (r) => r.fee },
      { name: 'fee_payer', type: 'text', get: (r) => r.feePayer },
      { name: 'err', type: 'jsonb', get: (r) => (r.err == null ? null : JSON.stringify(r.err)) },
      { name: 'has_meta', type: 'bool', get: (r) => r.hasMeta },
      { name: 'enhanced_type', type: 'text', get: (r) => r.enhancedType },
      { name: 'memo', type: 'text', get: (r) => r.memo },
    ],
    rows,
    // A record with meta completes one seen earlier without it (Geyser-style); otherwise the first write stays,
    // except that a row without a type (written before migration 015) takes the type of a record at least as
    // complete (re-ingesting old slots fills types in), and a row whose memo is not known ('', written before
    // migration 028) takes the record's. The key is (signature, slot): the table is partitioned by slot (migration 032).
    `ON CONFLICT (signature, slot) DO UPDATE SET
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
}

export async function writeTransactions(q: Queryable, rows: TxRow[]): Promise<void> {
  await run(q, transactionsStatement(rows));
}

/**
 * `fresh`: the rows are taken to be new (a block not written before): a plain INSERT without the ON CONFLICT clause.
 * Where no stored row has a key of the batch the two store the same rows, and the plain one is cheaper (no
 * speculative insertion: 0.64-0.78x the time of the guarded insert of 8 real blocks' links, docs/benchmarks.md#replay);
 * where one does, it fails with a unique violation and the caller writes again with the guarded statement
 * (src/store/write-block.ts).
 */
export function addressLinksStatement(rows: AddressLinkRow[], fresh = false): Statement | null {
  return bulkInsertStatement(
    'address_transactions',
    LINK_COLUMNS,
    rows,
    // The type and the written flag follow the latest record that has one (a record with meta normally comes last;
    // a row written before migration 027 gets its flag when its slot is ingested again).
    // Keyed by position (migration 040): (slot, tx_index) identifies the transaction, whose row holds the signature
    // (migration 044).
    fresh
      ? ''
      : `ON CONFLICT (address, slot, tx_index) DO UPDATE SET
       relation = LEAST(t.relation, EXCLUDED.relation), changes = COALESCE(EXCLUDED.changes, t.changes),
       enhanced_type = COALESCE(EXCLUDED.enhanced_type, t.enhanced_type), writable = COALESCE(EXCLUDED.writable, t.writable)`,
    undefined,
    // In key order rather than transaction order: 0.83-0.94x the insert's time in paired runs on real blocks
    // (docs/benchmarks.md#storage), the sort included.
    'address, slot, tx_index',
  );
}

/**
 * New links (as `addressLinksStatement(rows, true)`) as COPY text, for a transaction that can COPY
 * (`Queryable.copyFrom`): in key order, as the statement inserts them. COPY takes about half the time of the
 * plain insert from arrays (docs/benchmarks.md#replay); like it, it fails as a whole on a stored key.
 */
export function addressLinksCopy(rows: AddressLinkRow[]): Copy | null {
  if (!rows.length) return null;
  return { table: 'address_transactions', columns: LINK_COLUMNS.map((c) => c.name), text: linkLinesInKeyOrder(rows) };
}

/**
 * One link's COPY line in {@link LINK_COLUMNS}' order, its address already a COPY field: what `copyPieces` makes, built
 * directly. A position that is not an integer throws here rather than reach the COPY as text.
 */
function linkLine(address: string, r: AddressLinkRow): string {
  if (!Number.isSafeInteger(r.slot) || !Number.isSafeInteger(r.txIndex)) throw new Error(`address link: position ${r.slot}/${r.txIndex} is not an integer`);
  const changes = r.changes ? copyField(changesJson(r.changes)) : '\\N';
  const type = r.enhancedType == null ? '\\N' : copyField(r.enhancedType);
  const written = r.writable == null ? '\\N' : r.writable ? 't' : 'f';
  return `${address}\t${r.slot}\t${r.txIndex}\t${r.relation}\t${changes}\t${type}\t${written}\n`;
}

/**
 * The links' COPY lines (in pieces) ordered by (address, slot, tx_index): the distinct addresses sorted by UTF-16 code
 * unit (PostgreSQL's order for base58 under the C collation; under another only an insertion order), each address's
 * links in position order (sorted only where a group is not: one sort of all the links took 0.7 s of a 50-block
 * replay). Made while walking the groups: no ordered copy of the rows (a list that large is written through the write
 * barrier), each address escaped once, an address met once held as its row; 0.69x the time of ordering the rows and
 * then making their lines, for the 66,416 links of 8 copies of the recorded mainnet block.
 */
function linkLinesInKeyOrder(rows: readonly AddressLinkRow[]): string[] {
  const byAddress = new Map<string, AddressLinkRow | AddressLinkRow[]>();
  for (const r of rows) {
    const group = byAddress.get(r.address);
    if (group === undefined) byAddress.set(r.address, r);
    else if (Array.isArray(group)) group.push(r);
    else byAddress.set(r.address, [group, r]);
  }
  const out = new CopyPieceCollector();
  for (const address of [...byAddress.keys()].sort()) {
    const group = byAddress.get(address) as AddressLinkRow | AddressLinkRow[];
    const field = copyField(address);
    if (!Array.isArray(group)) {
      out.add(linkLine(field, group));
      continue;
    }
    let ordered = true;
    for (let i = 1; i < group.length && ordered; i++) ordered = group[i - 1].slot < group[i].slot || (group[i - 1].slot === group[i].slot && group[i - 1].txIndex < group[i].txIndex);
    if (!ordered) group.sort((a, b) => a.slot - b.slot || a.txIndex - b.txIndex);
    for (const r of group) out.add(linkLine(field, r));
  }
  return out.pieces();
}

export async function writeAddressLinks(q: Queryable, rows: AddressLinkRow[]): Promise<void> {
  await run(q, addressLinksStatement(rows));
}

/** The columns of `address_transactions` a link writes, for the statement and (in this order) for COPY (`linkLine`). */
const LINK_COLUMNS: BulkColumn<AddressLinkRow>[] = [
  { name: 'address', type: 'text', get: (r) => r.address },
  { name: 'slot', type: 'bigint', get: (r) => r.slot },
  { name: 'tx_index', type: 'int', get: (r) => r.txIndex },
  { name: 'relation', type: 'smallint', get: (r) => r.relation },
  { name: 'changes', type: 'jsonb', get: (r) => (r.changes ? changesJson(r.changes) : null) },
  { name: 'enhanced_type', type: 'text', get: (r) => r.enhancedType },
  { name: 'writable', type: 'bool', get: (r) => r.writable },
];

const PLAIN = /^[A-Za-z0-9]*$/;

/** `JSON.stringify(changes)` for the common case (base58 mints, digit amounts), without the generic walk. */
function changesJson(changes: BalanceChange[]): string {
  let out = '[';
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    if (!PLAIN.test(c.mint) || !/^-?\d+$/.test(c.amount) || !Number.isInteger(c.decimals)) return JSON.stringify(changes);
    out += `${i ? ',' : ''}{"mint":"${c.mint}","amount":"${c.amount}","decimals":${c.decimals}}`;
  }
  return `${out}]`;
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
