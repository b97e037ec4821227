/**
 * The admin interface, on when SOLGATE_ADMIN_TOKEN is set (otherwise every path below answers a 404 that says so and
 * how to set it: a JSON error under `/admin/api`, an HTML page under `/dashboard`):
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
import { registerAdminCoverage } from './coverage.js';
import { createAdminAuthenticator } from './auth.js';

export interface AdminOptions {
  /** SOLGATE_ADMIN_TOKEN: the bearer token of the admin API and dashboard sign-in; unset = both off for people. */
  token?: string;
  /**
   * The CLI's per-run token (`solgate serve` writes it into the embedded data directory's lock, readable by its owner
   * only): the admin API also answers it, so `solgate keys|identities` act through the server that owns the directory.
   */
  cliToken?: string;
  /** The plan table keys may be given (defaults: the meter's table when there is one, else the built-in table). */
  plans?: PlanTable;
}

declare module '../deps.js' {
  interface ApiDeps {
    /** Admin API and dashboard; absent = both disabled (404 naming SOLGATE_ADMIN_TOKEN). */
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

/** How to turn the admin interface on (the answer of its paths while it is off). */
export const ADMIN_DISABLED_HINT =
  'set SOLGATE_ADMIN_TOKEN to a secret of at least 16 characters (e.g. `export SOLGATE_ADMIN_TOKEN=$(openssl rand -hex 32)`) and restart solgate';

/** The page `/dashboard` shows while no admin token is configured (no script, no style: the CSP allows neither inline). */
const DISABLED_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>solgate dashboard: disabled</title></head>
<body>
<h1>The dashboard is disabled</h1>
<p>The solgate dashboard and the admin API (<code>/admin/api</code>) are on only when an admin token is configured.</p>
<p>To enable them, set <code>SOLGATE_ADMIN_TOKEN</code> to a secret of at least 16 characters (no whitespace) and restart solgate, for example:</p>
<pre>export SOLGATE_ADMIN_TOKEN=$(openssl rand -hex 32)
echo "$SOLGATE_ADMIN_TOKEN"   # keep it: the dashboard asks for it to sign in
solgate serve</pre>
<p>Then open <a href="/dashboard">/dashboard</a> again and sign in with that token.</p>
</body>
</html>
`;

/** Admin paths while the admin interface is off: 404s that name SOLGATE_ADMIN_TOKEN (left out of /docs). */
function adminDisabled(app: FastifyInstance, parts: { api: boolean }): void {
  const api = async (_req: unknown, reply: FastifyReply) =>
    reply.header('cache-control', 'no-store').status(404).send({ error: 'Admin API is disabled', code: 404, details: ADMIN_DISABLED_HINT });
  const page = async (_req: unknown, reply: FastifyReply) => secureHeaders(reply).status(404).type('text/html; charset=utf-8').send(DISABLED_PAGE);
  if (parts.api) for (const url of ['/admin/api', '/admin/api/*']) app.all(url, { schema: { hide: true } }, api);
  for (const url of ['/dashboard', '/dashboard/*']) app.all(url, { schema: { hide: true } }, page);
}

export async function adminApi(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const admin = deps.admin;
  if (!admin?.token && !admin?.cliToken) return adminDisabled(app, { api: true });
  // The plan table the meter enforces (src/accounts/meter.ts), so keys get only plans that exist.
  const plans = admin.plans ?? deps.meter?.plans ?? DEFAULT_PLAN_TABLE;

  // Files are read once at start (a missing file fails start-up rather than a request).
  const page = readFileSync(new URL('dashboard.html', STATIC_DIR), 'utf8');
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(new URL(name, STATIC_DIR)) }]));

  await app.register(async (scope) => {
    scope.addHook('onRequest', createAdminAuthenticator({ token: admin.token, cliToken: admin.cliToken, disabledHint: ADMIN_DISABLED_HINT }));
    scope.setErrorHandler((err, req, reply) => {
      const e = adminError(err);
      if (e.code === 'INTERNAL') req.log.error({ err }, 'admin api: internal error');
      const { status, body } = restErrorBody(e);
      if (status === 401) reply.header('www-authenticate', 'Bearer realm="solgate admin"');
      reply.header('cache-control', 'no-store').status(status).send(body);
    });
    registerAdminApi(scope, { db: deps.db, plans });
    registerAdminCoverage(scope, { db: deps.db, track: deps.trackAddresses, trackKeys: deps.trackKeys, ensureCovered: deps.ensureCovered });
  });

  // Without SOLGATE_ADMIN_TOKEN only the CLI uses the admin API; the dashboard says how to turn it on.
  if (!admin.token) return adminDisabled(app, { api: false });
  const sendPage = async (_req: unknown, reply: FastifyReply) => secureHeaders(reply).type('text/html; charset=utf-8').send(page);
  app.get('/dashboard', sendPage);
  app.get('/dashboard/', sendPage);
  app.get('/dashboard/assets/:file', async (req, reply) => {
    const a = assets.get((req.params as { file: string }).file);
    if (!a) return reply.status(404).send({ error: 'Not found', code: 404, details: 'no such dashboard asset' });
    return secureHeaders(reply).type(a.type).send(a.body);
  });
}
