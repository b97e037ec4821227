/**
 * Private PostgreSQL servers for the reliability suites: initdb into a temporary directory, trust auth, its own port
 * and socket directory, run as the `postgres` user when this process is root (initdb refuses root). Never the
 * machine's shared server. `startReplica` makes a streaming replica of one (`pg_basebackup -R`, a hot standby on
 * its own port): initdb's defaults already allow it (wal_level replica, max_wal_senders 10, replication connections
 * from 127.0.0.1 trusted).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/net.js';

export interface PrivatePostgres {
  /** The temporary directory (data in `data/`, log in `log`, the socket). */
  dir: string;
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  maxConnections: number;
  /** Runs `pg_ctl -D <data> <args>` (with `start`, the instance's port, socket directory and settings). */
  ctl(args: string[]): void;
  /** Stops the server (immediate) and removes its directory. */
  destroy(): void;
}

/** The directory of the PostgreSQL server binaries (`pg_ctl`), or undefined when they are not installed. */
export function findPgBin(): string | undefined {
  if (!existsSync('/usr/lib/postgresql')) return undefined;
  return readdirSync('/usr/lib/postgresql').map((v) => `/usr/lib/postgresql/${v}/bin`).find((d) => existsSync(join(d, 'pg_ctl')));
}

function runner(bin: string): (cmd: string, args: string[]) => void {
  const asRoot = process.getuid?.() === 0;
  return (cmd, args) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args];
    execFileSync(file, argv, { stdio: 'pipe', timeout: 120_000 });
  };
}

async function instance(bin: string, root: string, maxConnections: number): Promise<PrivatePostgres> {
  const run = runner(bin);
  const data = join(root, 'data');
  const port = await freePort();
  const ctl = (args: string[]) => {
    const start = args[0] === 'start'
      ? ['-o', `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=${maxConnections} -c shared_buffers=32MB`]
      : [];
    run('pg_ctl', ['-D', data, ...start, ...args]);
  };
  try {
    ctl(['start', '-w', '-l', join(root, 'log')]);
  } catch (err) {
    const log = existsSync(join(root, 'log')) ? readFileSync(join(root, 'log'), 'utf8').split('\n').slice(-8).join('\n') : '';
    rmSync(root, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${err instanceof Error ? err.message : String(err)}\n${log}`);
  }
  return {
    dir: root,
    port,
    maxConnections,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    ctl,
    destroy() {
      try {
        ctl(['stop', '-m', 'immediate', '-w']);
      } catch {
        /* already stopped */
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'solgate-pg-'));
  chmodSync(root, 0o777);
  return root;
}

/** A new private server (`max_connections` 50 unless given). */
export async function privatePostgres(bin: string, opts: { maxConnections?: number } = {}): Promise<PrivatePostgres> {
  const root = tempRoot();
  runner(bin)('initdb', ['-D', join(root, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  return instance(bin, root, opts.maxConnections ?? 50);
}

/**
 * A streaming replica of `primary`: a base backup taken over the replication protocol with `-R` (standby.signal and
 * primary_conninfo written), started as a hot standby on its own port (with the primary's max_connections: a hot
 * standby refuses to start with fewer). Read-only; its tables follow the primary's.
 */
export async function startReplica(bin: string, primary: PrivatePostgres): Promise<PrivatePostgres> {
  const root = tempRoot();
  runner(bin)('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', join(root, 'data'), '-R', '-X', 'stream', '--no-sync']);
  return instance(bin, root, primary.maxConnections);
}
