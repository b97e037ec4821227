/**
 * The database handle: PostgreSQL through a `pg` pool when `DATABASE_URL` is set, otherwise embedded PostgreSQL
 * (PGlite) in a data directory. Both run the same SQL. Only `src/store` uses this module.
 *
 * Value conventions (identical on both drivers): `bigint`/int8 columns come back as JS numbers (slots, indexes,
 * fees, times — all far below 2^53); u64 token amounts are stored as NUMERIC and come back as strings.
 */
import pg from 'pg';
import { mkdirSync } from 'node:fs';

export interface QueryResult<T> {
  rows: T[];
}

/** Something that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

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
}

// int8 → number (see conventions above); numeric stays a string.
pg.types.setTypeParser(20, (v: string) => Number(v));

export interface OpenDbOptions {
  databaseUrl?: string;
  dataDir?: string;
  poolSize?: number;
  /** PGlite only: keep everything in memory (tests). */
  inMemory?: boolean;
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openPglite(opts.inMemory ? undefined : (opts.dataDir ?? './.data'));
}

function openPostgres(url: string, max: number): Db {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      const r = await pool.query(sql, params as unknown[]);
      return { rows: r.rows as T[] };
    },
    async tx<T>(fn: (q: Queryable) => Promise<T>) {
      const client = await pool.connect();
      // A checked-out client has no pool error listener: a server shutdown or restart between two statements
      // ("terminating connection due to administrator command") would be an unhandled 'error' event and crash the
      // process. Kept here instead; the transaction's next statement fails and the client is discarded on release.
      let broken: Error | undefined;
      const onError = (e: Error) => void (broken = e);
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
        };
        const out = await fn(q);
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
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

async function openPglite(dataDir: string | undefined): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  return {
    kind: 'pglite',
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
      await db.close();
    },
  };
}
