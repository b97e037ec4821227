/**
 * CORS (browser apps calling the gateway directly with their key, as they do the hosted API), with @fastify/cors on
 * the root instance. It applies to the keyed interfaces only — JSON-RPC `/`, Wallet REST `/v1/*`, the `/v0/*` REST
 * APIs, the Sender's `/fast` and `/ping` — and to the two JSON documents of `/docs`; the admin API, the dashboard and
 * the operations endpoints (`/health`, `/ready`, `/metrics`) stay same-origin (no CORS header, a preflight is a 404).
 *
 * Preflights (`OPTIONS`) are answered in the `onRequest` hook, before any authentication (browsers send no key on a
 * preflight): 204 with the methods, the request headers the browser asks for (whatever the client sends: content-type,
 * x-api-key, authorization, solana-client, User-Agent, X-Helius-Client, tracing headers...) and a max-age. Actual
 * answers, errors included (401, 403, 429...), carry `Access-Control-Allow-Origin` and expose the rate-limit headers.
 * No credentials (cookies) are involved: the key travels in the URL or a header, so `*` is safe as the default.
 */
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Allowed origins: `*` (any), or a list of origins (`https://app.example.com`, `https://*.example.com`); [] = none. */
export type CorsOrigins = '*' | readonly string[];

declare module '../deps.js' {
  interface ApiDeps {
    /** Origins browser apps may call the keyed interfaces from (SOLGATE_CORS_ORIGINS); default any (`*`). */
    corsOrigins?: CorsOrigins;
  }
}

export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Response headers a browser app may read besides the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'x-solgate-coverage', 'x-solgate-context-slot'];
/** How long a browser may cache a preflight answer (browsers cap it: Chromium at 2 h, Firefox at 24 h). */
export const CORS_MAX_AGE_SECONDS = 86_400;

/** Paths of the interfaces browser apps call (route patterns or request paths). */
export function corsPath(path: string): boolean {
  return (
    path === '/' ||
    path.startsWith('/v1/') ||
    path.startsWith('/v0/') ||
    path === '/fast' ||
    path === '/ping' ||
    path === '/docs/openapi.json' ||
    path === '/docs/openrpc.json'
  );
}

/** The path a request is for: its route's pattern when one matched, else the decoded request path (404s, preflights). */
function pathOf(req: FastifyRequest): string {
  const route = req.routeOptions.url;
  if (route !== undefined && route !== '*') return route;
  const raw = req.url.split('?')[0];
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** `https://*.example.com` → a RegExp of its subdomains; other entries unchanged. */
function originMatcher(o: string): string | RegExp {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)\*\.(.+)$/i.exec(o);
  if (!m) return o;
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${esc(m[1])}[^./:]+(?:\\.[^./:]+)*\\.${esc(m[2])}$`, 'i');
}

/** Registers CORS on the root instance (call once, before the interfaces). */
export async function registerCors(app: FastifyInstance, origins: CorsOrigins = '*'): Promise<void> {
  const origin = origins === '*' || origins.includes('*') ? '*' : origins.map(originMatcher);
  const on = {
    origin,
    methods: CORS_METHODS,
    // allowedHeaders unset: the headers a preflight asks for are allowed (each client's own set; no cookie involved).
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    // An OPTIONS request without Origin / Access-Control-Request-Method is answered 204 too (not a text/plain 400).
    strictPreflight: false,
  };
  const off = { origin: false };
  const none = origin !== '*' && origin.length === 0;
  await app.register(cors, {
    hook: 'onRequest',
    delegator: (req, cb) => cb(null, !none && corsPath(pathOf(req)) ? on : off),
  });
}
