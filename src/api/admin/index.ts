/**
 * The admin interface, on when SOLGATE_ADMIN_TOKEN is set (otherwise none of these routes exist: 404):
 *  - the admin JSON API under `/admin/api` (src/api/admin/api.ts), bearer-token authenticated;
 *  - the web dashboard `GET /dashboard` and its script and stylesheet (`/dashboard/assets/...`), plain files from
 *    src/api/admin/static/ served by the gateway itself (no CDN, no build step). The page holds no secret: it asks
 *    for the admin token, keeps it in sessionStorage and sends it as a bearer token to the admin API.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { FastifyError } from 'fastify';
import { DEFAULT_PLAN_TABLE, type PlanTable } from '../../accounts/plans.js';
import { SolgateError } from '../../core/errors.js';
import type { ApiDeps } from '../deps.js';
import { normalizeError } from '../plugins/errors.js';
import { restErrorBody } from '../wire/errors.js';
import { registerAdminApi } from './api.js';
import { createAdminAuthenticator } from './auth.js';

export interface AdminOptions {
  /** SOLGATE_ADMIN_TOKEN: the bearer token of the admin API and dashboard sign-in. */
  token: string;
  /** The plan table keys may be given (defaults: the meter's table when there is one, else the built-in table). */
  plans?: PlanTable;
}

declare module '../deps.js' {
  interface ApiDeps {
    /** Admin API and dashboard; absent = both disabled (404). */
    admin?: AdminOptions;
  }
}

const STATIC_DIR = new URL('./static/', import.meta.url);
const ASSETS: Record<string, string> = {
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard-core.js': 'text/javascript; charset=utf-8',
  'dashboard-keys.js': 'text/javascript; charset=utf-8',
  'dashboard-usage.js': 'text/javascript; charset=utf-8',
  'dashboard-webhooks.js': 'text/javascript; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
};

/** The page may load only its own script, style and API (no inline code, no framing, no referrer). */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

function secureHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store');
}

function adminError(err: unknown): SolgateError {
  const fe = err as FastifyError;
  const v = fe?.validation?.[0] as { keyword?: string; params?: Record<string, unknown> } | undefined;
  if (v?.keyword === 'additionalProperties' && typeof v.params?.additionalProperty === 'string')
    return new SolgateError('INVALID_PARAMS', `Unknown ${fe.validationContext ?? 'request'} parameter '${v.params.additionalProperty}'`);
  if (v?.keyword === 'minProperties') return new SolgateError('INVALID_PARAMS', 'Empty body', { details: 'give at least one field to change' });
  return normalizeError(err);
}

export async function adminApi(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const admin = deps.admin;
  if (!admin?.token) return;
  // The plan table the meter enforces (src/accounts/meter.ts), so keys get only plans that exist.
  const plans = admin.plans ?? deps.meter?.plans ?? DEFAULT_PLAN_TABLE;

  // Files are read once at start (a missing file fails start-up rather than a request).
  const page = readFileSync(new URL('dashboard.html', STATIC_DIR), 'utf8');
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(new URL(name, STATIC_DIR)) }]));

  await app.register(async (scope) => {
    scope.addHook('onRequest', createAdminAuthenticator(admin.token));
    scope.setErrorHandler((err, req, reply) => {
      const e = adminError(err);
      if (e.code === 'INTERNAL') req.log.error({ err }, 'admin api: internal error');
      const { status, body } = restErrorBody(e);
      if (status === 401) reply.header('www-authenticate', 'Bearer realm="solgate admin"');
      reply.header('cache-control', 'no-store').status(status).send(body);
    });
    registerAdminApi(scope, { db: deps.db, plans });
  });

  const sendPage = async (_req: unknown, reply: FastifyReply) => secureHeaders(reply).type('text/html; charset=utf-8').send(page);
  app.get('/dashboard', sendPage);
  app.get('/dashboard/', sendPage);
  app.get('/dashboard/assets/:file', async (req, reply) => {
    const a = assets.get((req.params as { file: string }).file);
    if (!a) return reply.status(404).send({ error: 'Not found', code: 404, details: 'no such dashboard asset' });
    return secureHeaders(reply).type(a.type).send(a.body);
  });
}
