/**
 * The meter as a Fastify hook: registered after the authenticator in a scope, it rate-limits and charges the call
 * `callOf(req)` describes (src/accounts/meter.ts). Nothing when the app has no meter.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Call } from '../../accounts/meter.js';
import type { ApiDeps } from '../deps.js';

export function meterHook(deps: ApiDeps, callOf: (req: FastifyRequest) => Call | null) {
  return async function meter(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!deps.meter) return;
    const call = callOf(req);
    if (call) await deps.meter.charge(req, reply, call);
  };
}

/** The last path segment of the matched route, e.g. `balances` for `/v1/wallet/:wallet/balances`. */
export function routeName(req: FastifyRequest): string {
  const url = req.routeOptions.url ?? req.url.split('?')[0];
  return url.split('/').filter((s) => s && !s.startsWith(':')).at(-1) ?? 'unknown';
}
