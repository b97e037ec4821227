/**
 * The Wallet REST interface (/v1/wallet): key auth, routes, and errors as `{error, code, details?}`.
 * Every route takes `?minContextSlot=S` (read-your-writes across API processes on replicas, docs/operations.md): the
 * request waits, at most SOLGATE_MIN_CONTEXT_WAIT_MS, until the index it reads (the replica's with DATABASE_READ_URL)
 * has reached S, then is answered from it; otherwise 503 `{error: "Minimum context slot has not been reached", code:
 * 503, details}` (the interface's error format, nothing added), the slot the index is at in `details` and in the
 * `x-solgate-context-slot` header, with `Retry-After: 1`.
 */
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../../deps.js';
import { createAuthenticator } from '../../plugins/auth.js';
import { meterHook, routeName } from '../../plugins/metering.js';
import { normalizeError } from '../../plugins/errors.js';
import { restErrorBody } from '../../wire/errors.js';
import { SolgateError } from '../../../core/errors.js';
import { awaitContextSlot, DEFAULT_MIN_CONTEXT_WAIT_MS } from '../../rpc/min-context.js';
import { registerIdentityRoutes } from './identity.js';
import { registerBalancesRoute } from './balances.js';
import { registerHistoryRoute } from './history.js';
import { registerTransfersRoute } from './transfers.js';
import { registerFundedByRoute } from './funded-by.js';

/** The slot the index is at, on a 503 for a minContextSlot it has not reached (the JSON-RPC error's data.contextSlot). */
export const CONTEXT_SLOT_HEADER = 'x-solgate-context-slot';

export async function walletApi(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const authenticate = createAuthenticator(deps.primaryDb ?? deps.db, 'rest');
  app.addHook('preValidation', authenticate);
  // 100 credits per call; identity lookups need a paid plan.
  app.addHook('preValidation', meterHook(deps, (req) => {
    const name = routeName(req);
    return { bucket: 'wallet', cost: 'wallet', method: `wallet.${name}`, feature: name.includes('identity') ? 'walletIdentity' : undefined };
  }));
  app.setErrorHandler((err, req, reply) => {
    const e = normalizeError(err);
    if (e.code === 'INTERNAL') req.log.error({ err }, 'wallet api: internal error');
    const { status, body } = restErrorBody(e);
    if (e.retryAfter !== undefined) reply.header('retry-after', String(e.retryAfter));
    const contextSlot = (e.context?.data as { contextSlot?: unknown } | undefined)?.contextSlot;
    if (e.code === 'INDEX_BEHIND' && typeof contextSlot === 'number') reply.header(CONTEXT_SLOT_HEADER, String(contextSlot));
    reply.status(status).send(body);
  });
  // minContextSlot (validated by each route's query schema): wait for the index before the route reads it.
  const waitMs = deps.minContextWaitMs ?? DEFAULT_MIN_CONTEXT_WAIT_MS;
  app.addHook('preHandler', async (req) => {
    const slot = (req.query as { minContextSlot?: number } | undefined)?.minContextSlot;
    if (slot === undefined) return;
    try {
      await awaitContextSlot(deps.db, slot, waitMs);
    } catch (err) {
      if (!(err instanceof SolgateError) || err.code !== 'INDEX_BEHIND') throw err;
      const at = (err.context?.data as { contextSlot?: number } | undefined)?.contextSlot ?? 0;
      throw new SolgateError('INDEX_BEHIND', err.message, {
        details: `the index this process reads is at slot ${at}, behind minContextSlot ${slot}, after waiting ${waitMs} ms; try again`,
        context: err.context,
        retryAfter: 1,
      });
    }
  });
  registerIdentityRoutes(app, deps);
  registerBalancesRoute(app, deps);
  registerHistoryRoute(app, deps);
  registerTransfersRoute(app, deps);
  registerFundedByRoute(app, deps);
}
