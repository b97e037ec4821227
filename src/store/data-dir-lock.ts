/**
 * One owner per embedded data directory. PGlite is a single-process database: two processes that open one
 * directory corrupt it or abort inside the WASM. The process that opens the directory creates `solgate.lock`
 * (exclusive create) naming itself: PID, the process's start time (so a PID reused after a crash is not taken for
 * the owner), the command, and — once its HTTP server listens — the loopback address and a per-run token of its
 * admin API, which `solgate keys|identities|migrate` use to act through the running server instead of opening the
 * directory. A lock whose process is gone is stale and is taken over (under a short-lived takeover file, so two
 * processes finding the same stale lock cannot both take it). The file is readable by its owner only (mode 0600).
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StartupError } from '../core/errors.js';

export const LOCK_FILE = 'solgate.lock';

export interface DataDirOwner {
  pid: number;
  /** Start time of the process in clock ticks since boot (Linux /proc), when known. */
  procStart: string | null;
  command: string;
  startedAt: string;
  /** The running server's admin API on loopback (set once its HTTP server listens). */
  admin?: { url: string; token: string };
}

export interface DataDirLock {
  readonly dir: string;
  /** Rewrites the lock file with more about this owner (its admin endpoint). */
  update(extra: Pick<DataDirOwner, 'admin'>): void;
  /** Removes the lock file (when it is still this process's). */
  release(): void;
}

/** Field 22 of /proc/PID/stat: the process's start time (ticks since boot); null where /proc is not there. */
function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces; fields are counted after its ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function alive(o: DataDirOwner): boolean {
  if (o.pid === process.pid) return true;
  try {
    process.kill(o.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Same PID: the same process only if it started at the same time (where the system tells).
  const now = procStart(o.pid);
  return o.procStart === null || now === null || now === o.procStart;
}

function readOwner(file: string): DataDirOwner | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const o = JSON.parse(text) as DataDirOwner;
    if (Number.isInteger(o.pid) && o.pid > 0) return o;
  } catch {
    // A lock being written right now, or torn by a crash: treated as an owner we cannot name (below).
  }
  return { pid: -1, procStart: null, command: 'unknown', startedAt: '' };
}

/** The live owner of `dir`, or null when nobody holds it (no lock, or a stale one). */
export function dataDirOwner(dir: string): DataDirOwner | null {
  const o = readOwner(join(dir, LOCK_FILE));
  if (!o || o.pid === -1) return o && isFresh(join(dir, LOCK_FILE)) ? o : null;
  return alive(o) ? o : null;
}

/** A torn lock file counts as held for a few seconds after it was written (its writer may be mid-write). */
function isFresh(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < 5000;
  } catch {
    return false;
  }
}

export function describeOwner(o: DataDirOwner): string {
  const since = o.startedAt ? `, since ${o.startedAt}` : '';
  return o.pid > 0 ? `pid ${o.pid}: ${o.command}${since}` : 'a process that is starting';
}

export function inUseError(dir: string, o: DataDirOwner): StartupError {
  return new StartupError(
    `the embedded database in ${dir} is in use by another solgate process (${describeOwner(o)}); ` +
      'stop that process first (Ctrl-C), or give this one another SOLGATE_DATA_DIR (or a DATABASE_URL)',
  );
}

function writeExclusive(file: string, body: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, body);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Takes `dir` for this process or throws a StartupError naming the owner. */
export function acquireDataDirLock(dirIn: string, command: string): DataDirLock {
  const dir = resolve(dirIn);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  const me: DataDirOwner = { pid: process.pid, procStart: procStart(process.pid), command, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    if (writeExclusive(file, `${JSON.stringify(me)}\n`)) break;
    const owner = dataDirOwner(dir);
    if (owner) throw inUseError(dirIn, owner);
    if (attempt >= 3) throw new StartupError(`could not take the lock ${file}; remove it if no solgate process uses ${dirIn}`);
    // Stale: take it over under the takeover file, re-checking inside it (another process may have just done so).
    const takeover = `${file}.takeover`;
    if (!writeExclusive(takeover, String(process.pid))) {
      if (!isFresh(takeover)) unlinkSync(takeover);
      continue;
    }
    try {
      if (!dataDirOwner(dir)) unlinkSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    } finally {
      unlinkSync(takeover);
    }
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.removeListener('exit', release);
    try {
      if (readOwner(file)?.pid === process.pid) unlinkSync(file);
    } catch {
      // Gone already.
    }
  };
  // A normal exit (also process.exit) removes it; a killed process leaves a stale lock the next one takes over.
  process.on('exit', release);
  return {
    dir,
    update(extra) {
      if (!held) return;
      Object.assign(me, extra);
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(me)}\n`, { mode: 0o600 });
      renameSync(tmp, file);
    },
    release,
  };
}
