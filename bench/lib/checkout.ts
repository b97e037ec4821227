/**
 * Another checkout's built CLI in a benchmark (bench/replay, bench/history): its build brought up to date, a throwaway
 * database migrated by that CLI, and `node` run in it.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { join } from 'node:path';
import { createBenchDb, type BenchDb } from './db.js';

/** Runs `node <args>` in `root`; rejects naming `what` unless it exits with 0. */
export function runNode(root: string, args: string[], what: string, opts: Omit<SpawnOptions, 'cwd'>): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { ...opts, cwd: root });
    p.on('error', reject);
    p.on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`bench: ${what} in ${root} failed (${c})`))));
  });
}

/** Builds `root` (`scripts/build.mjs --if-stale`). */
export function ensureBuild(root: string): Promise<void> {
  return runNode(root, [join(root, 'scripts', 'build.mjs'), '--if-stale'], 'build', { stdio: 'inherit' });
}

/**
 * A throwaway database for the CLI of `root`, migrated by that CLI (`solgate migrate`) before anything is timed, so
 * checkouts whose schemas differ each get their own.
 */
export async function cliDb(root: string): Promise<BenchDb> {
  const db = await createBenchDb({ migrate: false });
  await runNode(root, [join(root, 'dist', 'cli', 'main.js'), 'migrate'], 'solgate migrate', {
    env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return db;
}
