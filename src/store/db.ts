/**
 * The database handle: PostgreSQL through a `pg` pool when `DATABASE_URL` is set, otherwise embedded PostgreSQL
 * (PGlite) in a data directory. Both run the same SQL. Only `src/store` uses this module.
 *
 * Value conventions (identical on both drivers): `bigint`/int8 columns come back as JS numbers (slots, indexes,
 * fees, times — all far below 2^53); u64 token amounts are stored as NUMERIC and come back as strings.
 */
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';
import { initPgliteDataDir } from './pglite-init.js';
import { StartupError } from '../core/errors.js';

export interface QueryResult<T> {
  rows: T[];
}

export interface QueryOptions {
  /**
   * Keep the statement's plan (PostgreSQL: a named prepared statement per pool connection, so a statement run again
   * on that connection is not planned again). For hot reads whose text repeats and whose planning is a large part of
   * their time. Ignored by PGlite and inside transactions; a process prepares at most {@link MAX_PREPARED} texts,
   * later ones run unprepared (docs/configuration.md, DATABASE_POOL_SIZE).
   */
  prepare?: boolean;
}

/** Something that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<QueryResult<T>>;
  /**
   * `COPY table (columns) FROM STDIN` of `text` (one string, or its pieces in order), rows in COPY's text format
   * (src/store/copy-text.ts). Present on transactions (`Db.tx`) only: writers that can use it fall back to their
   * statements without it.
   */
  copyFrom?(table: string, columns: readonly string[], text: string | readonly string[]): Promise<void>;
}

/** How many distinct statement texts a process prepares (each is kept by every pool connection that ran it). */
export const MAX_PREPARED = 200;

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs `fn` in one SQL transaction: committed when it resolves, rolled back when it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Runs several statements separated by `;` (migrations). No parameters. */
  exec(sql: string): Promise<void>;
  /**
   * Calls `onNotify` for every NOTIFY on `channel` (a plain identifier) from any process using the database, until
   * the returned function is called. On PostgreSQL a dedicated connection listens and reconnects after losing the
   * server; notifications sent while it was disconnected are missed, so callers keep a polling fallback.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** PGlite in a data directory: this process's ownership of it (src/store/data-dir-lock.ts). */
  readonly lock?: DataDirLock;
}

// int8 → number (see conventions above); numeric stays a string.
pg.types.setTypeParser(20, (v: string) => Number(v));

export interface OpenDbOptions {
  databaseUrl?: string;
  dataDir?: string;
  poolSize?: number;
  /** PGlite only: keep everything in memory (tests). */
  inMemory?: boolean;
  /** PGlite only: what this process is, written into the data directory's lock (default: its arguments). */
  owner?: string;
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openPglite(opts.inMemory ? undefined : (opts.dataDir ?? './.data'), opts.owner);
}

/** `url` without its password, for messages. */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

/**
 * One line naming why PostgreSQL at `url` cannot be used and what to do, for the errors a new set-up meets
 * (server not running or unreachable, database missing, authentication); null for other errors.
 */
export function describeConnectError(err: unknown, url: string): string | null {
  const e = err as { code?: string; message?: string };
  const where = redactDatabaseUrl(url);
  let db = 'the database';
  try {
    db = decodeURIComponent(new URL(url).pathname.slice(1)) || 'the database';
  } catch {
    // Keep the generic name.
  }
  switch (e?.code) {
    case 'ECONNREFUSED':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return `cannot connect to PostgreSQL at ${where} (${e.code}): is the server running and reachable? Check DATABASE_URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host of DATABASE_URL ${where} (${e.code}): check the host name`;
    case '3D000':
      return `PostgreSQL database "${db}" does not exist (${where}): create it first, e.g. \`createdb ${db}\`, or point DATABASE_URL at an existing one`;
    case '28P01':
    case '28000':
      return `PostgreSQL refused the login for ${where} (${e.message}): check the user and password in DATABASE_URL`;
    case '57P03':
      return `PostgreSQL at ${where} is starting up or shutting down; try again in a moment`;
    default:
      if (/timeout exceeded when trying to connect|Connection terminated due to connection timeout/i.test(e?.message ?? ''))
        return `cannot connect to PostgreSQL at ${where} (connection timed out): is the server running and reachable? Check DATABASE_URL`;
      return null;
  }
}

function openPostgres(url: string, max: number): Db {
  // A server that does not answer fails a connection attempt after 10 s instead of hanging the caller.
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000 });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // Statement text → its prepared name; null: not prepared (over the cap, or its plan could not be kept).
  const names = new Map<string, string | null>();
  const statementName = (sql: string): string | null => {
    let name = names.get(sql);
    if (name !== undefined) return name;
    name = names.size < MAX_PREPARED ? `sg_${createHash('sha1').update(sql).digest('base64url').slice(0, 24)}` : null;
    names.set(sql, name);
    return name;
  };
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[], opts?: QueryOptions) {
      const name = opts?.prepare ? statementName(sql) : null;
      if (name === null) return { rows: (await pool.query(sql, params as unknown[])).rows as T[] };
      try {
        return { rows: (await pool.query({ name, text: sql, values: params as unknown[] })).rows as T[] };
      } catch (e) {
        // A table it reads changed shape under it (a migration while running): "cached plan must not change result
        // type" on that connection from now on. Run it unprepared from here.
        if ((e as { code?: string }).code !== '0A000') throw e;
        names.set(sql, null);
        return { rows: (await pool.query(sql, params as unknown[])).rows as T[] };
      }
    },
    async tx<T>(fn: (q: Queryable) => Promise<T>) {
      const client = await pool.connect();
      // A checked-out client has no pool error listener: a server shutdown or restart between two statements
      // ("terminating connection due to administrator command") would be an unhandled 'error' event and crash the
      // process. Kept here instead; the transaction's next statement fails and the client is discarded on release.
      let broken: Error | undefined;
      const onError = (e: Error) => void (broken ??= e);
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        // One connection runs one statement at a time: concurrent calls inside the transaction (Promise.all)
        // are chained here in call order rather than left to pg's deprecated implicit queue.
        let tail: Promise<unknown> = Promise.resolve();
        const q: Queryable = {
          query<R>(sql: string, params?: unknown[]) {
            const run = tail.then(() => client.query(sql, params as unknown[]));
            tail = run.catch(() => {});
            return run.then((r) => ({ rows: r.rows as R[] }));
          },
          copyFrom(table, columns, text) {
            const run = tail.then(() => copyIn(client, `COPY ${table} (${columns.join(', ')}) FROM STDIN`, text));
            tail = run.catch(() => {});
            return run;
          },
        };
        const out = await fn(q);
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        // A connection the server ended between two statements fails the next one with pg's "not queryable": the
        // server's own error (a restart, a replica's conflict with recovery, SQLSTATE and all) is the one to give.
        throw broken ?? e;
      } finally {
        client.removeListener('error', onError);
        client.release(broken);
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    listen: (channel, onNotify) => listenPostgres(url, channel, onNotify),
    async close() {
      await pool.end();
    },
  };
}

/** Runs a `COPY … FROM STDIN` on `client` with `text` as its data; resolves once the server has taken every row. */
function copyIn(client: pg.PoolClient, sql: string, text: string | readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = client.query(copyFromStdin(sql));
    stream.on('error', reject);
    stream.on('finish', () => resolve());
    // The pieces are in memory already: written in order without waiting for the stream to drain.
    if (typeof text === 'string') stream.end(Buffer.from(text));
    else {
      for (const piece of text) stream.write(Buffer.from(piece));
      stream.end();
    }
  });
}

const CHANNEL_RE = /^[a-z_][a-z0-9_]{0,62}$/;

async function listenPostgres(url: string, channel: string, onNotify: () => void): Promise<() => Promise<void>> {
  if (!CHANNEL_RE.test(channel)) throw new Error(`invalid channel name ${channel}`);
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel) onNotify();
    });
    c.on('error', () => {
      c.end().catch(() => {});
      if (client === c) client = null;
      schedule();
    });
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    if (stopped) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    // Whatever was notified while no connection listened is picked up by the caller's poll; wake it once anyway.
    onNotify();
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect().catch(schedule);
    }, 1000);
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => {});
    client = null;
  };
}

/**
 * PostgreSQL memory settings of the embedded database, given on PGlite's command line (postgresql.conf in the data
 * directory is left as initdb wrote it). PGlite's memory is one WebAssembly memory that grows and never shrinks, and
 * PostgreSQL touches its whole shared memory at start, so the stock 128MB shared_buffers alone kept ~150 MB resident
 * for good. One backend and a single-machine database do well with a small buffer pool: the files are in the
 * operating system's page cache anyway. maintenance_work_mem bounds what an index build can add to the memory.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  maintenance_work_mem: '16MB',
};

async function openPglite(dataDir: string | undefined, owner: string | undefined): Promise<Db> {
  // The directory is this process's before PGlite touches it (a second PGlite on it aborts or corrupts it).
  const lock = dataDir ? acquireDataDirLock(dataDir, owner ?? `solgate ${process.argv.slice(2).join(' ')}`.trim()) : undefined;
  let db: import('@electric-sql/pglite').PGlite;
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const startParams = [...PGlite.defaultStartParams, ...Object.entries(PGLITE_SETTINGS).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    // A new directory is created in a child process, which takes initdb's transient memory away with it.
    // PGlite's file system does not follow a symlinked directory: it gets the real path (the lock already made it).
    const dir = dataDir ? realpathSync(dataDir) : undefined;
    if (dir) await initPgliteDataDir(dir, startParams);
    db = await PGlite.create(dir, { startParams });
  } catch (err) {
    lock?.release();
    throw new StartupError(
      `cannot open the embedded database in ${dataDir ?? 'memory'} (${errorText(err)}): ` +
        'if the directory was left by another PGlite version or a crash mid-write, move it aside and start again',
      { cause: err },
    );
  }
  return {
    kind: 'pglite',
    lock,
    async query<T>(sql: string, params?: unknown[]) {
      const r = await db.query<T>(sql, params as unknown[]);
      return { rows: r.rows };
    },
    async tx<T>(fn: (q: Queryable) => Promise<T>) {
      return db.transaction(async (t) =>
        fn({
          async query<R>(sql: string, params?: unknown[]) {
            const r = await t.query<R>(sql, params as unknown[]);
            return { rows: r.rows };
          },
          // PGlite takes COPY data from a Blob named by its virtual file /dev/blob.
          async copyFrom(table, columns, text) {
            await t.query(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'`, [], { blob: new Blob(typeof text === 'string' ? [text] : [...text]) });
          },
        }),
      );
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
    async listen(channel, onNotify) {
      if (!CHANNEL_RE.test(channel)) throw new Error(`invalid channel name ${channel}`);
      const unsubscribe = await db.listen(channel, () => onNotify());
      return async () => {
        await unsubscribe();
      };
    },
    async close() {
      try {
        await db.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/** A thrown value as text: PGlite throws plain objects in some failures (e.g. a data directory behind a symlink). */
function errorText(err: unknown): string {
  if (err instanceof Error && err.message) return err.message;
  if (typeof err === 'string') return err;
  try {
    const j = JSON.stringify(err);
    if (j && j !== '{}') return j;
  } catch {
    // Fall through.
  }
  return Object.prototype.toString.call(err);
}
