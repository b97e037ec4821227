/**
 * The body of a benchmark's server, run as a child process (`fork`, see `startBenchServers` in ./http-load.ts) so
 * the load generator does not share its event loop: `app` is the real gateway (buildApp, as `solgate serve` builds
 * it, without ingestion, prover or transaction fetcher — none of the measured methods needs them); `ceiling` is a
 * minimal Fastify app with POST routes each answering one indexed PostgreSQL query (given by the benchmark) — the
 * same-run ceiling the gateway's methods are compared with. Both use a `pg` pool of the same size and listen on
 * 127.0.0.1:0; the chosen port is sent to the parent over IPC. Stops on SIGTERM or when the parent goes away.
 *
 *   argv: app|ceiling; env: BENCH_DATABASE_URL, BENCH_POOL_SIZE
 */
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../../src/api/app.js';
import { createFileTokenRegistry } from '../../src/pricing/token-registry.js';
import { openDb, type Db } from '../../src/store/db.js';

/**
 * A ceiling route's one query: the body `{ [field]: string }` → `{ result: first row or null }` (or, with `rows: 'all'`,
 * `{ result: [rows] }`).
 */
export interface CeilingQuery {
  /** The route's path (default `/`). */
  path?: string;
  /** What the route answers: the first row (default) or every row. */
  rows?: 'first' | 'all';
  /** The request body's string field. */
  field: string;
  /** The query, with `$1` for the field's value. */
  sql: string;
  /** The field's value as the query's parameter (default: as is). */
  param?: (value: string) => unknown;
}

/** Runs the server of `process.argv[2]` (app|ceiling); `script` names the entry file in the usage message. */
export async function serveBench(script: string, ceilingQueries: CeilingQuery | CeilingQuery[]): Promise<void> {
  const mode = process.argv[2];
  const url = process.env.BENCH_DATABASE_URL;
  const poolSize = Number(process.env.BENCH_POOL_SIZE ?? 10);
  if (!url || (mode !== 'app' && mode !== 'ceiling')) {
    console.error(`usage: ${script} app|ceiling (BENCH_DATABASE_URL, BENCH_POOL_SIZE)`);
    process.exit(2);
  }

  let app: FastifyInstance;
  let close: () => Promise<void>;
  if (mode === 'app') {
    const db: Db = await openDb({ databaseUrl: url, poolSize });
    app = await buildApp({
      db,
      logger: pino({ level: 'warn' }),
      tokens: createFileTokenRegistry('/nonexistent/tokens.json'),
      explorerTxUrl: 'https://orbmarkets.io/tx/',
    });
    close = () => db.close();
  } else {
    const pool = new pg.Pool({ connectionString: url, max: poolSize });
    pool.on('error', () => {});
    app = Fastify({ logger: false });
    for (const { path = '/', rows: answer = 'first', field, sql, param = (v: string) => v } of [ceilingQueries].flat())
      app.post(path, async (req, reply) => {
        const value = (req.body as Record<string, unknown> | null)?.[field];
        if (typeof value !== 'string') return reply.status(400).send({ error: `${field} required` });
        const { rows } = await pool.query(sql, [param(value)]);
        return { result: answer === 'all' ? rows : (rows[0] ?? null) };
      });
    close = () => pool.end();
  }

  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  process.send?.({ ready: true, port: typeof addr === 'object' && addr ? addr.port : 0, pid: process.pid });

  const stop = async () => {
    await app.close().catch(() => {});
    await close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
}
