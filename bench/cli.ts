/**
 * `npm run bench -- cli`: start-up time of the `solgate` command, as ratios to a bare `node -e 0` measured in the
 * same run (the floor any Node.js command pays): `--help`, `config`, `keys list` on an embedded database that exists
 * (migrated by a first call), and `keys list` through a running `solgate serve` that owns the directory. Also the
 * same `--help` through the tsx loader on the TypeScript sources (what every call cost before the build).
 *
 *   npm run bench -- cli [--runs 15]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentiles, stopChild } from './lib/samples.js';
import { freePort } from '../test/helpers/net.js';

export const description = 'solgate command start-up (--help, config, keys list; direct and through a running server) against node -e 0';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'solgate.js');

function time(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export async function run(argv: string[]): Promise<void> {
  const i = argv.indexOf('--runs');
  const runs = i >= 0 ? Number(argv[i + 1]) : 15;
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
  const dataDir = mkdtempSync(join(tmpdir(), 'solgate-bench-cli-'));
  const env = { ...process.env, DATABASE_URL: '', SOLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const rows: [string, number[]][] = [];
  const measure = (name: string, args: string[], e = env) => {
    time(args, e); // warm the file cache
    const xs: number[] = [];
    for (let k = 0; k < runs; k++) xs.push(time(args, e));
    rows.push([name, xs]);
  };
  let server: ReturnType<typeof spawn> | null = null;
  try {
    measure('node -e 0', ['-e', '0']);
    measure('solgate --help', [BIN, '--help']);
    measure('solgate config', [BIN, 'config']);
    measure('solgate keys list (embedded, opens the database)', [BIN, 'keys', 'list']);
    const port = await freePort();
    server = spawn(process.execPath, [BIN, 'serve'], { env: { ...env, PORT: String(port), HOST: '127.0.0.1', SOLANA_RPC_URL: '' }, cwd: ROOT, stdio: 'ignore' });
    const end = Date.now() + 60_000;
    while (!(await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false))) {
      if (Date.now() > end) throw new Error('serve did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    measure('solgate keys list (through the running server)', [BIN, 'keys', 'list']);
    measure('tsx loader: solgate --help from src/', ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), '--help']);
  } finally {
    if (server) await stopChild(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const base = percentiles(rows[0][1]).p50Ms;
  console.log(`\ncli start-up, ${runs} runs each (p50 ms, ratio to node -e 0 in this run):`);
  for (const [name, xs] of rows) {
    const p = percentiles(xs);
    console.log(`  ${name.padEnd(52)} p50 ${p.p50Ms.toFixed(0).padStart(6)} ms  p90 ${p.p90Ms.toFixed(0).padStart(6)} ms  ${(p.p50Ms / base).toFixed(1)}×`);
  }
}
