/**
 * The running server's admin API, for CLI commands on an embedded data directory another process owns. A PGlite
 * directory has one owner (src/store/data-dir-lock.ts); while `solgate serve` owns it, `solgate keys` and
 * `solgate identities import` ask that server over loopback with the per-run token it wrote into the lock, so what
 * they change is in effect at once and nothing opens the directory twice. With DATABASE_URL every process uses
 * PostgreSQL directly and this is not needed.
 */
import type { Config } from '../config/index.js';
import { StartupError } from '../core/errors.js';
import { dataDirOwner, describeOwner, inUseError } from '../store/data-dir-lock.js';

export interface RunningServer {
  url: string;
  token: string;
  owner: string;
}

/** How long a command waits for a server that owns the directory but does not listen yet (it is starting). */
const STARTING_WAIT_MS = 30_000;

/**
 * The server to act through, or null when the command should open the database itself (PostgreSQL, or an
 * embedded directory nobody holds). Throws a StartupError when another kind of process (ingest, replay) holds it.
 */
export async function runningServer(config: Config): Promise<RunningServer | null> {
  if (config.databaseUrl) return null;
  const until = Date.now() + STARTING_WAIT_MS;
  let told = false;
  for (;;) {
    const o = dataDirOwner(config.dataDir);
    if (!o) return null;
    if (o.admin) return { url: o.admin.url, token: o.admin.token, owner: describeOwner(o) };
    // A server that is starting writes its admin address once it listens; other commands never do.
    if (!/\bserve\b/.test(o.command) || Date.now() > until) throw inUseError(config.dataDir, o);
    if (!told) process.stderr.write(`solgate: waiting for the server that is starting on ${config.dataDir} (${describeOwner(o)})\n`);
    told = true;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Calls the admin API; answers the parsed JSON body, or throws with the server's own error message. */
export async function adminCall<T>(s: RunningServer, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T> {
  let res;
  try {
    res = await fetch(`${s.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${s.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (err) {
    throw new StartupError(`cannot reach the running solgate server (${s.owner}) at ${s.url}: ${(err as Error).message}`, { cause: err });
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Reported below with the status.
  }
  if (!res.ok) {
    const e = parsed as { error?: string; message?: string; details?: string } | null;
    const msg = e?.error ?? e?.message ?? `HTTP ${res.status}`;
    throw new AdminCallError(res.status, e?.details ? `${msg}: ${e.details}` : msg);
  }
  return parsed as T;
}

export class AdminCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AdminCallError';
  }
}
