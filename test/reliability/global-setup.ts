/** Starts a fresh report before the suites and prints / writes it after them (test/reliability/report.ts). */
import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LONG, OUT_DIR, readSections } from './report.js';

export function setup(): void {
  rmSync(join(OUT_DIR, 'sections'), { recursive: true, force: true });
}

export function teardown(): void {
  const sections = readSections().filter((s) => Object.keys(s).length > 0);
  mkdirSync(OUT_DIR, { recursive: true });
  const report = { variant: LONG ? 'long' : 'short', at: new Date().toISOString(), sections };
  writeFileSync(join(OUT_DIR, 'report.json'), JSON.stringify(report, null, 2));
  const lines = ['', `== reliability report (${report.variant} variant) — .reliability-out/report.json`];
  for (const s of sections) {
    const { section, at: _at, ...figures } = s as Record<string, unknown>;
    lines.push(`-- ${String(section)}`);
    for (const [k, v] of Object.entries(figures)) lines.push(`   ${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  }
  console.log(lines.join('\n'));
}
