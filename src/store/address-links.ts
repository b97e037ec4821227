/**
 * Writes of the address links (table family "chain", migration 046): `address_slots`, one row per address and slot
 * with the positions of its transactions there and, aligned with them, each link's relation, balance changes and
 * written flag; and `address_typed`, one entry per link whose transaction has a type other than UNKNOWN (the index of
 * the history's type filter). The reads are in ./chain-reads.ts.
 */
import type { Queryable } from './db.js';
import { arrayLiteral, combineStatements, run, type Copy, type Statement } from './bulk.js';
import { CopyPieceCollector, copyField } from './copy-text.js';
import type { AddressLinkRow, BalanceChange } from './block-update.js';

const SLOT_COLUMNS = ['address', 'slot', 'tx_index', 'relation', 'changes', 'writable'];
const TYPED_COLUMNS = ['address', 'enhanced_type', 'slot', 'tx_index'];

/** Whether a link goes to `address_typed`. */
const typed = (l: AddressLinkRow): l is AddressLinkRow & { enhancedType: string } => l.enhancedType != null && l.enhancedType !== 'UNKNOWN';

/**
 * The links (no two with the same address and position) as statements, one per table. Grouped into rows by the
 * statement itself (`GROUP BY address, slot` over the links' parallel arrays).
 *
 * `fresh`: the rows are taken to be new (a block not written before): plain INSERTs without ON CONFLICT. Where no
 * stored row has a key of the batch the two store the same rows, and the plain one is cheaper (no speculative
 * insertion, docs/benchmarks.md#replay); where one does, it fails with a unique violation and the caller writes again
 * with the guarded statements (src/store/write-block.ts). Guarded, a row of a stored (address, slot) is merged with it
 * by `solgate_merge_links` (migration 046): the union by position, the least relation, the latest known changes and
 * written flag; a typed entry already stored is left as it is.
 */
export function addressLinksStatements(rows: readonly AddressLinkRow[], fresh = false): Statement[] {
  if (!rows.length) return [];
  const out: Statement[] = [];
  const params = [
    arrayLiteral(rows.map((r) => r.address)),
    arrayLiteral(rows.map((r) => position(r).slot)),
    arrayLiteral(rows.map((r) => r.txIndex)),
    arrayLiteral(rows.map((r) => r.relation)),
    arrayLiteral(rows.map((r) => (r.changes ? changesJson(r.changes) : null))),
    arrayLiteral(rows.map((r) => r.writable)),
  ];
  out.push({
    sql: `INSERT INTO address_slots AS t (${SLOT_COLUMNS.join(', ')})
      SELECT address, slot, array_agg(tx_index ORDER BY tx_index), array_agg(relation ORDER BY tx_index),
             CASE WHEN bool_or(changes IS NOT NULL) THEN jsonb_agg(changes ORDER BY tx_index) END,
             CASE WHEN bool_or(writable IS NOT NULL) THEN array_agg(writable ORDER BY tx_index) END
        FROM unnest($1::text[], $2::bigint[], $3::int[], $4::smallint[], $5::jsonb[], $6::bool[])
             AS u(address, slot, tx_index, relation, changes, writable)
       GROUP BY address, slot ORDER BY address, slot ${fresh
         ? ''
         : `ON CONFLICT (address, slot) DO UPDATE SET (tx_index, relation, changes, writable) =
         (SELECT m.tx_index, m.relation, m.changes, m.writable
            FROM solgate_merge_links(t.tx_index, t.relation, t.changes, t.writable,
                                     EXCLUDED.tx_index, EXCLUDED.relation, EXCLUDED.changes, EXCLUDED.writable) m)
       WHERE (t.tx_index, t.relation, t.changes, t.writable)
             IS DISTINCT FROM (EXCLUDED.tx_index, EXCLUDED.relation, EXCLUDED.changes, EXCLUDED.writable)`}`,
    params,
  });
  const types = rows.filter(typed);
  if (types.length) {
    out.push({
      sql: `INSERT INTO address_typed AS t (${TYPED_COLUMNS.join(', ')})
        SELECT address, enhanced_type, slot, tx_index FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[])
               AS u(address, enhanced_type, slot, tx_index)
         ORDER BY address, enhanced_type, slot, tx_index ${fresh ? '' : 'ON CONFLICT DO NOTHING'}`,
      params: [
        arrayLiteral(types.map((r) => r.address)),
        arrayLiteral(types.map((r) => r.enhancedType)),
        arrayLiteral(types.map((r) => r.slot)),
        arrayLiteral(types.map((r) => r.txIndex)),
      ],
    });
  }
  return out;
}

/** Writes links with the guarded statements, as one statement (both tables or neither). */
export async function writeAddressLinks(q: Queryable, rows: AddressLinkRow[]): Promise<void> {
  const stmts = addressLinksStatements(rows);
  if (stmts.length) await run(q, combineStatements(stmts));
}

/**
 * New links (as `addressLinksStatements(rows, true)`) as COPY text, for a transaction that can COPY
 * (`Queryable.copyFrom`): the `address_slots` rows and the `address_typed` entries, each in key order. COPY takes
 * about half the time of the plain insert from arrays (docs/benchmarks.md#replay); like it, it fails as a whole on a
 * stored key.
 */
export function addressLinksCopies(rows: readonly AddressLinkRow[]): Copy[] {
  if (!rows.length) return [];
  const { slots, typedLines } = linesInKeyOrder(rows);
  const out: Copy[] = [{ table: 'address_slots', columns: SLOT_COLUMNS, text: slots }];
  if (typedLines.length) out.push({ table: 'address_typed', columns: TYPED_COLUMNS, text: typedLines });
  return out;
}

/** A link's position, checked: a position that is not an integer throws here rather than reach the COPY as text. */
function position(r: AddressLinkRow): AddressLinkRow {
  if (!Number.isSafeInteger(r.slot) || !Number.isSafeInteger(r.txIndex)) throw new Error(`address link: position ${r.slot}/${r.txIndex} is not an integer`);
  return r;
}

/**
 * One `address_slots` COPY line for the links `group[from..to)` (one address, one slot, positions ascending), the
 * address already a COPY field.
 */
function slotLine(address: string, group: readonly AddressLinkRow[], from: number, to: number): string {
  let txs = '';
  let rels = '';
  let changes = '';
  let written = '';
  let anyChanges = false;
  let anyWritten = false;
  for (let i = from; i < to; i++) {
    const r = position(group[i]);
    if (i > from && r.txIndex === group[i - 1].txIndex) throw new Error(`address link: ${r.address} at ${r.slot}/${r.txIndex} twice (links must be distinct)`);
    const sep = i === from ? '' : ',';
    txs += `${sep}${r.txIndex}`;
    rels += `${sep}${r.relation}`;
    if (r.changes) anyChanges = true;
    changes += `${sep}${r.changes ? changesJson(r.changes) : 'null'}`;
    if (r.writable != null) anyWritten = true;
    written += `${sep}${r.writable == null ? 'NULL' : r.writable ? 't' : 'f'}`;
  }
  return `${address}\t${group[from].slot}\t{${txs}}\t{${rels}}\t${anyChanges ? copyField(`[${changes}]`) : '\\N'}\t${anyWritten ? `{${written}}` : '\\N'}\n`;
}

/**
 * The links' COPY lines (in pieces): `address_slots` rows ordered by (address, slot), the distinct addresses sorted
 * by UTF-16 code unit (PostgreSQL's order for base58 under the C collation; under another only an insertion order),
 * each address's links in position order (sorted only where a group is not: one sort of all the links took 0.7 s of
 * a 50-block replay), a row per run of one slot; and the typed entries ordered by (address, type, slot, position).
 * Made while walking the groups: no ordered copy of the rows, each address escaped once, an address met once held as
 * its row.
 */
function linesInKeyOrder(rows: readonly AddressLinkRow[]): { slots: string[]; typedLines: string[] } {
  const byAddress = new Map<string, AddressLinkRow | AddressLinkRow[]>();
  for (const r of rows) {
    const group = byAddress.get(r.address);
    if (group === undefined) byAddress.set(r.address, r);
    else if (Array.isArray(group)) group.push(r);
    else byAddress.set(r.address, [group, r]);
  }
  const out = new CopyPieceCollector();
  const typedOut = new CopyPieceCollector();
  const typedOf: AddressLinkRow[] = [];
  for (const address of [...byAddress.keys()].sort()) {
    const entry = byAddress.get(address) as AddressLinkRow | AddressLinkRow[];
    const group = Array.isArray(entry) ? entry : [entry];
    const field = copyField(address);
    let ordered = true;
    for (let i = 1; i < group.length && ordered; i++) ordered = group[i - 1].slot < group[i].slot || (group[i - 1].slot === group[i].slot && group[i - 1].txIndex < group[i].txIndex);
    if (!ordered) group.sort((a, b) => a.slot - b.slot || a.txIndex - b.txIndex);
    let from = 0;
    for (let i = 1; i <= group.length; i++) {
      if (i < group.length && group[i].slot === group[from].slot) continue;
      out.add(slotLine(field, group, from, i));
      from = i;
    }
    typedOf.length = 0;
    for (const r of group) if (typed(r)) typedOf.push(r);
    if (typedOf.length > 1) typedOf.sort((a, b) => (a.enhancedType === b.enhancedType ? 0 : (a.enhancedType as string) < (b.enhancedType as string) ? -1 : 1) || a.slot - b.slot || a.txIndex - b.txIndex);
    for (const r of typedOf) typedOut.add(`${field}\t${copyField(r.enhancedType)}\t${r.slot}\t${r.txIndex}\n`);
  }
  return { slots: out.pieces(), typedLines: typedOut.pieces() };
}

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
