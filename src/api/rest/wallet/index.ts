/**
 * The Wallet REST interface (/v1/wallet): key auth, routes, and errors as `{error, code, details?}`.
 * Every route takes `?minContextSlot=S` (read-your-writes across API processes on replicas: ../min-context.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../../deps.js';
import { createAuthenticator } from '../../plugins/auth.js';
import { meterHook, routeName } from '../../plugins/metering.js';
import { normalizeError } from '../../plugins/errors.js';
import { restErrorBody } from '../../wire/errors.js';
import { contextSlotHeader, contextSlotOnSuccess, minContextHook } from '../min-context.js';
import { registerIdentityRoutes } from './identity.js';
import { registerBalancesRoute } from './balances.js';
import { registerHistoryRoute } from './history.js';
import { registerTransfersRoute } from './transfers.js';
import { registerFundedByRoute } from './funded-by.js';

export { CONTEXT_SLOT_HEADER } from '../min-context.js';

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
    contextSlotHeader(e, reply);
    reply.status(status).send(body);
  });
  // minContextSlot (validated by each route's query schema): wait for the index before the route reads it.
  app.addHook('preHandler', minContextHook(deps));
  app.addHook('onSend', contextSlotOnSuccess(deps));
  registerIdentityRoutes(app, deps);
  registerBalancesRoute(app, deps);
  registerHistoryRoute(app, deps);
  registerTransfersRoute(app, deps);
  registerFundedByRoute(app, deps);
}
