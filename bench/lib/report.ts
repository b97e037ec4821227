/** Plain-text tables and the JSON result files of the benchmarks (`.bench-out/`, git-ignored). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (bench/lib/../..). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Formats rows as an aligned table; numeric-looking cells are right-aligned. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = (s: string) => /^[-+]?[\d,.]+(\s?(%|×|s|ms|MB))?$/.test(s);
  const line = (r: string[]) =>
    r.map((c, i) => (i > 0 && numeric(c) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** Thousands separators; one decimal below 100, none above. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const digits = Math.abs(n) >= 100 || Number.isInteger(n) ? 0 : Math.abs(n) >= 10 ? 1 : 2;
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Writes `data` as pretty JSON to `.bench-out/<name>.json`; returns the path. */
export function writeResult(name: string, data: unknown): string {
  const dir = join(REPO_ROOT, '.bench-out');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(data, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
  return file;
}

/** The machine a benchmark ran on (for its result). */
export interface Machine {
  cpus: number;
  cpuModel: string;
  memGB: number;
  node: string;
  postgres: string;
  sharedBuffers: string;
}

export function machineInfo(postgres: string, sharedBuffers: string): Machine {
  return { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '?', memGB: Math.round(totalmem() / 1e9), node: process.version, postgres, sharedBuffers };
}

/** The report line of the machine and the database size. */
export function machineLine(m: Machine, sizeGB: number): string {
  return `    machine: ${m.cpus} × ${m.cpuModel}, ${m.memGB} GB; PostgreSQL ${m.postgres} (shared_buffers ${m.sharedBuffers}) on the same machine; node ${m.node}; database ${fmt(sizeGB)} GB`;
}
