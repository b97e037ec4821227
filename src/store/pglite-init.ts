/**
 * A new embedded data directory is created (PostgreSQL's initdb) in a short-lived child process instead of the one
 * that then opens it. PGlite's initdb runs a second, in-memory PostgreSQL and moves its files over as JavaScript
 * buffers: ~400 MB allocated and freed within seconds, and memory freed in such amounts stays resident in the
 * process that allocated it (glibc keeps it in its heap), so a first `serve` start would carry ~50–100 MB more for
 * its whole life than a restart on the same directory. A child takes it all away when it exits.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Runs initdb for `dataDir` in a child process unless it holds a database (`PG_VERSION`, PGlite's own test). */
export async function initPgliteDataDir(dataDir: string, startParams: readonly string[]): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const pglite = import.meta.resolve?.('@electric-sql/pglite') ?? pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const script = `const mod = await import(${JSON.stringify(pglite)});
const { PGlite } = mod;
const [dir, startParams] = JSON.parse(process.argv[1]);
const db = await (PGlite ?? mod.default.PGlite).create(dir, { startParams });
await db.close();`;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, JSON.stringify([dataDir, startParams])], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => void (stderr = (stderr + c).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`initdb ${signal ? `killed by ${signal}` : `exited with ${code}`}${stderr.trim() ? `: ${stderr.trim()}` : ''}`));
    });
  });
}
