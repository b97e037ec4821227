/**
 * `npm run bench [-- <name>… ] [--options]`: runs every benchmark in bench/*.ts (each exports
 * `run(argv)` and `description`), or only the named ones; options are passed to each benchmark. A benchmark that
 * exports `onlyWhenNamed = true` (e.g. `das`, which builds a multi-GB database) runs only when named.
 *
 *   npm run bench                       # all benchmarks (but the only-when-named ones)
 *   npm run bench -- ingest --blocks 60 # one, with options
 *   npm run bench -- das --assets 100000 --keep
 *   npm run bench -- --help             # list them
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The contract of a benchmark module. */
export interface BenchModule {
  description?: string;
  /** Skipped by a bare `npm run bench`; runs when named. */
  onlyWhenNamed?: boolean;
  run(argv: string[]): Promise<unknown>;
}

const here = dirname(fileURLToPath(import.meta.url));

/** Names of the benchmarks in bench/ (every top-level .ts file but this one). */
export function listBenchmarks(): string[] {
  return readdirSync(here)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.endsWith('.d.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
}

async function load(name: string): Promise<BenchModule> {
  return (await import(pathToFileURL(join(here, `${name}.ts`)).href)) as BenchModule;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const available = listBenchmarks();
  const names: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const isFlagValue = i > 0 && argv[i - 1].startsWith('--') && !argv[i - 1].includes('=') && !a.startsWith('--');
    if (a.startsWith('--') || isFlagValue) rest.push(a);
    else names.push(a);
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log('usage: npm run bench [-- <name>…] [--options]\n\nbenchmarks:');
    for (const n of available) {
      const mod = await load(n);
      console.log(`  ${n.padEnd(12)} ${mod.description ?? ''}${mod.onlyWhenNamed ? ' (only when named)' : ''}`);
    }
    return 0;
  }
  const unknown = names.filter((n) => !available.includes(n));
  if (unknown.length) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
    return 2;
  }
  for (const name of names.length ? names : available) {
    const mod = await load(name);
    if (typeof mod.run !== 'function') throw new Error(`bench/${name}.ts does not export run(argv)`);
    if (!names.length && mod.onlyWhenNamed) {
      console.log(`bench: skipping ${name} (runs only when named: npm run bench -- ${name})`);
      continue;
    }
    await mod.run(rest);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  },
);
