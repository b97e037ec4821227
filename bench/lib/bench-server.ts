/**
 * The body of a benchmark's server, run as a child process (`fork`, see `startBenchServers` in ./http-load.ts) so
 * the load generator does not share its event loop: `app` is the real gateway (buildApp from the build, as `solgate
 * serve` builds it, without ingestion, prover or transaction fetcher — none of the measured methods needs them); `ceiling` is a
 * minimal Fastify app with POST routes each answering one indexed PostgreSQL query (given by the benchmark) — the
 * same-run ceiling the gateway's methods are compared with. Both use a `pg` pool of the same size and listen on
 * 127.0.0.1:0; the chosen port is sent to the parent over IPC. Stops on SIGTERM or when the parent goes away.
 *
 *   argv: app|ceiling; env: BENCH_DATABASE_URL, BENCH_POOL_SIZE
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import type { Db } from '../../src/store/db.js';
import { buildIsCurrent } from '../../scripts/build-state.mjs';
import { REPO_ROOT } from './report.js';

type AppModule = typeof import('../../src/api/app.js');
type TokensModule = typeof import('../../src/pricing/token-registry.js');
type DbModule = typeof import('../../src/store/db.js');

/**
 * The gateway's modules from the build (dist/, what `solgate serve` runs; startBenchServer builds it first), or from
 * the sources through this process's tsx loader when the build is not current: tsx's output is not the build's (it
 * wraps functions to keep their names, for one), so a figure measured that way is said so on stderr.
 */
async function gatewayModules(): Promise<{ app: AppModule; tokens: TokensModule; db: DbModule }> {
  const fromBuild = buildIsCurrent(REPO_ROOT);
  if (!fromBuild) process.stderr.write('bench server: dist/ is not current; the gateway runs from src/ through tsx\n');
  const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(REPO_ROOT, fromBuild ? 'dist' : 'src', `${path}.${fromBuild ? 'js' : 'ts'}`)).href) as Promise<T>;
  const [app, tokens, db] = await Promise.all([load<AppModule>('api/app'), load<TokensModule>('pricing/token-registry'), load<DbModule>('store/db')]);
  return { app, tokens, db };
}

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
    const m = await gatewayModules();
    const db: Db = await m.db.openDb({ databaseUrl: url, poolSize });
    app = await m.app.buildApp({
      db,
      logger: pino({ level: 'warn' }),
      tokens: m.tokens.createFileTokenRegistry('/nonexistent/tokens.json'),
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
