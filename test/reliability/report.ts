/**
 * The reliability suite's own report: each suite records its figures under a section name
 * (`record('ingest-crash', {kills: 23, ...})`); the global teardown prints every section and writes
 * .reliability-out/report.json. Sections are files under .reliability-out/sections, so suites in separate worker
 * processes add to one report.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const OUT_DIR = join(import.meta.dirname, '..', '..', '.reliability-out');
const SECTIONS = join(OUT_DIR, 'sections');

/** Whether the long variants run (SOLGATE_RELIABILITY_LONG=1). */
export const LONG = process.env.SOLGATE_RELIABILITY_LONG === '1';

/** Records (merges) figures of a section. */
export function record(section: string, figures: Record<string, unknown>): void {
  mkdirSync(SECTIONS, { recursive: true });
  const file = join(SECTIONS, `${section.replace(/[^a-z0-9_-]/gi, '_')}.json`);
  let prev: Record<string, unknown> = {};
  try {
    prev = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    /* first record of the section */
  }
  writeFileSync(file, JSON.stringify({ ...prev, ...figures, section, at: new Date().toISOString() }, null, 2));
}

/** Every recorded section. */
export function readSections(): Record<string, unknown>[] {
  try {
    return readdirSync(SECTIONS).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(SECTIONS, f), 'utf8')));
  } catch {
    return [];
  }
}

export function clearSections(): void {
  mkdirSync(SECTIONS, { recursive: true });
  for (const f of readdirSync(SECTIONS)) writeFileSync(join(SECTIONS, f), '{}');
}
