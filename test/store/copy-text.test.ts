/**
 * COPY text (src/store/copy-text.ts) through the database's own COPY parser (`Queryable.copyFrom`, a transaction of
 * either driver): awkward values come back as they went in, and a row that breaks a key fails the COPY as a whole.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyField, copyPieces, copyText } from '../../src/store/copy-text.js';
import { addressLinksCopies } from '../../src/store/address-links.js';
import type { AddressLinkRow } from '../../src/store/block-update.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  await t.db.exec('CREATE TABLE copy_probe (k int PRIMARY KEY, s text, n int8, j jsonb, b bool)');
}, 60_000);
afterAll(async () => t?.drop());

interface Row {
  k: number;
  s: string | null;
  n: bigint | number | null;
  j: string | null;
  b: boolean | null;
}
const FIELDS = [(r: Row) => r.k, (r: Row) => r.s, (r: Row) => r.n, (r: Row) => r.j, (r: Row) => r.b];
const COLUMNS = ['k', 's', 'n', 'j', 'b'];

async function copy(rows: Row[]): Promise<void> {
  await t.db.tx(async (q) => {
    expect(q.copyFrom).toBeTypeOf('function');
    await q.copyFrom?.('copy_probe', COLUMNS, copyText(rows, FIELDS));
  });
}

describe('COPY text', () => {
  it('writes NULL, booleans, integers and text with backslashes, tabs and line breaks exactly', async () => {
    const rows: Row[] = [
      { k: 1, s: 'plain', n: 9007199254740993n, j: '{"mint":"So11111111111111111111111111111111111111112","amount":"-5"}', b: true },
      { k: 2, s: 'a\\b\tc\nd\re \\N', n: -1, j: '{"s":"quote \\" and backslash \\\\ and tab \\t"}', b: false },
      { k: 3, s: '', n: 0, j: null, b: null },
      { k: 4, s: null, n: null, j: '[]', b: true },
      { k: 5, s: 'NULL', n: 12, j: '"\\\\N"', b: null },
    ];
    await copy(rows);
    const { rows: got } = await t.db.query<{ k: number; s: string | null; n: string | null; j: unknown; b: boolean | null }>(
      'SELECT k, s, n::text AS n, j, b FROM copy_probe ORDER BY k',
    );
    expect(got).toEqual(rows.map((r) => ({ k: r.k, s: r.s, n: r.n === null ? null : String(r.n), j: r.j === null ? null : JSON.parse(r.j), b: r.b })));
  });

  it('keeps nothing of a COPY that meets a stored key', async () => {
    await expect(copy([{ k: 6, s: 'new', n: 1, j: null, b: null }, { k: 1, s: 'again', n: 1, j: null, b: null }])).rejects.toMatchObject({ code: '23505' });
    const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM copy_probe WHERE k = 6 OR s = $1', ['again']);
    expect(rows[0].n).toBe(0);
  });

  it('sends text in several pieces, in order, rows and characters beyond ASCII whole', async () => {
    const rows: Row[] = Array.from({ length: 2500 }, (_, i) => ({ k: 1000 + i, s: `row ${i} ünï 🚀\t${'x'.repeat(i % 50)}`, n: BigInt(i) * 3n, j: null, b: i % 2 === 0 }));
    const pieces = copyPieces(rows, FIELDS);
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join('')).toBe(copyText(rows, FIELDS));
    await t.db.tx(async (q) => q.copyFrom?.('copy_probe', COLUMNS, pieces));
    const { rows: got } = await t.db.query<{ k: number; s: string; n: string; b: boolean }>('SELECT k, s, n::text AS n, b FROM copy_probe WHERE k >= 1000 ORDER BY k');
    expect(got).toEqual(rows.map((r) => ({ k: r.k, s: r.s, n: String(r.n), b: r.b })));
  });

  it('refuses a number that is not finite instead of writing text the column would take for something else', () => {
    expect(() => copyField(Number.NaN)).toThrow(/not a finite number/);
    expect(copyField(undefined)).toBe('\\N');
  });

  it('writes address links as rows per address and slot in key order (address, slot), positions ascending', () => {
    const link = (address: string, slot: number, txIndex: number): AddressLinkRow => ({ address, slot, txIndex, relation: 1, changes: null, enhancedType: null, writable: null });
    const rows = [link('B', 5, 1), link('A', 7, 0), link('B', 5, 0), link('a', 1, 0), link('A', 6, -3), link('B', 4, 9), link('A', 6, 2)];
    const [slots, ...rest] = addressLinksCopies(rows);
    expect(rest).toEqual([]);
    expect(slots.table).toBe('address_slots');
    expect(slots.columns).toEqual(['address', 'slot', 'tx_index', 'relation', 'changes', 'writable']);
    const lines = slots.text.join('').trimEnd().split('\n');
    expect(lines.map((line: string) => line.split('\t').slice(0, 3).join(' '))).toEqual(['A 6 {-3,2}', 'A 7 {0}', 'B 4 {9}', 'B 5 {0,1}', 'a 1 {0}']);
    expect(lines[0]).toBe('A\t6\t{-3,2}\t{1,1}\t\\N\t\\N');
    expect(addressLinksCopies([])).toEqual([]);
    // Every field of a link: balance changes as a JSON array aligned with the positions (a backslash in it escaped
    // for COPY), the written flags, and the typed entry.
    const full: AddressLinkRow = { address: 'C', slot: 3, txIndex: 0, relation: 2, changes: [{ mint: 'M"x', amount: '-5', decimals: 6 }], enhancedType: 'SWAP', writable: false };
    const [fullSlots, fullTyped] = addressLinksCopies([full, { ...link('C', 3, 4), relation: 3 }]);
    expect(fullSlots.text.join('')).toBe(String.raw`C	3	{0,4}	{2,3}	[[{"mint":"M\\"x","amount":"-5","decimals":6}],null]	{f,NULL}` + '\n');
    expect(fullTyped.table).toBe('address_typed');
    expect(fullTyped.text.join('')).toBe('C\tSWAP\t3\t0\n');
  });

  it('orders the typed entries by (address, type, slot, position) and leaves UNKNOWN and untyped links out', () => {
    const link = (slot: number, txIndex: number, enhancedType: string | null): AddressLinkRow => ({ address: 'W', slot, txIndex, relation: 1, changes: null, enhancedType, writable: true });
    const copies = addressLinksCopies([link(1, 0, 'TRANSFER'), link(1, 1, 'UNKNOWN'), link(2, 0, 'SWAP'), link(2, 5, null), link(3, 0, 'TRANSFER')]);
    expect(copies[0].text.join('')).toBe('W\t1\t{0,1}\t{1,1}\t\\N\t{t,t}\nW\t2\t{0,5}\t{1,1}\t\\N\t{t,t}\nW\t3\t{0}\t{1}\t\\N\t{t}\n');
    expect(copies[1].text.join('')).toBe('W\tSWAP\t2\t0\nW\tTRANSFER\t1\t0\nW\tTRANSFER\t3\t0\n');
  });

  it('refuses a link given twice rather than store a position twice in a slot row', () => {
    const link: AddressLinkRow = { address: 'W', slot: 1, txIndex: 4, relation: 1, changes: null, enhancedType: null, writable: true };
    expect(() => addressLinksCopies([link, { ...link, txIndex: 2 }, { ...link, relation: 3 }])).toThrow(/W at 1\/4 twice/);
  });
});
