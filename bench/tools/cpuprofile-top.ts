/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the most self time and the most
 * inclusive time (recursion counted once), with file:line, so a benchmark run can say where the time went.
 *
 *   node --cpu-prof --cpu-prof-dir=.bench-out/prof --import tsx bench/run.ts ingest
 *   npx tsx bench/tools/cpuprofile-top.ts .bench-out/prof/<file>.cpuprofile [--top 40] [--filter src/]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** One row of the summary: a function and its self/inclusive milliseconds. */
export interface FunctionTime {
  fn: string;
  selfMs: number;
  totalMs: number;
}

function label(n: ProfileNode): string {
  const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'nm:').replace(/^.*\/work\/main\//, '');
  return `${n.callFrame.functionName || '(anonymous)'} ${url ? `${url}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
}

/** Self and inclusive time per function of a parsed profile, sorted by self time. */
export function summarise(p: Profile): FunctionTime[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  p.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const n of p.nodes) {
    const us = selfUs.get(n.id) ?? 0;
    if (!us) continue;
    const key = label(n);
    self.set(key, (self.get(key) ?? 0) + us);
    // Attribute to every distinct function on the stack once.
    const seen = new Set<string>();
    for (let cur: number | undefined = n.id; cur !== undefined; cur = parent.get(cur)) {
      const k = label(byId.get(cur)!);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us);
    }
  }
  return [...total.keys()]
    .map((fn) => ({ fn, selfMs: (self.get(fn) ?? 0) / 1000, totalMs: (total.get(fn) ?? 0) / 1000 }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--'));
  if (!file) {
    console.error('usage: tsx bench/tools/cpuprofile-top.ts <file.cpuprofile> [--top N] [--filter substring]');
    process.exit(2);
  }
  const top = Number(args[args.indexOf('--top') + 1]) || 30;
  const filter = args.includes('--filter') ? args[args.indexOf('--filter') + 1] : '';
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const rows = summarise(p).filter((r) => r.fn.includes(filter));
  const wall = (p.endTime - p.startTime) / 1000;
  console.log(`profile: ${wall.toFixed(0)} ms wall\n\nTop self time:`);
  for (const r of rows.slice(0, top)) console.log(`${r.selfMs.toFixed(0).padStart(8)} ms self ${r.totalMs.toFixed(0).padStart(8)} ms total  ${r.fn}`);
  console.log('\nTop inclusive time:');
  for (const r of [...rows].sort((a, b) => b.totalMs - a.totalMs).slice(0, top))
    console.log(`${r.totalMs.toFixed(0).padStart(8)} ms total ${r.selfMs.toFixed(0).padStart(8)} ms self  ${r.fn}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
