/**
 * `solgate sender`: the Sender interface alone (`POST /fast`, `GET /ping`, `/health`, `/metrics`) on
 * SOLGATE_SENDER_PORT, forwarding to SOLGATE_SENDER_RPC_URLS (or SOLANA_RPC_URL) and SOLGATE_SENDER_BLOCK_ENGINE_URL.
 * API keys are checked against the database only with DATABASE_URL (an embedded database belongs to one process);
 * without it the `api-key` parameter is ignored and limits count per client IP.
 */
import Fastify from 'fastify';
import { LogController, type FastifyInstance } from 'fastify';
import { loadConfig } from '../config/index.js';
import { makeLogger } from './runtime.js';
import { openDb } from '../store/db.js';
import { registry } from '../core/metrics.js';
import { senderApi } from '../sender/routes.js';
import { senderDeps } from '../sender/config.js';
import { UsageError } from './usage-error.js';
import { registerJsonParser } from '../api/plugins/json-body.js';
import { registerCors } from '../api/plugins/cors.js';
import { startKeyCache } from '../api/plugins/key-cache.js';

export async function runSender(): Promise<number> {
  const config = loadConfig();
  const logger = makeLogger(config.logLevel);
  const db = config.databaseUrl ? await openDb({ databaseUrl: config.databaseUrl, poolSize: 4 }) : undefined;
  const deps = senderDeps(config, { db, logger, fallbackRpcUrl: config.rpcUrl });
  if (!deps) {
    await db?.close();
    throw new UsageError('solgate sender needs an upstream: set SOLGATE_SENDER_RPC_URLS (or SOLANA_RPC_URL)');
  }
  const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }), trustProxy: config.trustProxy === true });
  registerJsonParser(app as unknown as FastifyInstance);
  await registerCors(app as unknown as FastifyInstance, config.corsOrigins);
  // Keys that passed are remembered for SOLGATE_KEY_CACHE_MS; key changes reach this process through NOTIFY.
  if (db) await startKeyCache(app as unknown as FastifyInstance, db, config.keyCacheMs);
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  await app.register(async (scope) => senderApi(scope, deps));
  const address = await app.listen({ port: config.senderPort, host: config.host });
  logger.info({ address, upstreams: config.senderRpcUrls.length ? config.senderRpcUrls : [config.rpcUrl], blockEngine: config.senderBlockEngineUrl ?? null, keys: db ? 'checked' : 'ignored (no DATABASE_URL)' }, 'solgate sender: listening');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await app.close();
  await deps.router.close();
  await db?.close();
  return 0;
}
