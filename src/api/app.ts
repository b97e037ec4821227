/**
 * buildApp: the whole HTTP surface on one Fastify instance, without listening (tests use `inject`).
 * Each interface lives in its own encapsulated scope with its own auth and error format.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import type { ApiDeps } from './deps.js';
import { walletApi } from './rest/wallet/index.js';
import { tokenMetadataApi } from './rest/token-metadata.js';
import { webhooksApi } from './rest/webhooks.js';
import { transactionsApi } from './rest/transactions.js';
import { jsonRpcApi } from './rpc/index.js';
import { senderApi, senderUnconfiguredApi } from '../sender/routes.js';
import { startKeyCache } from './plugins/key-cache.js';
import { adminApi } from './admin/index.js';
import { normalizeError } from './plugins/errors.js';
import { restErrorBody } from './wire/errors.js';
import { SolgateError } from '../core/errors.js';
import { docsApi } from './docs/index.js';
import { pubsubApi } from './ws/pubsub.js';
import { STANDARD_METHODS } from './rpc/standard.js';
import { opsApi } from './ops.js';
import { registerCors } from './plugins/cors.js';
import { registerJsonParser } from './plugins/json-body.js';

export const BODY_LIMIT = 1024 * 1024;

function hops(n: number) {
  return (_addr: string, i: number) => i < n;
}

/** The answer to a request the HTTP parser refused (see `clientErrorHandler` above); nothing on a reset socket. */
function clientError(err: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, error, details] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request header fields too large', 'the request line and headers exceed the server limit']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request timeout', 'the request was not received in time']
        : [400, 'Malformed HTTP request', 'the request could not be parsed as HTTP/1.1'];
  const body = JSON.stringify({ error, code: status, details });
  if (socket.writable)
    socket.write(`HTTP/1.1 ${status} ${error}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  socket.destroy();
}

export async function buildApp(deps: ApiDeps): Promise<FastifyInstance> {
  // The default (HTTP/1) server type, whatever the logger's type parameters.
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // Fastify takes a hop count through a function; booleans, addresses and CIDR lists directly.
    trustProxy: typeof deps.trustProxy === 'number' ? hops(deps.trustProxy) : (deps.trustProxy ?? false),
    // Per-request access logs are off (they would dominate the log at load); errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // close() stops accepting, closes idle keep-alive connections at once and waits for requests in flight.
    forceCloseConnections: 'idle',
    ajv: { customOptions: { coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false } },
    // A URL that is not valid percent-encoding, or a path parameter over the router's length limit, is refused before
    // any route matches: answered in the REST format like the 404 of an unknown route (not Fastify's own body).
    frameworkErrors: (err, _req, res) => {
      const reply = res as unknown as FastifyReply;
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const { status, body } = restErrorBody(
        new SolgateError('INVALID_REQUEST', tooLong ? 'Path parameter too long' : 'Malformed URL', {
          details: tooLong ? 'a path parameter is longer than 100 characters' : 'the path is not valid percent-encoded UTF-8',
        }),
      );
      reply.status(status).send(body);
    },
    // Requests the HTTP parser refuses (bad framing or Content-Length, malformed request line or headers, headers
    // over the size limit) never reach a route: the connection is answered in the REST format and closed.
    clientErrorHandler: clientError,
  });

  app.setErrorHandler((err, req, reply) => {
    const e = normalizeError(err);
    if (e.code === 'INTERNAL') req.log.error({ err }, 'internal error');
    const { status, body } = restErrorBody(e);
    reply.status(status).send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ error: 'Not found', code: 404, details: `no route for ${req.method} ${req.url.split('?')[0]}` });
  });

  // Inherited by every interface: an empty application/json body is no body (not a 400), and CORS on the keyed
  // interfaces (preflights answered before any key check; none on the admin API and the dashboard).
  registerJsonParser(app as unknown as FastifyInstance);
  await registerCors(app as unknown as FastifyInstance, deps.corsOrigins);

  // /docs, /docs/openapi.json, /docs/openrpc.json (no key); first, so it records every route registered after it.
  docsApi(app as unknown as FastifyInstance, { forwarded: deps.upstreamRpc ? [...STANDARD_METHODS].sort() : [] });

  // /health, /ready, /metrics and the HTTP metrics hook (on the root scope, so every interface inherits it).
  opsApi(app as unknown as FastifyInstance, deps);

  // Keys that passed are remembered for SOLGATE_KEY_CACHE_MS (src/api/plugins/key-cache.ts): one lookup per key and
  // interval instead of a round trip per request; key changes apply at once through the store's NOTIFY.
  await startKeyCache(app as unknown as FastifyInstance, deps.db, deps.keyCacheMs ?? 1000);

  // With a replica (DATABASE_READ_URL), the interfaces that only read the index query it; keys stay on the primary.
  const reads: ApiDeps = deps.readDb ? { ...deps, db: deps.readDb, primaryDb: deps.db } : deps;
  await app.register(async (scope) => walletApi(scope, reads));
  await app.register(async (scope) => tokenMetadataApi(scope, deps));
  await app.register(async (scope) => webhooksApi(scope, deps));
  await app.register(async (scope) => transactionsApi(scope, deps));
  await app.register(async (scope) => jsonRpcApi(scope, reads));
  // WebSockets on the same port and path (GET / with an upgrade), when the process has a cluster to bridge to.
  if (deps.pubsub) await app.register(async (scope) => pubsubApi(scope, deps, deps.pubsub!));
  // Admin API and dashboard (without an admin token, their paths answer a 404 naming SOLGATE_ADMIN_TOKEN).
  await app.register(async (scope) => adminApi(scope, deps));
  // Keys presented to the Sender are checked against this app's database. Without an upstream, /fast and /ping
  // answer 503 naming the variables to set.
  if (deps.sender) await app.register(async (scope) => senderApi(scope, { ...deps.sender!, db: deps.sender!.db ?? deps.db }));
  else await app.register(async (scope) => senderUnconfiguredApi(scope));
  return app as unknown as FastifyInstance;
}
