/**
 * COPY text (src/store/copy-text.ts) through the database's own COPY parser (`Queryable.copyFrom`, a transaction of
 * either driver): awkward values come back as they went in, and a row that breaks a key fails the COPY as a whole.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyField, copyPieces, copyText } from '../../src/store/copy-text.js';
import { addressLinksCopy } from '../../src/store/chain.js';
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

  it('writes address links in key order (address, slot, position), whatever order they come in', () => {
    const link = (address: string, slot: number, txIndex: number): AddressLinkRow => ({ address, slot, txIndex, relation: 1, changes: null, enhancedType: null, writable: null });
    const rows = [link('B', 5, 1), link('A', 7, 0), link('B', 5, 0), link('a', 1, 0), link('A', 6, -3), link('B', 4, 9), link('A', 6, 2)];
    const copied = addressLinksCopy(rows);
    expect(copied?.columns).toEqual(['address', 'slot', 'tx_index', 'relation', 'changes', 'enhanced_type', 'writable']);
    const text = copied?.text.join('') ?? '';
    const keys = text.trimEnd().split('\n').map((line) => line.split('\t').slice(0, 3).join(' '));
    expect(keys).toEqual(['A 6 -3', 'A 6 2', 'A 7 0', 'B 4 9', 'B 5 0', 'B 5 1', 'a 1 0']);
    expect(text.split('\n')[0]).toBe('A\t6\t-3\t1\t\\N\t\\N\t\\N');
    expect(addressLinksCopy([])).toBeNull();
    // Every field of a link: balance changes as JSON (a backslash in it escaped for COPY), the type, the flag.
    const full: AddressLinkRow = { address: 'C', slot: 3, txIndex: 0, relation: 2, changes: [{ mint: 'M"x', amount: '-5', decimals: 6 }], enhancedType: 'SWAP', writable: false };
    expect(addressLinksCopy([full])?.text.join('')).toBe(String.raw`C	3	0	2	[{"mint":"M\\"x","amount":"-5","decimals":6}]	SWAP	f` + '\n');
  });
});
