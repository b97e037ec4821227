/**
 * The RPC benchmark's gateway (child process, forked by bench/rpc.ts so the load generator does not share its event
 * loop): the app as `solgate serve` builds it for the standard JSON-RPC passthrough — buildApp with the cluster RPC
 * forwarder (createUpstreamRpc, default pool of 32 connections) and the meter (in-memory limits, usage recorder
 * flushing to PostgreSQL) — without ingestion. The plan table adds the benchmarks' plan (bench/lib/bench-plan.ts),
 * whose limits the load never reaches (the key's calls are still checked and charged). Listens on 127.0.0.1:0 and
 * sends the port over IPC. Stops on SIGTERM or when the parent goes away.
 *
 *   env: BENCH_DATABASE_URL, BENCH_UPSTREAM_URL, BENCH_POOL_SIZE (default 10, as DATABASE_POOL_SIZE)
 */
import pino from 'pino';
import { buildApp } from '../../src/api/app.js';
import { createMeter } from '../../src/accounts/meter.js';
import { createUsageRecorder } from '../../src/accounts/usage.js';
import { createFileTokenRegistry } from '../../src/pricing/token-registry.js';
import { createUpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { openDb } from '../../src/store/db.js';
import { benchPlanTable } from '../lib/bench-plan.js';

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  const upstreamUrl = process.env.BENCH_UPSTREAM_URL;
  if (!url || !upstreamUrl) {
    console.error('usage: rpc-server.ts (env BENCH_DATABASE_URL, BENCH_UPSTREAM_URL)');
    process.exit(2);
  }
  const db = await openDb({ databaseUrl: url, poolSize: Number(process.env.BENCH_POOL_SIZE ?? 10) });
  const logger = pino({ level: 'warn' });
  const usage = createUsageRecorder(db, { logger });
  const upstreamRpc = createUpstreamRpc({ url: upstreamUrl, timeoutMs: 30_000, logger });
  const app = await buildApp({
    db,
    logger,
    tokens: createFileTokenRegistry('/nonexistent/tokens.json'),
    explorerTxUrl: 'https://orbmarkets.io/tx/',
    upstreamRpc,
    meter: createMeter({ db, plans: benchPlanTable(), usage }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  process.send?.({ ready: true, port: typeof addr === 'object' && addr ? addr.port : 0 });

  const stop = async () => {
    await app.close().catch(() => {});
    await usage.close().catch(() => {});
    await upstreamRpc.close().catch(() => {});
    await db.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
}

await main();
