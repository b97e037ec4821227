/**
 * The Sender interface (compat-facts §4): `POST /fast` (JSON-RPC `sendTransaction`; `?swqos_only=true` routes to
 * validators only, with the lower minimum tip) and `GET /ping` (`ok`, or 503 when no upstream is configured).
 * `getSignatureStatuses` posted to `/fast` is passed through to the status RPC, so clients can follow what they sent.
 *
 * The API key is optional (`?api-key=` or X-Api-Key): when given it must be valid (401 otherwise) and the rate
 * limit counts per key; without one it counts per client IP. A key that passed from a client IP is remembered for
 * that IP for 1 s (expiry still checked on every request), so a revocation takes effect within a second. Over the limit: 429, `Retry-After`, JSON-RPC -32005.
 * Rejections are 400 with -32602 and a message naming the problem; nothing rejected is forwarded. Sender calls
 * cost no credits.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { SolgateError } from '../core/errors.js';
import { senderOutcomes } from '../core/metrics.js';
import type { Db } from '../store/db.js';
import { createAuthenticator, presentedKey } from '../api/plugins/auth.js';
import { isRpcId, senderErrorBody } from '../api/wire/errors.js';
import { admitTransaction, SenderRejection, type TipPolicy } from './validate.js';
import type { Router, UpstreamResult } from './router.js';

export interface SenderDeps {
  router: Router;
  policy: TipPolicy;
  /** Transactions per second per key (or per client IP without a key). */
  rateLimitPerSecond: number;
  /** Validates optional API keys; absent = keys are ignored (standalone sender without a database). */
  db?: Db;
}

/** The one failure per upstream outcome, for the client, when no path accepted the transaction. */
function failureError(failures: UpstreamResult[]): SolgateError {
  const rejected = failures.filter((f): f is Extract<UpstreamResult, { kind: 'rejected' }> => !f.ok && f.kind === 'rejected');
  const data = failures.map((f) => (f.ok ? null : { upstream: new URL(f.upstream).host, kind: f.kind, message: f.message }));
  if (rejected.length) {
    senderOutcomes.inc({ outcome: 'upstream_rejected' });
    return new SolgateError('INVALID_PARAMS', `transaction rejected by the cluster: ${rejected[0].message}`, { context: { data } });
  }
  if (failures.every((f) => !f.ok && f.kind === 'timeout')) {
    senderOutcomes.inc({ outcome: 'upstream_timeout' });
    return new SolgateError('UPSTREAM_TIMEOUT', 'no upstream answered in time', { context: { data } });
  }
  senderOutcomes.inc({ outcome: 'upstream_unavailable' });
  return new SolgateError('UNAVAILABLE', 'no upstream accepted the transaction', { context: { data } });
}

/** Errors of the Sender routes in their JSON-RPC shape, keeping the HTTP status (compat-facts §4). */
function senderErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply): void {
  let e: SolgateError;
  if (err instanceof SolgateError) e = err;
  else if ((err as { statusCode?: number }).statusCode === 413) e = new SolgateError('PAYLOAD_TOO_LARGE', 'request body too large');
  else if ((err as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) e = new SolgateError('PARSE_ERROR', 'Parse error: the body is not valid JSON');
  else if (((err as { statusCode?: number }).statusCode ?? 500) < 500) e = new SolgateError('INVALID_REQUEST', `Invalid request: ${(err as Error).message}`);
  else {
    req.log.error({ err }, 'sender: internal error');
    e = new SolgateError('INTERNAL', 'Internal error');
  }
  const { status, body } = senderErrorBody(e, (req.body as { id?: unknown } | undefined)?.id ?? null);
  if (e.retryAfter !== undefined) reply.header('retry-after', String(e.retryAfter));
  reply.status(status).send(body);
}

/** What `/fast` and `/ping` answer (503, -32002) on a gateway with no Sender upstream. */
export const SENDER_NOT_CONFIGURED =
  'Sender is not configured on this gateway: set SOLGATE_SENDER_RPC_URLS (comma-separated upstream RPC URLs) or SOLANA_RPC_URL and restart solgate';

/**
 * `/fast` and `/ping` of a gateway without a Sender upstream: 503 with the JSON-RPC error body naming the variable to
 * set (not a 404 that reads like a wrong URL). Left out of /docs like the interface they stand for.
 */
export async function senderUnconfiguredApi(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(senderErrorHandler);
  const unavailable = async () => {
    throw new SolgateError('UNAVAILABLE', SENDER_NOT_CONFIGURED);
  };
  // In onRequest, so the answer is the same whatever the body (nothing is parsed).
  app.post('/fast', { schema: { hide: true }, onRequest: unavailable }, async () => undefined);
  app.get('/ping', { schema: { hide: true }, onRequest: unavailable }, async () => undefined);
}

export async function senderApi(app: FastifyInstance, deps: SenderDeps): Promise<void> {
  const limiter = new RateLimiterMemory({ points: deps.rateLimitPerSecond, duration: 1 });
  // Status lookups (confirmation polling) have their own, larger allowance: ten per allowed transaction.
  const statusLimiter = new RateLimiterMemory({ points: deps.rateLimitPerSecond * 10, duration: 1, keyPrefix: 'status' });
  // Keys are remembered by the app's key cache (src/api/plugins/key-cache.ts) when it keeps one for this database.
  const authenticate = deps.db ? createAuthenticator(deps.db, 'rpc') : null;

  app.setErrorHandler(senderErrorHandler);

  app.get('/ping', async (_req, reply) => {
    reply.type('text/plain');
    return 'ok';
  });

  async function limit(req: FastifyRequest, reply: FastifyReply, kind: 'send' | 'status' = 'send'): Promise<void> {
    let who = `ip:${req.ip}`;
    const key = presentedKey(req);
    if (key !== undefined && authenticate) {
      await authenticate(req);
      who = `key:${req.apiKey!.id}`;
    }
    const points = kind === 'send' ? deps.rateLimitPerSecond : deps.rateLimitPerSecond * 10;
    try {
      const r = await (kind === 'send' ? limiter : statusLimiter).consume(who);
      reply.header('x-ratelimit-limit', String(points));
      reply.header('x-ratelimit-remaining', String(r.remainingPoints));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      senderOutcomes.inc({ outcome: 'rate_limited' });
      reply.header('x-ratelimit-limit', String(points));
      reply.header('x-ratelimit-remaining', '0');
      throw new SolgateError('RATE_LIMITED', `rate limit of ${points} ${kind === 'send' ? 'transactions' : 'status lookups'} per second exceeded`, {
        retryAfter: Math.max(1, Math.ceil(e.msBeforeNext / 1000)),
      });
    }
  }

  app.post('/fast', { bodyLimit: 64 * 1024 }, async (req, reply) => {
    const body = req.body as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown } | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new SolgateError('INVALID_REQUEST', 'body must be one JSON-RPC request object');
    if (body.jsonrpc !== '2.0' || typeof body.method !== 'string' || !isRpcId(body.id ?? null)) throw new SolgateError('INVALID_REQUEST', 'not a JSON-RPC 2.0 request (jsonrpc "2.0", a method name and a string, number or null id required)');
    if (body.method === 'getSignatureStatuses') {
      await limit(req, reply, 'status');
      try {
        return await deps.router.status(body);
      } catch {
        throw new SolgateError('UNAVAILABLE', 'status RPC unreachable');
      }
    }
    if (body.method !== 'sendTransaction') throw new SolgateError('METHOD_NOT_FOUND', `Method not found: ${body.method} (Sender accepts sendTransaction and getSignatureStatuses)`);
    await limit(req, reply);
    const swqosOnly = (req.query as Record<string, unknown>).swqos_only === 'true';
    let admitted;
    try {
      admitted = admitTransaction(body.params, deps.policy, swqosOnly);
    } catch (e) {
      if (e instanceof SenderRejection) {
        senderOutcomes.inc({ outcome: `rejected_${e.reason}` });
        throw new SolgateError('INVALID_PARAMS', `Invalid request: ${e.message}`);
      }
      throw e;
    }
    const r = await deps.router.submit(admitted, swqosOnly);
    if ('failures' in r) throw failureError(r.failures);
    senderOutcomes.inc({ outcome: 'accepted' });
    return { jsonrpc: '2.0', id: body.id ?? null, result: admitted.signature };
  });
}
