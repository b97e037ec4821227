/**
 * The OpenAPI 3.1 document of the HTTP routes, built from the routes as Fastify registers them: an `onRoute` hook
 * on the root instance (added before any interface) records each route's method, URL and `schema` — the very
 * objects Fastify compiles its validators from — and the document turns `params`/`querystring`/`headers` into
 * parameters and `body` into the request body, unchanged. What no route schema says is added per interface (by
 * URL): its tag, its authentication and its error format (REST `{error, code, details?}`, JSON-RPC envelopes).
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ERROR_TABLE } from '../wire/errors.js';
import type { JsonSchema } from '../rpc/params-schema.js';

declare module 'fastify' {
  interface FastifySchema {
    /** Left out of the documents (Fastify's convention, @fastify/cors's preflight route uses it too). */
    hide?: boolean;
  }
}

/** One route as Fastify registered it (HEAD routes Fastify adds for each GET, and hidden routes, are left out). */
export interface CollectedRoute {
  method: string;
  url: string;
  schema?: Record<string, unknown>;
}

/**
 * Records every route registered on `app` and on the scopes registered after this call (onRoute hooks are
 * inherited by child scopes). Call it on the root instance before the interfaces are registered.
 */
export function collectRoutes(app: FastifyInstance): CollectedRoute[] {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (opts: RouteOptions) => {
    // `schema.hide` (Fastify's convention): CORS preflights and the stand-ins of interfaces that are switched off.
    if (opts.schema?.hide === true) return;
    for (const method of [opts.method].flat()) {
      // Fastify's automatic HEAD twin of a GET route (exposeHeadRoutes) documents nothing new.
      if (method === 'HEAD' && routes.some((r) => r.method === 'GET' && r.url === opts.url)) continue;
      routes.push({ method, url: opts.url, schema: opts.schema as Record<string, unknown> | undefined });
    }
  });
  return routes;
}

type ErrorStyle = 'rest' | 'rpc' | 'sender' | 'none';
type Auth = 'apiKey' | 'optionalApiKey' | 'admin' | 'none';

/** The interfaces, by URL: tag, description, authentication and error format. First match wins. */
export const INTERFACES: { tag: string; description: string; match: (url: string, method: string) => boolean; auth: Auth; errors: ErrorStyle }[] = [
  { tag: 'Wallet REST', description: 'Wallet balances, history, transfers, identity and funding (/v1/wallet).', match: (u) => u.startsWith('/v1/wallet/'), auth: 'apiKey', errors: 'rest' },
  { tag: 'Token metadata', description: 'Token metadata by mint (/v0/token-metadata).', match: (u) => u === '/v0/token-metadata', auth: 'apiKey', errors: 'rest' },
  { tag: 'Webhooks', description: 'Webhook management and delivery log (/v0/webhooks).', match: (u) => u === '/v0/webhooks' || u.startsWith('/v0/webhooks/'), auth: 'apiKey', errors: 'rest' },
  { tag: 'Enhanced transactions', description: 'Parsed transactions by signature (/v0/transactions) and an address\'s history (/v0/addresses/{address}/transactions).', match: (u) => u === '/v0/transactions' || u === '/v0/addresses/:address/transactions', auth: 'apiKey', errors: 'rest' },
  {
    tag: 'JSON-RPC',
    description: 'DAS and ZK Compression methods over JSON-RPC 2.0 (POST /); the methods are described in /docs/openrpc.json.',
    match: (u, m) => u === '/' && m === 'POST',
    auth: 'apiKey',
    errors: 'rpc',
  },
  { tag: 'Sender', description: 'Transaction sending (POST /fast, JSON-RPC sendTransaction / getSignatureStatuses) and /ping.', match: (u) => u === '/fast' || u === '/ping', auth: 'optionalApiKey', errors: 'sender' },
  { tag: 'Admin', description: 'Key, plan and usage administration and the dashboard (only with SOLGATE_ADMIN_TOKEN).', match: (u) => u.startsWith('/admin/') || u === '/dashboard' || u.startsWith('/dashboard/'), auth: 'admin', errors: 'rest' },
  { tag: 'Operations', description: 'Liveness, readiness and Prometheus metrics.', match: (u) => ['/health', '/ready', '/metrics'].includes(u), auth: 'none', errors: 'none' },
  { tag: 'Docs', description: 'These documents and the page that shows them.', match: (u) => u === '/docs' || u.startsWith('/docs/'), auth: 'none', errors: 'none' },
];

/** The tag of routes no interface claims (the docs test refuses it, so a new interface gets an entry above). */
export const UNCLAIMED_TAG = 'Other';

const REST_ERROR: JsonSchema = {
  type: 'object',
  description: 'REST error body: `code` repeats the HTTP status',
  properties: { error: { type: 'string' }, code: { type: 'integer' }, details: { type: 'string' } },
  required: ['error', 'code'],
};

const RPC_ERROR: JsonSchema = {
  type: 'object',
  description: 'JSON-RPC 2.0 error response',
  properties: {
    jsonrpc: { const: '2.0' },
    error: {
      type: 'object',
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
      required: ['code', 'message'],
    },
    id: { type: ['string', 'integer', 'null'] },
  },
  required: ['jsonrpc', 'error', 'id'],
};

const RPC_REQUEST: JsonSchema = {
  type: 'object',
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    method: { type: 'string' },
    params: { type: ['object', 'array'] },
  },
  required: ['jsonrpc', 'method'],
};

/** The distinct HTTP statuses the error table maps to, with the codes behind each (for descriptions). */
function errorStatuses(): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [code, { status }] of Object.entries(ERROR_TABLE)) out.set(status, [...(out.get(status) ?? []), code]);
  return new Map([...out].sort((a, b) => a[0] - b[0]));
}

/** Fastify's `/v1/wallet/:wallet/balances` → OpenAPI's `/v1/wallet/{wallet}/balances` (and `*` → `{wildcard}`). */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*/g, '{wildcard}');
}

function pathParamNames(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]).concat(url.includes('*') ? ['wildcard'] : []);
}

function operationId(method: string, url: string): string {
  const words = url.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0].toUpperCase() + w.slice(1))].join('') || method.toLowerCase();
}

type Parameter = { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema; description?: string };

/** The parameters of one location from a route's object schema (each property's schema as the route has it). */
function parametersOf(schema: unknown, where: Parameter['in']): Parameter[] {
  const s = schema as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined;
  if (!s?.properties) return [];
  return Object.entries(s.properties).map(([name, sch]) => ({
    name,
    in: where,
    required: where === 'path' || (s.required ?? []).includes(name),
    schema: sch,
    ...(typeof sch.description === 'string' ? { description: sch.description } : {}),
  }));
}

function interfaceOf(r: CollectedRoute) {
  return INTERFACES.find((i) => i.match(r.url, r.method));
}

function errorResponses(style: ErrorStyle, auth: Auth): Record<string, unknown> {
  if (style === 'none') return {};
  const ref = style === 'rest' ? '#/components/schemas/RestError' : '#/components/schemas/JsonRpcError';
  const out: Record<string, unknown> = {};
  if (style === 'rpc') {
    // Application errors travel in a 200 (the result or the error object); transport refusals keep their status.
    for (const [status, what] of [[401, 'no, unknown, revoked or expired key (-32401)'], [403, 'IP address not allowed (-32403)'], [413, 'body too large'], [429, 'rate or credit limit reached (-32429)'], [503, 'unavailable (-32002)']] as const)
      out[String(status)] = { description: what, content: { 'application/json': { schema: { $ref: ref } } } };
    return out;
  }
  for (const [status, codes] of errorStatuses()) {
    if (auth === 'none' && (status === 401 || status === 403)) continue;
    out[String(status)] = { description: `error (${codes.join(', ')})`, content: { 'application/json': { schema: { $ref: ref } } } };
  }
  return out;
}

function security(auth: Auth): unknown[] | undefined {
  if (auth === 'apiKey') return [{ apiKeyQuery: [] }, { apiKeyHeader: [] }];
  if (auth === 'optionalApiKey') return [{}, { apiKeyQuery: [] }, { apiKeyHeader: [] }];
  if (auth === 'admin') return [{ adminBearer: [] }];
  return [];
}

/** One OpenAPI operation from a collected route. */
function operation(r: CollectedRoute): Record<string, unknown> {
  const iface = interfaceOf(r);
  const s = r.schema ?? {};
  const params = parametersOf(s.params, 'path');
  // Path parameters the route's schema does not describe are still parameters (plain strings).
  for (const name of pathParamNames(r.url)) if (!params.some((p) => p.name === name)) params.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  const parameters = [...params, ...parametersOf(s.querystring, 'query'), ...parametersOf(s.headers, 'header')];
  const op: Record<string, unknown> = {
    operationId: operationId(r.method, r.url),
    summary: typeof s.summary === 'string' ? s.summary : `${r.method} ${r.url}`,
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    tags: [iface?.tag ?? UNCLAIMED_TAG],
    ...(parameters.length ? { parameters } : {}),
  };
  if (s.body) op.requestBody = { required: true, content: { 'application/json': { schema: s.body } } };
  else if (iface?.errors === 'rpc' || iface?.errors === 'sender')
    op.requestBody = {
      required: true,
      description: iface.errors === 'rpc' ? 'one JSON-RPC request or a batch (array) of at most 100; methods and params in /docs/openrpc.json' : 'one JSON-RPC request (sendTransaction or getSignatureStatuses)',
      content: { 'application/json': { schema: iface.errors === 'rpc' ? { oneOf: [RPC_REQUEST, { type: 'array', items: RPC_REQUEST, minItems: 1, maxItems: 100 }] } : RPC_REQUEST } },
    };
  const responses: Record<string, unknown> = {};
  const declared = s.response as Record<string, JsonSchema> | undefined;
  if (declared) for (const [status, sch] of Object.entries(declared)) responses[status] = { description: `response ${status}`, content: { 'application/json': { schema: sch } } };
  else responses['200'] = { description: iface?.errors === 'rpc' ? 'JSON-RPC response(s): `result` or `error`' : 'success' };
  Object.assign(responses, errorResponses(iface?.errors ?? 'rest', iface?.auth ?? 'none'));
  op.responses = responses;
  op.security = security(iface?.auth ?? 'none');
  return op;
}

/** The OpenAPI 3.1 document of `routes`. */
export function buildOpenApi(routes: readonly CollectedRoute[], info: { version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...routes].sort((a, b) => (a.url === b.url ? a.method.localeCompare(b.method) : a.url.localeCompare(b.url)));
  for (const r of sorted) {
    const p = (paths[openApiPath(r.url)] ??= {});
    p[r.method.toLowerCase()] = operation(r);
  }
  const usedTags = new Set(routes.map((r) => interfaceOf(r)?.tag ?? UNCLAIMED_TAG));
  return {
    openapi: '3.1.0',
    info: {
      title: 'solgate HTTP interfaces',
      version: info.version,
      description: 'Generated at startup from the JSON schemas the routes validate with. JSON-RPC methods: /docs/openrpc.json.',
    },
    tags: [...INTERFACES.filter((i) => usedTags.has(i.tag)).map((i) => ({ name: i.tag, description: i.description })), ...(usedTags.has(UNCLAIMED_TAG) ? [{ name: UNCLAIMED_TAG }] : [])],
    paths,
    components: {
      securitySchemes: {
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api-key', description: 'API key as the `api-key` query parameter' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'API key as the `X-Api-Key` header' },
        adminBearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <SOLGATE_ADMIN_TOKEN>' },
      },
      schemas: { RestError: REST_ERROR, JsonRpcError: RPC_ERROR },
    },
    externalDocs: { description: 'JSON-RPC methods (OpenRPC)', url: '/docs/openrpc.json' },
  };
}
