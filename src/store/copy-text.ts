/**
 * Rows in the text format of PostgreSQL's `COPY … FROM STDIN` (https://www.postgresql.org/docs/current/sql-copy.html):
 * one line per row, fields separated by tabs, `\N` for NULL, and backslash, tab, newline and carriage return inside a
 * value written as `\\`, `\t`, `\n` and `\r`. Used for append-only rows written in bulk (src/store/write-block.ts),
 * where COPY takes about half the time of the same rows through `INSERT … SELECT … FROM unnest(…)`.
 */

/** A column of a COPY: how to read its value from a row (strings, numbers, bigints, booleans, or null). */
export type CopyField<R> = (row: R) => string | number | bigint | boolean | null | undefined;

const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One value as a COPY text field. */
export function copyField(v: string | number | bigint | boolean | null | undefined): string {
  switch (typeof v) {
    case 'string':
      return SPECIAL.test(v) ? v.replace(SPECIAL_ALL, (c) => ESCAPES[c]) : v;
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`copyField: ${v} is not a finite number`);
      return String(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 't' : 'f';
    default:
      return '\\N';
  }
}

/** Rows per piece of {@link copyPieces} and {@link CopyPieceCollector}: pieces of some 50-100 KB. */
const ROWS_PER_PIECE = 1024;

/**
 * `rows` as COPY text in pieces (to be sent in order), the fields of each row in the order of `fields`. Each row's
 * line is built alone and each piece joined once: appending every field to one growing string instead made a
 * rope of millions of short strings, three times the time for 66,000 rows shaped like a batch's address links
 * (synthetic ones, measured alone), most of it in the garbage collector.
 */
export function copyPieces<R>(rows: readonly R[], fields: readonly CopyField<R>[]): string[] {
  const last = fields.length - 1;
  const out = new CopyPieceCollector();
  for (const r of rows) {
    let line = '';
    for (let i = 0; i < last; i++) line += `${copyField(fields[i](r))}\t`;
    out.add(`${line}${copyField(fields[last](r))}\n`);
  }
  return out.pieces();
}

/**
 * COPY lines (each with its fields already in COPY text, the line break included) gathered into pieces of
 * {@link ROWS_PER_PIECE} lines, each piece joined once: for a table written often enough to have a line builder of
 * its own (address links, src/store/chain.ts).
 */
export class CopyPieceCollector {
  private done: string[] = [];
  private lines: string[] = [];
  add(line: string): void {
    this.lines.push(line);
    if (this.lines.length === ROWS_PER_PIECE) {
      this.done.push(this.lines.join(''));
      this.lines = [];
    }
  }
  /** The pieces, in the order their lines were added. */
  pieces(): string[] {
    if (this.lines.length) {
      this.done.push(this.lines.join(''));
      this.lines = [];
    }
    return this.done;
  }
}

/** `rows` as COPY text, the fields of each row in the order of `fields`. */
export function copyText<R>(rows: readonly R[], fields: readonly CopyField<R>[]): string {
  return copyPieces(rows, fields).join('');
}
