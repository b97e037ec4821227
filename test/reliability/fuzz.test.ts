/**
 * Hostile input (issue #9): property-based requests (fast-check) against every HTTP route and every JSON-RPC method
 * of one app with every interface on (Wallet REST, /v0 token-metadata, transactions and webhooks with deliveries,
 * JSON-RPC DAS + ZK Compression, Sender /fast and /ping to an unreachable upstream, admin API, docs and ops).
 * Routes are listed from the app's own route tree and their parameter/body schemas taken from its OpenAPI
 * document; methods from RPC_METHODS (aliases included) with their OpenRPC params — new routes and methods are
 * fuzzed without touching this file.
 *
 * Generated requests: schema-shaped values mixed with wrong types, huge/negative/fractional numbers, long and odd
 * unicode strings (lone surrogates, NUL), SQL/JSON/path/template injection strings in every parameter, unknown
 * fields, null/array/string bodies, deep nesting, JSON-RPC batches (valid, invalid, empty, over 100), missing,
 * invalid, conflicting and duplicated api keys, bad content types, raw non-JSON bodies. Then fixed hostile cases:
 * 10,000- and 100,000-level nesting, oversized bodies on every body route (413 in the interface's format), and raw
 * socket requests inject cannot express (invalid UTF-8 bytes, truncated bodies, wrong/invalid Content-Length,
 * malformed request lines and URLs, oversized headers).
 *
 * Oracles, per response: no 5xx except the documented dependency-unavailable answers — `/fast` 503/504 (no
 * upstream accepted / answered: its upstream is unreachable here), `/ready` 503 (database or indexer behind, its own
 * `{status, reason}` body), `/v0/transactions` 503 (cluster RPC unavailable) and a REST route's 503 for a
 * `minContextSlot` the index has not reached (the server waits 50 ms for it here); the body in the interface's own
 * format: REST `{error, code, details?}` with code == HTTP status on every error (all of /v0, /v1, /admin/api, ops,
 * docs and unmatched routes), JSON-RPC `{jsonrpc:'2.0', error:{code, message}, id}` or `{jsonrpc, result, id}` (an
 * array of those for a batch), the Sender's JSON-RPC bodies with the error's HTTP status; the process keeps
 * answering /health after every property run. Figures go to the reliability report (section `fuzz`).
 *
 * Short variant (CI) ≥ 10,000 generated requests; SOLGATE_RELIABILITY_LONG=1 runs ten times as many.
 */
import { IDENTITIES_BODY_LIMIT } from '../../src/api/admin/api.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createCoverageService } from '../../src/ingest/hydrate.js';
import { listRoutes } from '../helpers/routes.js';
import { seedLightTrees } from '../helpers/db.js';
import { RPC_METHODS } from '../../src/api/rpc/registry.js';
import { BODY_LIMIT } from '../../src/api/app.js';
import { openApiPath } from '../../src/api/docs/openapi.js';
import { createRouter } from '../../src/sender/router.js';
import { DEFAULT_TIP_ACCOUNTS } from '../../src/sender/validate.js';
import { createApiKey } from '../../src/store/keys.js';
import { replayInto } from '../../src/ingest/replay.js';
import { LONG, OUT_DIR, record } from './report.js';

const ADMIN_TOKEN = 'fuzz-admin-token-0123456789';
const SCALE = LONG ? 10 : 1;
/** Generated requests per property (short variant: 10,400 in all, plus the fixed cases). */
const RUNS = { rest: 4200 * SCALE, rpc: 4200 * SCALE, sender: 1000 * SCALE, raw: 1000 * SCALE };
/** fast-check seed of the run (recorded in the report; SOLGATE_FUZZ_SEED replays a run's generated requests). */
const SEED = Number(process.env.SOLGATE_FUZZ_SEED ?? Date.now() % 2 ** 31);
const DAS_DIR = join(import.meta.dirname, '..', 'fixtures', 'das');

let ta: TestApp;
let victimKeyId = '';
let webhookId = '';
const routes: Route[] = [];
const rpcMethods: { name: string; params: { name: string; required?: boolean; schema: Schema }[] | null }[] = [];

type Schema = Record<string, any>;
interface Route {
  method: string;
  url: string;
  params: { name: string; in: string; required?: boolean; schema: Schema }[];
  body: Schema | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Figures and oracles

type Iface = 'rest' | 'admin' | 'rpc' | 'sender' | 'ops' | 'socket';
const stats = {
  requests: { rest: 0, admin: 0, rpc: 0, sender: 0, ops: 0, socket: 0 } as Record<Iface, number>,
  rpcCalls: 0,
  statuses: {} as Record<string, number>,
  fiveXX: 0,
  allowed5xx: {} as Record<string, number>,
  violations: 0,
};
const violations: { kind: string; req: string; status: number; body: string }[] = [];
const violationKinds = new Set<string>();

function ifaceOf(method: string, path: string): Iface {
  if (path === '/' && method === 'POST') return 'rpc';
  if ((path === '/fast' && method === 'POST') || (path === '/ping' && (method === 'GET' || method === 'HEAD'))) return 'sender';
  if (path.startsWith('/admin/')) return 'admin';
  if (path.startsWith('/v0/') || path.startsWith('/v1/')) return 'rest';
  return 'ops';
}

/** Documented 5xx answers: a dependency (upstream, database, cluster RPC) is unavailable. */
function allowed5xx(method: string, path: string, status: number, body: unknown): boolean {
  if (path === '/fast' && (status === 503 || status === 504)) return true;
  if (path === '/ready' && status === 503) return (body as { status?: unknown })?.status === 'unavailable';
  if (path === '/v0/transactions' && status === 503) return true;
  // A minContextSlot the index has not reached (REST routes that read the index; documented, with Retry-After).
  if (status === 503 && (path.startsWith('/v1/wallet/') || path.startsWith('/v0/addresses/') || path === '/v0/token-metadata'))
    return (body as { error?: unknown })?.error === 'Minimum context slot has not been reached';
  return false;
}

/** encodeURIComponent, with lone surrogates (which it refuses) sent as their UTF-8-like bytes (%ED%A0%80). */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s.split('').map((c) => {
      try {
        return encodeURIComponent(c);
      } catch {
        return '%ED%A0%80';
      }
    }).join('');
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function restErrorProblem(status: number, body: unknown): string | null {
  if (!isObj(body)) return 'REST error body is not an object';
  if (typeof body.error !== 'string' || !body.error) return 'REST error without error message';
  if (body.code !== status) return `REST error code ${String(body.code)} != HTTP ${status}`;
  if (body.details !== undefined && typeof body.details !== 'string') return 'REST error details not a string';
  const extra = Object.keys(body).filter((k) => !['error', 'code', 'details'].includes(k));
  if (extra.length) return `REST error with extra fields ${extra.join(',')}`;
  return null;
}

function rpcResponseProblem(r: unknown, sender = false): string | null {
  if (!isObj(r)) return 'JSON-RPC response is not an object';
  if (r.jsonrpc !== '2.0') return 'JSON-RPC response without jsonrpc 2.0';
  if (!('id' in r)) return 'JSON-RPC response without id';
  if ('error' in r) {
    const e = r.error;
    if (!isObj(e) || !Number.isInteger(e.code) || typeof e.message !== 'string') return 'JSON-RPC error without integer code / string message';
    if ('result' in r) return 'JSON-RPC response with result and error';
    // `data`: the Sender's errors, and -32016's documented `{contextSlot}` (minContextSlot not reached).
    const extra = Object.keys(e).filter((k) => !['code', 'message', 'data'].includes(k) || (k === 'data' && !sender && e.code !== -32016));
    if (extra.length) return `JSON-RPC error with extra fields ${extra.join(',')}`;
  } else if (!('result' in r)) return 'JSON-RPC response without result or error';
  return null;
}

/** Checks one answer; records figures and violations. `expectStatus`: a status the case requires (e.g. 413). */
function check(iface: Iface, method: string, path: string, status: number, text: string, contentType: string | undefined, reqDesc: string, expectStatus?: number, countAs: Iface = iface): void {
  stats.requests[countAs]++;
  stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
  const problems: string[] = [];
  let body: unknown;
  const json = method !== 'HEAD' && /json/.test(contentType ?? '');
  if (json) {
    try {
      body = JSON.parse(text);
    } catch {
      problems.push('unparseable JSON answer');
    }
  }
  if (status >= 500) {
    if (allowed5xx(method, path, status, body)) stats.allowed5xx[`${path} ${status}`] = (stats.allowed5xx[`${path} ${status}`] ?? 0) + 1;
    else {
      stats.fiveXX++;
      problems.push(`HTTP ${status}`);
    }
  }
  if (expectStatus !== undefined && status !== expectStatus) problems.push(`HTTP ${status}, expected ${expectStatus}`);
  if (method !== 'HEAD' && !(path === '/ready' && status === 503)) {
    if (iface === 'rpc') {
      if (!json) problems.push('JSON-RPC answer not JSON');
      else if (Array.isArray(body)) {
        if (status !== 200) problems.push(`JSON-RPC batch answer with HTTP ${status}`);
        if (body.length === 0) problems.push('empty JSON-RPC batch answer');
        for (const r of body) {
          const p = rpcResponseProblem(r);
          if (p) problems.push(`batch: ${p}`);
        }
      } else if (body !== undefined) {
        const p = rpcResponseProblem(body);
        if (p) problems.push(p);
        else if (status !== 200 && !('error' in (body as object))) problems.push(`JSON-RPC result with HTTP ${status}`);
        else if (status === 200 && 'error' in (body as object) && [-32401, -32403, -32429].includes((body as { error: { code: number } }).error.code))
          problems.push('JSON-RPC transport refusal with HTTP 200');
      }
    } else if (iface === 'sender' && path === '/fast') {
      if (!json) problems.push('Sender answer not JSON');
      else if (body !== undefined) {
        const p = rpcResponseProblem(body, true);
        if (p) problems.push(p);
        else if ('error' in (body as object) && status < 400) problems.push(`Sender error with HTTP ${status}`);
        else if ('result' in (body as object) && status !== 200) problems.push(`Sender result with HTTP ${status}`);
      }
    } else if (status >= 400) {
      // Sender /ping, REST, admin, ops, docs and unmatched routes: the REST error format.
      if (!json) problems.push(`error answer not JSON (${contentType ?? 'no content-type'})`);
      else if (body !== undefined) {
        const p = restErrorProblem(status, body);
        if (p) problems.push(p);
      }
    }
  }
  if (problems.length) {
    stats.violations++;
    for (const kind of problems) {
      const k = `${method} ${path.slice(0, 120)} ${status} ${kind}`;
      if (violationKinds.has(k)) continue;
      violationKinds.add(k);
      violations.push({ kind: `${kind} (${method} ${path.slice(0, 120)})`, req: reqDesc.slice(0, 600), status, body: text.slice(0, 300) });
    }
  }
}

interface Req {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string | Buffer;
}

/** The route path a URL hit (for the oracles): the URL without its query. */
const pathOf = (url: string) => url.split('?')[0];

async function send(r: Req, expectStatus?: number): Promise<void> {
  const res = await ta.app.inject({ method: r.method as 'GET', url: r.url, headers: r.headers, payload: r.payload });
  const path = pathOf(r.url);
  // The JSON-RPC interface is POST / (a query string does not change it).
  check(ifaceOf(r.method, path), r.method, path, res.statusCode, res.body, res.headers['content-type'] as string | undefined, describeReq(r), expectStatus);
}

function describeReq(r: Req): string {
  const p = r.payload === undefined ? '' : typeof r.payload === 'string' ? r.payload : `<${r.payload.length} bytes>`;
  return `${r.method} ${r.url} ${JSON.stringify(r.headers)} ${p.length > 400 ? `${p.slice(0, 400)}… (${p.length} chars)` : p}`;
}

async function assertAlive(): Promise<void> {
  const h = await ta.app.inject({ url: '/health' });
  expect(h.statusCode).toBe(200);
}

// ---------------------------------------------------------------------------------------------------------------
// Generators

const INJECTIONS = [
  "' OR '1'='1", "'; DROP TABLE api_keys; --", '" OR ""="', '1; SELECT pg_sleep(10)', "\\'", '%27%20OR%201=1', '$1', '?',
  '../../../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', '/admin/api/keys', '%00', '\u0000', 'a\u0000b', '\r\nX-Injected: 1',
  '{"$gt":""}', '{"__proto__":{"polluted":1}}', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty',
  '${jndi:ldap://127.0.0.1/x}', '{{7*7}}', '<script>alert(1)</script>', '`id`', '$(id)', '|id', 'NaN', 'Infinity', '-Infinity',
  '-0', '1e309', '0x7fffffff', '18446744073709551616', '-9223372036854775809', '9'.repeat(400), '1.5', '', ' ', '\t', 'null',
  'undefined', 'true', '[]', '{}', '\uD800', '\uDFFF', '\uFFFE', '\u202E', 'é', '💥', '\u0301'.repeat(50), '%', '%%', '%E0%A4%A',
  '\\u0000', '*', '%_%', 'ЀЁЂ', 'http://127.0.0.1:9/hook', 'https://example.com/hook', 'http://[::1]/', 'file:///etc/passwd',
  'javascript:alert(1)', 'data:text/plain,x',
];

const goodStrings: string[] = [];

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(2_000, 70_000).map((n) => 'A'.repeat(n)) },
  { weight: 1, arbitrary: fc.base64String({ maxLength: 200 }) },
);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 0.5, -0.5, 1e-300, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64, 1e308, -1e308, Number.MAX_VALUE, Number.MIN_VALUE),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 20, max: 300 }).map((d) => nested(d)) },
  { weight: 1, arbitrary: fc.constantFrom(2_000, 20_000).map((n) => Array.from({ length: n }, (_, i) => i)) },
  { weight: 1, arbitrary: fc.constantFrom(200, 5_000).map((n) => Array.from({ length: n }, () => goodStrings[0] ?? 'x')) },
);

const goodString = (s: Schema): fc.Arbitrary<unknown> => {
  const pool = fc.constantFrom(...goodStrings);
  if (s.format === 'date-time') return fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), pool);
  if (typeof s.pattern === 'string' && /\\d\{4\}-/.test(s.pattern)) return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  return fc.oneof({ weight: 4, arbitrary: pool }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }, { weight: 1, arbitrary: fc.nat(1000).map(String) });
};

/** Values shaped by a JSON schema, each leaf sometimes replaced by a hostile value; objects sometimes get unknown fields. */
function fromSchema(s: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const shaped = shapedBy(s, depth);
  return fc.oneof({ weight: 5, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue });
}

function shapedBy(s: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
  if (!s || typeof s !== 'object' || depth > 4) return hostileValue;
  if (Array.isArray(s.enum) && s.enum.length) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts) && alts.length) return fc.oneof(...alts.map((a: Schema) => shapedBy(a, depth + 1)));
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : s.items ? ['array'] : [];
  if (!types.length) return hostileValue;
  return fc.oneof(
    ...types.map((t): fc.Arbitrary<unknown> => {
      switch (t) {
        case 'string':
          return goodString(s);
        case 'integer': {
          const min = typeof s.minimum === 'number' ? s.minimum : -5;
          const max = typeof s.maximum === 'number' ? s.maximum : Math.max(min + 1000, 1000);
          return fc.oneof({ weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, 2 ** 31 - 1) }) }, { weight: 1, arbitrary: hostileNumber });
        }
        case 'number':
          return fc.oneof(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), hostileNumber);
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array':
          return fc.array(fromSchema(s.items, depth + 1), { maxLength: typeof s.maxItems === 'number' ? Math.min(s.maxItems + 1, 6) : 5 });
        case 'object': {
          const props = (s.properties ?? {}) as Record<string, Schema>;
          const names = Object.keys(props);
          const required = new Set<string>(Array.isArray(s.required) ? s.required : []);
          const rec = fc.record(Object.fromEntries(names.map((n) => [n, fromSchema(props[n], depth + 1)])), {
            requiredKeys: names.filter((n) => required.has(n)),
          });
          const unknown = fc.dictionary(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'extra', 'id', 'limit', '$where'), fc.string({ maxLength: 8 })), hostileValue, { maxKeys: 2 });
          return fc.oneof(
            { weight: 4, arbitrary: rec },
            { weight: 1, arbitrary: fc.tuple(rec, unknown).map(([a, b]) => ({ ...b, ...(a as object) })) },
            // a required field dropped
            { weight: 1, arbitrary: rec.map((o) => Object.fromEntries(Object.entries(o as object).slice(1))) },
          );
        }
        default:
          return hostileValue;
      }
    }),
  );
}

/** The API key of a request: valid, missing, invalid, conflicting or duplicated, in the query and/or the header. */
const keyVariant = fc.constantFrom('query', 'query', 'query', 'header', 'both', 'none', 'invalid', 'conflict', 'dupQuery', 'empty', 'hostile');

function withKey(url: string, headers: Record<string, string | string[]>, v: string, hostile: string): string {
  const sep = url.includes('?') ? '&' : '?';
  const k = ta.key;
  switch (v) {
    case 'query':
      return `${url}${sep}api-key=${k}`;
    case 'header':
      headers['x-api-key'] = k;
      return url;
    case 'both':
      headers['x-api-key'] = k;
      return `${url}${sep}api-key=${k}`;
    case 'invalid':
      return `${url}${sep}api-key=${k.slice(0, -2)}zz`;
    case 'conflict':
      headers['x-api-key'] = `${k}x`;
      return `${url}${sep}api-key=${k}`;
    case 'dupQuery':
      return `${url}${sep}api-key=${k}&api-key=${k}`;
    case 'empty':
      return `${url}${sep}api-key=`;
    case 'hostile':
      return `${url}${sep}api-key=${enc(hostile)}`;
    default:
      return url;
  }
}

const CONTENT_TYPES = [
  'application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x', 'application/octet-stream', 'application/jsonx', 'application/json; charset=latin1', 'APPLICATION/JSON', '', 'application/*',
];

/** A body: the value as JSON, or raw text that is not (truncated, trailing garbage, duplicated keys, comments, BOM). */
const bodyText = (v: unknown) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '{', '{"a":', 'nul', '{}garbage', '[1,]', '{"a":1,"a":2}', '/* c */ {}', '\uFEFF{}', "{'a':1}", '{"a":1e99999}', '{"a":-}', '"\\ud800"', '"\\u0000"', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  );

function restRequest(route: Route): fc.Arbitrary<Req> {
  const pathParams = route.params.filter((p) => p.in === 'path');
  const queryParams = route.params.filter((p) => p.in === 'query' && p.name !== 'api-key');
  const seg = (s: Schema) =>
    fc.oneof(
      { weight: 6, arbitrary: shapedBy(s, 0).map((v) => enc(String(v))) },
      { weight: 2, arbitrary: hostileString.map((v) => enc(v)) },
      { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '..', '.', '%2e%2e', '%00', 'a/b', '%2F', '%FF', '%ED%A0%80') },
    );
  const pathArb = fc.tuple(...pathParams.map((p) => seg(p.schema))).map((vals) => {
    let u = route.url;
    pathParams.forEach((p, i) => (u = u.replace(`:${p.name}`, vals[i] as string)));
    return u;
  });
  const queryArb = fc.tuple(
    fc.record(Object.fromEntries(queryParams.map((p) => [p.name, fromSchema(p.schema)])), { requiredKeys: [] }),
    fc.dictionary(fc.constantFrom('extra', 'limit', 'before', 'after', 'cursor', 'page', 'x[y]', 'a.b', '__proto__', ''), hostileString, { maxKeys: 2 }),
    fc.boolean(),
    fc.boolean(),
  ).map(([known, unknown, dup, spread]) => {
    const parts: string[] = [];
    for (const [k, v] of Object.entries({ ...unknown, ...(known as object) }))
      for (const one of Array.isArray(v) && spread ? v : [v]) parts.push(`${enc(k)}=${enc(typeof one === 'string' ? one : JSON.stringify(one) ?? '')}`);
    if (dup && parts.length) parts.push(parts[0]);
    return parts.join('&');
  });
  const bodyArb = route.body
    ? fromSchema(route.body).chain((v) => bodyText(v))
    : fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? '') });
  const admin = route.url.startsWith('/admin/');
  const authArb = admin
    ? fc.constantFrom(`Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`, '', 'Bearer', `bearer   ${ADMIN_TOKEN}  `, `Basic ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}x`, 'Bearer \u00ff', `Bearer ${'a'.repeat(5000)}`)
    : fc.constant('');
  return fc
    .record({ path: pathArb, query: queryArb, body: bodyArb, ct: fc.constantFrom(...CONTENT_TYPES), key: keyVariant, hostile: hostileString, auth: authArb })
    .map(({ path, query, body, ct, key, hostile, auth }) => {
      const headers: Record<string, string | string[]> = {};
      let url = query ? `${path}?${query}` : path;
      if (!admin) url = withKey(url, headers, key, hostile);
      if (auth) headers.authorization = auth;
      if (body !== undefined && ct) headers['content-type'] = ct;
      // a body on a body-less method, now and then
      const payload = body !== undefined ? body : undefined;
      return { method: route.method, url, headers, payload };
    });
}

/** One JSON-RPC call object: envelope and params right or wrong. */
function rpcCall(): fc.Arbitrary<unknown> {
  const byMethod = rpcMethods.map((m) => {
    const paramsArb: fc.Arbitrary<unknown> = m.params
      ? fc.oneof(
          {
            weight: 6,
            arbitrary: fromSchema({
              type: 'object',
              properties: Object.fromEntries(m.params.map((p) => [p.name, p.schema])),
              required: m.params.filter((p) => p.required).map((p) => p.name),
            }),
          },
          // positional
          { weight: 1, arbitrary: fc.tuple(...m.params.slice(0, 3).map((p) => fromSchema(p.schema))) },
          { weight: 1, arbitrary: hostileValue },
        )
      : fc.oneof(
          { weight: 3, arbitrary: fc.dictionary(fc.constantFrom('id', 'ids', 'hash', 'hashes', 'address', 'addresses', 'owner', 'mint', 'limit', 'cursor', 'page', 'before', 'after', 'options', 'newAddresses', 'newAddressesWithTrees', 'tree', 'queueType', 'startIndex', 'numElements', 'signature', 'treeId'), fc.oneof(fc.constantFrom(...goodStrings), fc.array(fc.constantFrom(...goodStrings), { maxLength: 4 }), hostileValue), { maxKeys: 4 }) },
          { weight: 1, arbitrary: fc.array(fc.oneof(fc.constantFrom(...goodStrings), hostileValue), { maxLength: 3 }) },
          { weight: 1, arbitrary: hostileValue },
          { weight: 1, arbitrary: fc.constant(undefined) },
        );
    return fc.record({ method: fc.constant(m.name), params: paramsArb });
  });
  const methodCall = fc.oneof({ weight: 12, arbitrary: fc.oneof(...byMethod) }, { weight: 1, arbitrary: fc.record({ method: hostileValue, params: hostileValue }) });
  const idArb = fc.oneof(fc.constantFrom(1, 'fuzz', null, 0), hostileValue);
  return fc
    .tuple(methodCall, idArb, fc.constantFrom('ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'noId', 'noVersion', 'v1', 'extra', 'numVersion'))
    .map(([call, id, env]): unknown => {
      const c = call as { method: unknown; params: unknown };
      const o: Record<string, unknown> = { jsonrpc: '2.0', id, method: c.method };
      if (c.params !== undefined) o.params = c.params;
      if (env === 'noId') delete o.id;
      if (env === 'noVersion') delete o.jsonrpc;
      if (env === 'v1') o.jsonrpc = '1.0';
      if (env === 'numVersion') o.jsonrpc = 2;
      if (env === 'extra') o.extra = { a: 1 };
      return o;
    });
}

function rpcRequest(): fc.Arbitrary<Req> {
  const call = rpcCall();
  const bodyArb = fc.oneof(
    { weight: 10, arbitrary: call },
    { weight: 2, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: call }, { weight: 1, arbitrary: hostileValue }), { minLength: 1, maxLength: 6 }) },
    { weight: 1, arbitrary: fc.constantFrom([], 101, 150).map((n) => (Array.isArray(n) ? n : Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'getIndexerSlot' })))) },
    { weight: 1, arbitrary: hostileValue },
  );
  return fc
    .record({ body: bodyArb.chain((v) => bodyText(v)), ct: fc.constantFrom(...CONTENT_TYPES), key: keyVariant, hostile: hostileString, q: fc.constantFrom('', '', '', '?x=1', '?api-key') })
    .map(({ body, ct, key, hostile, q }) => {
      const headers: Record<string, string | string[]> = {};
      if (ct) headers['content-type'] = ct;
      const url = withKey(`/${q}`, headers, key, hostile);
      return { method: 'POST', url, headers, payload: body };
    });
}

function senderRequest(): fc.Arbitrary<Req> {
  const tx = fc.oneof(
    fc.uint8Array({ minLength: 0, maxLength: 1400 }).map((b) => Buffer.from(b).toString('base64')),
    fc.uint8Array({ minLength: 0, maxLength: 300 }).map((b) => Buffer.from(b).toString('hex')),
    hostileValue,
  );
  const opts = fc.oneof(fc.record({ encoding: fc.oneof(fc.constantFrom('base64', 'base58', 'json'), hostileValue), skipPreflight: fc.oneof(fc.boolean(), hostileValue), maxRetries: fc.oneof(fc.nat(5), hostileValue) }, { requiredKeys: [] }), hostileValue);
  const body = fc.oneof(
    { weight: 8, arbitrary: fc.record({ jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0', 2), id: fc.oneof(fc.constantFrom(1, 'x'), hostileValue), method: fc.oneof(fc.constantFrom('sendTransaction', 'sendTransaction', 'sendTransaction', 'getSignatureStatuses', 'getHealth'), hostileValue), params: fc.oneof(fc.tuple(tx, opts), fc.tuple(tx), fc.tuple(fc.array(fc.constantFrom(...goodStrings), { maxLength: 3 })), hostileValue) }, { requiredKeys: ['jsonrpc', 'method'] }) },
    { weight: 1, arbitrary: fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), method: fc.constant('sendTransaction') }), { maxLength: 3 }) },
    { weight: 1, arbitrary: hostileValue },
  );
  return fc
    .record({ body: body.chain((v) => bodyText(v)), ct: fc.constantFrom(...CONTENT_TYPES), key: fc.constantFrom('none', 'none', 'query', 'header', 'invalid', 'conflict', 'hostile'), hostile: hostileString, q: fc.constantFrom('', '', '?swqos_only=true', '?swqos_only=1', '?swqos_only=true&swqos_only=false'), m: fc.constantFrom('POST', 'POST', 'POST', 'POST', 'POST', 'POST', 'GET', 'PUT') })
    .map(({ body, ct, key, hostile, q, m }) => {
      const headers: Record<string, string | string[]> = {};
      if (ct) headers['content-type'] = ct;
      const url = withKey(m === 'GET' ? `/ping${q}` : `/fast${q}`, headers, key, hostile);
      return { method: m, url, headers, payload: m === 'GET' ? undefined : body };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Setup

/** Addresses, ids and signatures the seeded data answers to, and values a handler reads deeply. */
function collectStrings(v: unknown, out: Set<string>): void {
  if (typeof v === 'string' && v.length >= 32 && v.length <= 90) out.add(v);
  else if (Array.isArray(v)) v.forEach((x) => collectStrings(x, out));
  else if (isObj(v)) Object.values(v).forEach((x) => collectStrings(x, out));
}

beforeAll(async () => {
  const unreachable = 'http://127.0.0.1:9/';
  const router = createRouter({ rpcUrls: [unreachable], blockEngineUrl: unreachable, statusUrl: unreachable, upstreamTimeoutMs: 300, rebroadcastMs: 1000, maxRebroadcastMs: 2000, logger: pino({ level: 'silent' }) });
  ta = await createTestApp((db) => {
    // Coverage as in a serve without a cluster RPC: answers say what they lack; the watch list is recorded.
    const coverage = createCoverageService({ db, client: null, commitment: 'confirmed', logger: pino({ level: 'silent' }) });
    return {
      admin: { token: ADMIN_TOKEN },
      webhooks: { allowHttp: true, allowPrivate: true },
      sender: { router, policy: { tipAccounts: DEFAULT_TIP_ACCOUNTS, minTipLamports: 200_000n, minTipSwqosLamports: 5_000n }, rateLimitPerSecond: 1_000_000 },
      // The cluster knows no transaction (each signature is looked up; the answer is an empty list).
      enhanced: { getTransaction: async () => null },
      // A generated minContextSlot beyond the index is answered after this wait (documented 503), not 2 s.
      minContextWaitMs: 50,
      ensureCovered: coverage.ensureCovered,
      indexCoverage: coverage.indexCoverage,
      trackAddresses: coverage.track,
    };
  });
  // Seeds: Light trees, a few DAS reference cases (one per method), a webhook and a second key the admin routes act on.
  await seedLightTrees(ta.t.db);
  const pool = new Set<string>();
  const cases = (JSON.parse(readFileSync(join(DAS_DIR, 'cases.json'), 'utf8')) as { cases: { method: string; params: unknown; inputs: { decoded: string }[][] }[] }).cases;
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.method) || seen.size >= 5) continue;
    seen.add(c.method);
    for (const g of c.inputs) await replayInto(ta.t.db, g.map((i) => join(DAS_DIR, i.decoded)));
    collectStrings(c.params, pool);
  }
  const victim = await createApiKey(ta.t.db, { name: 'fuzz-victim' });
  victimKeyId = victim.record.id;
  const wh = await ta.app.inject({ method: 'POST', url: `/v0/webhooks?api-key=${ta.key}`, payload: { webhookURL: 'http://127.0.0.1:9/hook', accountAddresses: [...pool].slice(0, 3), transactionTypes: ['ANY'], webhookType: 'enhanced' } });
  expect(wh.statusCode, wh.body).toBe(200);
  webhookId = wh.json().webhookID;
  goodStrings.push(...pool, webhookId, victimKeyId, 'EU57rQxcmFhJ24ApVdUy3y4MxFXcTUN3uiVeWvGgtWXu', 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT',
    '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW', '11111111111111111111111111111111', 'So11111111111111111111111111111111111111112',
    '0', '1', '100', 'dGVzdA==', 'fuzz-key', 'developer', 'free', '127.0.0.1', '10.0.0.0/8', '2026-01-01T00:00:00Z', 'pending', 'delivered', 'ANY', 'enhanced', 'raw', 'http://127.0.0.1:9/hook');

  // Routes from the app, schemas from its OpenAPI document.
  const openapi = (await ta.app.inject({ url: '/docs/openapi.json' })).json() as { paths: Record<string, Record<string, { parameters?: Route['params']; requestBody?: { content?: Record<string, { schema: Schema }> } }>> };
  for (const r of listRoutes(ta.app).filter((x) => x.method !== 'OPTIONS')) {
    const op = r.method === 'HEAD' ? undefined : openapi.paths[openApiPath(r.url)]?.[r.method.toLowerCase()];
    routes.push({ method: r.method, url: r.url, params: op?.parameters ?? [], body: op?.requestBody?.content?.['application/json']?.schema ?? (['POST', 'PUT', 'PATCH'].includes(r.method) ? {} : null) });
  }
  // path params the document may not list (e.g. HEAD): named from the route
  for (const r of routes) for (const m of r.url.matchAll(/:(\w+)/g)) if (!r.params.some((p) => p.in === 'path' && p.name === m[1])) r.params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
  const openrpc = (await ta.app.inject({ url: '/docs/openrpc.json' })).json() as { methods: { name: string; params: { name: string; required?: boolean; schema: Schema }[] }[] };
  const described = new Map(openrpc.methods.map((m) => [m.name, m.params]));
  for (const m of RPC_METHODS) for (const n of [m.name, ...(m.aliases ?? [])]) rpcMethods.push({ name: n, params: m.paramsSchema ? (described.get(n) ?? null) : null });
}, 120_000);

afterAll(async () => {
  record('fuzz', {
    variant: LONG ? 'long' : 'short',
    seed: SEED,
    requestsPerInterface: stats.requests,
    requestsTotal: Object.values(stats.requests).reduce((a, b) => a + b, 0),
    jsonRpcCallsInBatchesAndSingles: stats.rpcCalls,
    routesFuzzed: routes.length,
    rpcMethodsFuzzed: rpcMethods.length,
    statusHistogram: stats.statuses,
    fiveXX: stats.fiveXX,
    documented5xx: stats.allowed5xx,
    formatOrStatusViolations: stats.violations,
  });
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'fuzz-violations.json'), JSON.stringify(violations, null, 2));
  await ta?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Properties

/** The violations found since `from` (each test checks its own), readable. */
const found = (from: number) => violations.slice(from).map((v) => `${v.kind}\n    request: ${v.req}\n    answer ${v.status}: ${v.body}`);

describe('fuzz: generated hostile requests', () => {
  it('lists every interface', () => {
    const urls = new Set(routes.map((r) => `${r.method} ${r.url}`));
    for (const r of ['POST /', 'POST /fast', 'GET /ping', 'POST /v0/webhooks', 'GET /admin/api/keys', 'GET /v1/wallet/:wallet/balances', 'POST /v0/token-metadata', 'POST /v0/transactions', 'GET /health'])
      expect(urls).toContain(r);
    expect(rpcMethods.length).toBeGreaterThanOrEqual(RPC_METHODS.length);
  });

  it(`REST, admin, ops and docs routes: ${RUNS.rest} requests`, async () => {
    const before = violations.length;
    const routeArbs = routes.filter((r) => !(r.method === 'POST' && (r.url === '/' || r.url === '/fast'))).map((r) => restRequest(r));
    await fc.assert(
      fc.asyncProperty(fc.oneof(...routeArbs), async (r) => {
        await send(r);
      }),
      { numRuns: RUNS.rest, seed: SEED },
    );
    await assertAlive();
    expect(found(before)).toEqual([]);
  });

  it(`JSON-RPC: ${RUNS.rpc} requests (single calls and batches)`, async () => {
    const before = violations.length;
    await fc.assert(
      fc.asyncProperty(rpcRequest(), async (r) => {
        stats.rpcCalls += (() => { try { const b = JSON.parse(String(r.payload)); return Array.isArray(b) && b.length <= 100 ? b.length : 1; } catch { return 1; } })();
        await send(r);
      }),
      { numRuns: RUNS.rpc, seed: SEED + 1 },
    );
    await assertAlive();
    expect(found(before)).toEqual([]);
  });

  it(`Sender /fast and /ping: ${RUNS.sender} requests`, async () => {
    const before = violations.length;
    await fc.assert(
      fc.asyncProperty(senderRequest(), async (r) => {
        await send(r);
      }),
      { numRuns: RUNS.sender, seed: SEED + 2 },
    );
    await assertAlive();
    expect(found(before)).toEqual([]);
  });

  it(`raw method/URL/header mix over every route: ${RUNS.raw} requests`, async () => {
    const before = violations.length;
    const arb = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND'),
      route: fc.constantFrom(...routes.map((r) => r.url), '/v1', '/v1/wallet', '/v0/webhooks/', '//', '/./health', '/admin/api/../api/keys', '/%2e%2e/admin/api/keys', '/docs/../admin/api/keys'),
      fill: hostileString,
      headers: fc.dictionary(fc.constantFrom('accept', 'accept-encoding', 'content-type', 'x-forwarded-for', 'x-api-key', 'authorization', 'content-encoding', 'transfer-encoding', 'expect'), fc.oneof(fc.constantFrom('gzip', 'br', '*/*', 'chunked', '100-continue', 'application/json', `Bearer ${ADMIN_TOKEN}`, '1.2.3.4, 5.6.7.8'), fc.string({ maxLength: 20 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''))), { maxKeys: 3 }),
      body: fc.option(hostileValue.map((v) => JSON.stringify(v) ?? ''), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ method, route, fill, headers, body }) => {
        const url = route.replace(/:(\w+)/g, () => enc(fill));
        const payload = method === 'GET' || method === 'HEAD' ? undefined : body;
        await send({ method, url: `${url}?api-key=${ta.key}`, headers: headers as Record<string, string>, payload });
      }),
      { numRuns: RUNS.raw, seed: SEED + 3 },
    );
    await assertAlive();
    expect(found(before)).toEqual([]);
  });
});

describe('fuzz: regressions (counterexamples this suite found, minimal)', () => {
  const rpc = (payload: string) => ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, headers: { 'content-type': 'application/json' }, payload });
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('JSON-RPC: an id that is not a string, number or null is an invalid request answered with id null (a 10,000-level id was a 500)', async () => {
    for (const id of ['{}', '[1]', 'true', deep(10_000)]) {
      const r = await rpc(`{"jsonrpc":"2.0","id":${id},"method":"getIndexerSlot"}`);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
    }
    const batch = await rpc(`[{"jsonrpc":"2.0","id":${deep(10_000)},"method":"getIndexerSlot"},{"jsonrpc":"2.0","id":7,"method":"nope"}]`);
    expect(batch.statusCode).toBe(200);
    expect(batch.json()).toEqual([
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 7 },
    ]);
    // an error raised before dispatch (unauthorized) does not echo such an id either
    const unauth = await ta.app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json' }, payload: `{"jsonrpc":"2.0","id":${deep(10_000)},"method":"getIndexerSlot"}` });
    expect(unauth.statusCode).toBe(401);
    expect(unauth.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32401 }, id: null });
  });

  it('POST /v0/transactions: a deeply nested entry is a 400 naming its type (was a 500: its details serialised the value)', async () => {
    const r = await ta.app.inject({ method: 'POST', url: `/v0/transactions?api-key=${ta.key}`, headers: { 'content-type': 'application/json' }, payload: `{"transactions":[${deep(10_000)}]}` });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ error: 'Invalid transaction signature', code: 400, details: 'an array at transactions[0] is not a base58 transaction signature' });
  });

  it('Sender /fast: a nested encoding or id is a 400 in the Sender format (both were 500s)', async () => {
    const fast = (payload: string) => ta.app.inject({ method: 'POST', url: '/fast', headers: { 'content-type': 'application/json' }, payload });
    const enc = await fast(`{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["AQ==",{"encoding":${deep(10_000)}}]}`);
    expect(enc.statusCode).toBe(400);
    expect(enc.json()).toEqual({ jsonrpc: '2.0', error: { code: -32602, message: 'Invalid request: unsupported encoding of type array: use base64 or base58' }, id: 1 });
    const id = await fast(`{"jsonrpc":"2.0","id":${deep(10_000)},"method":"sendTransaction","params":["AQ=="]}`);
    expect(id.statusCode).toBe(400);
    expect(id.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
  });

  it('admin API: a key id with a NUL byte is a 404 like any unknown id (was a 500: the database refuses NUL in text)', async () => {
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    for (const [method, url, payload] of [
      ['GET', '/admin/api/keys/%00/usage', undefined],
      ['POST', '/admin/api/keys/a%00b/revoke', undefined],
      ['POST', '/admin/api/keys/%00/rotate', undefined],
      ['PATCH', '/admin/api/keys/%00', { plan: 'free' }],
      ['GET', '/admin/api/webhooks?keyId=%00', undefined],
    ] as const) {
      const r = await ta.app.inject({ method, url, headers: auth, payload });
      expect(r.statusCode, url).toBe(404);
      expect(r.json(), url).toMatchObject({ error: 'API key not found', code: 404 });
    }
  });

  it('a URL that is not valid percent-encoding, or an over-long path parameter, answers 400 in the REST format (was Fastify\'s own body)', async () => {
    for (const url of ['/v0/webhooks/%zz', '/v1/wallet/%E0%A4%A/balances', `/v0/webhooks/${'a'.repeat(101)}`, '/%ED%A0%80']) {
      const r = await ta.app.inject({ url: `${url}?api-key=${ta.key}` });
      expect(r.statusCode, url).toBe(400);
      expect(restErrorProblem(400, r.json()), url).toBeNull();
    }
  });
});

describe('fuzz: fixed hostile cases', () => {
  const bodyRoutes = () => routes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
  const fill = (u: string) => u.replace(/:webhookID/g, webhookId).replace(/:id/g, victimKeyId).replace(/:(\w+)/g, 'EU57rQxcmFhJ24ApVdUy3y4MxFXcTUN3uiVeWvGgtWXu');
  const headersFor = (u: string): Record<string, string> => ({ 'content-type': 'application/json', ...(u.startsWith('/admin/') ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { 'x-api-key': ta.key }) });

  it('deep nesting (10,000 and 100,000 levels) on every body route and in JSON-RPC params', async () => {
    const before = violations.length;
    for (const depth of [10_000, 100_000]) {
      const arr = '['.repeat(depth) + ']'.repeat(depth);
      const obj = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      for (const r of bodyRoutes()) {
        const url = fill(r.url);
        for (const payload of [arr, obj, `{"transactions":${arr},"mintAccounts":${arr},"webhookURL":${obj},"accountAddresses":${arr},"name":${obj},"fromSlot":${arr}}`])
          await send({ method: r.method, url, headers: headersFor(url), payload });
      }
      // the Sender's limit is 64 KiB: nesting that fits, in every field it reads
      const small = '['.repeat(15_000) + ']'.repeat(15_000);
      for (const payload of [`{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["AQ==",{"encoding":${small}}]}`, `{"jsonrpc":"2.0","id":${small},"method":"sendTransaction","params":${small}}`, `{"jsonrpc":"2.0","id":1,"method":${small}}`, `{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":[${small}]}`])
        await send({ method: 'POST', url: '/fast', headers: { 'content-type': 'application/json' }, payload });
      for (const m of rpcMethods) {
        await send({ method: 'POST', url: `/?api-key=${ta.key}`, headers: { 'content-type': 'application/json' }, payload: `{"jsonrpc":"2.0","id":1,"method":"${m.name}","params":${obj}}` });
        await send({ method: 'POST', url: `/?api-key=${ta.key}`, headers: { 'content-type': 'application/json' }, payload: `{"jsonrpc":"2.0","id":${arr},"method":"${m.name}","params":{"id":${arr}}}` });
      }
      await assertAlive();
    }
    expect(found(before)).toEqual([]);
  });

  it('a NUL byte (which the database refuses in text) in every path, query and body parameter of every route and method', async () => {
    const before = violations.length;
    const nulIn = (v: unknown): unknown => (typeof v === 'string' ? `a\u0000${v}` : Array.isArray(v) ? v.map(nulIn) : isObj(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, nulIn(x)])) : v);
    const sample = (sch: Schema | null) => (sch ? fc.sample(shapedBy(sch, 0), { numRuns: 3, seed: SEED }) : [undefined]);
    for (const r of routes) {
      if (r.method === 'HEAD') continue;
      const query = r.params.filter((p) => p.in === 'query').map((p) => `${enc(p.name)}=%00`).join('&');
      for (const body of sample(r.body)) {
        const path = r.url.replace(/:webhookID/g, webhookId).replace(/:id/g, victimKeyId);
        for (const url of [r.url.replace(/:\w+/g, 'a%00b'), `${path}?${query}`]) {
          const u = url.startsWith('/admin/') ? url : `${url}${url.includes('?') ? '&' : '?'}api-key=${ta.key}`;
          await send({ method: r.method, url: u, headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` }, payload: body === undefined ? undefined : JSON.stringify(nulIn(body)) });
        }
      }
    }
    for (const m of rpcMethods)
      for (const params of sample(m.params ? { type: 'object', properties: Object.fromEntries(m.params.map((p) => [p.name, p.schema])) } : { type: 'object', properties: { id: { type: 'string' }, hash: { type: 'string' }, owner: { type: 'string' } } }))
        await send({ method: 'POST', url: `/?api-key=${ta.key}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: m.name, params: nulIn(params) }) });
    await assertAlive();
    expect(found(before)).toEqual([]);
  });

  it('an oversized body answers 413 in the interface format on every body route', async () => {
    const before = violations.length;
    // Above every route's limit (the webhook routes take the largest): the app-wide limit + 1 byte where that is the
    // route's limit, and 8 MiB everywhere.
    const big = Buffer.alloc(8 * 1024 * 1024, 0x20);
    big.write('{"a":"', 0);
    const justOver = Buffer.alloc(BODY_LIMIT + 1, 0x20);
    for (const r of bodyRoutes()) {
      const url = fill(r.url);
      await send({ method: r.method, url, headers: headersFor(url), payload: big }, 413);
      if (url === '/admin/api/identities') await send({ method: r.method, url, headers: headersFor(url), payload: Buffer.alloc(IDENTITIES_BODY_LIMIT + 1, 0x20) }, 413);
      else if (!url.startsWith('/v0/webhooks') || url.includes('replay') || r.method === 'PATCH') await send({ method: r.method, url, headers: headersFor(url), payload: justOver }, 413);
    }
    await send({ method: 'POST', url: '/fast', headers: { 'content-type': 'application/json' }, payload: Buffer.alloc(64 * 1024 + 1, 0x20) }, 413);
    await assertAlive();
    expect(found(before)).toEqual([]);
  });

  it('huge arrays and numbers in every JSON-RPC method', async () => {
    const before = violations.length;
    const ids = Array.from({ length: 50_000 }, () => goodStrings[0]);
    for (const m of rpcMethods) {
      const params = Object.fromEntries((m.params ?? [{ name: 'id' }, { name: 'ids' }, { name: 'hashes' }, { name: 'limit' }]).map((p) => [p.name, ids]));
      await send({ method: 'POST', url: `/?api-key=${ta.key}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: m.name, params }) });
      const nums = Object.fromEntries((m.params ?? [{ name: 'limit' }, { name: 'page' }, { name: 'slot' }]).map((p) => [p.name, 1e308]));
      await send({ method: 'POST', url: `/?api-key=${ta.key}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: m.name, params: nums }).replace(/1e\+308/g, '1e999') });
    }
    await assertAlive();
    expect(found(before)).toEqual([]);
  });

  describe('over a real socket', () => {
    let port = 0;
    beforeAll(async () => {
      await ta.app.listen({ port: 0, host: '127.0.0.1' });
      port = (ta.app.server.address() as AddressInfo).port;
    });

    /** Writes raw bytes; resolves with what came back before the server closed or `ms` passed. */
    function raw(bytes: Buffer | string, ms = 1500, halfClose = false): Promise<string> {
      return new Promise((resolve) => {
        const s = connect(port, '127.0.0.1');
        const chunks: Buffer[] = [];
        const done = () => {
          clearTimeout(t);
          s.destroy();
          resolve(Buffer.concat(chunks).toString('latin1'));
        };
        const t = setTimeout(done, ms);
        s.on('data', (c) => {
          chunks.push(c);
          // one full answer is enough
          const text = Buffer.concat(chunks).toString('latin1');
          const m = /content-length: (\d+)/i.exec(text);
          const head = text.indexOf('\r\n\r\n');
          if (m && head >= 0 && Buffer.byteLength(text.slice(head + 4), 'latin1') >= Number(m[1])) done();
        });
        s.on('error', done);
        s.on('close', done);
        s.write(bytes, () => {
          if (halfClose) s.end();
        });
      });
    }

    /**
     * `parser`: a request the HTTP parser refuses (framing, truncation, malformed lines): answered before any route is
     * known, so in the REST format whatever the path (src/api/app.ts clientErrorHandler), or just closed.
     */
    function checkRaw(text: string, target: string, desc: string, opts: { answer?: boolean; expectStatus?: number; parser?: boolean } = {}): void {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!m) {
        stats.requests.socket++;
        if (opts.answer) violations.push({ kind: `no HTTP answer (${target})`, req: desc, status: 0, body: text.slice(0, 200) });
        return;
      }
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      const ct = /content-type: ([^\r\n]+)/i.exec(head)?.[1];
      const method = target.split(' ')[0];
      const path = target.split(' ')[1] ?? '/';
      const status = Number(m[1]);
      let restShaped = false;
      try {
        restShaped = restErrorProblem(status, JSON.parse(body)) === null;
      } catch {
        /* not JSON */
      }
      const iface = opts.parser && restShaped ? 'ops' : ifaceOf(method, path);
      check(iface, method, path, status, Buffer.from(body, 'latin1').toString('utf8'), ct, `socket: ${desc}`, opts.expectStatus, 'socket');
    }

    const req = (method: string, path: string, headers: Record<string, string | number>, body: Buffer | string = '') => {
      const h = Object.entries({ host: `127.0.0.1`, connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`).join('\r\n');
      return Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\n${h}\r\n\r\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1')]);
    };

    it('invalid UTF-8, truncated bodies, wrong Content-Length, malformed requests: answered in format or closed, server alive', async () => {
      const before = violations.length;
      const targets = [
        ['POST', `/?api-key=${ta.key}`],
        ['POST', '/fast'],
        ['POST', `/v0/token-metadata?api-key=${ta.key}`],
        ['POST', `/v0/webhooks?api-key=${ta.key}`],
        ['PUT', `/v0/webhooks/${webhookId}?api-key=${ta.key}`],
        ['POST', `/v0/transactions?api-key=${ta.key}`],
        ['POST', '/admin/api/keys'],
        ['GET', `/v1/wallet/EU57rQxcmFhJ24ApVdUy3y4MxFXcTUN3uiVeWvGgtWXu/balances?api-key=${ta.key}`],
      ] as const;
      const invalidUtf8 = [
        Buffer.from([0x7b, 0x22, 0x6a, 0x73, 0x6f, 0x6e, 0x72, 0x70, 0x63, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"jsonrpc":"\xff\xfe"}
        Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"getAsset","params":{"id":"'), Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf8, 0x88, 0x80, 0x80, 0x80]), Buffer.from('"}}')]),
        Buffer.concat([Buffer.from('{"mintAccounts":["'), Buffer.from([0xc0, 0xaf, 0xe0, 0x80, 0xaf]), Buffer.from('"],"name":"\xfe","webhookURL":"http://127.0.0.1:9/\xff","accountAddresses":["\x80"]}', 'latin1')]),
        Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // BOM + {}
        Buffer.from([0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d]), // UTF-16 BE
      ];
      for (const [method, path] of targets) {
        const auth: Record<string, string> = path.startsWith('/admin') ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {};
        const target = `${method} ${path.split('?')[0]}`;
        for (const b of invalidUtf8) {
          const text = await raw(req(method, path, { 'content-type': 'application/json', 'content-length': b.length, ...auth }, b));
          checkRaw(text, target, `invalid UTF-8 ${b.toString('hex')}`, { answer: true });
        }
        // truncated body: Content-Length promises more than arrives, then the client half-closes / goes away
        checkRaw(await raw(req(method, path, { 'content-type': 'application/json', 'content-length': 100, ...auth }, '{"jsonrpc":"2.0","id'), 800, true), target, 'truncated body (half-close)', { parser: true });
        checkRaw(await raw(req(method, path, { 'content-type': 'application/json', 'content-length': 100, ...auth }, '{"a":'), 300), target, 'truncated body (reset)', { parser: true });
        // Content-Length smaller than the body: the rest is read as the next request
        checkRaw(await raw(req(method, path, { 'content-type': 'application/json', 'content-length': 5, ...auth }, '{"a":1}garbage GARBAGE\r\n\r\n')), target, 'short content-length', { parser: true });
        // announced body above the limit (refused before it is read)
        checkRaw(await raw(req(method, path, { 'content-type': 'application/json', 'content-length': 50 * 1024 * 1024, ...auth }, '{')), target, 'huge content-length', { answer: true, expectStatus: method === 'GET' ? undefined : 413 });
        // chunked body above the limit
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        const chunked = Buffer.concat([...Array.from({ length: 9 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])), Buffer.from('0\r\n\r\n')]);
        checkRaw(await raw(req(method, path, { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...auth }, chunked), 5000), target, 'chunked 9 MiB', { answer: true, expectStatus: method === 'GET' ? undefined : 413 });
        // invalid / conflicting Content-Length, bad chunk framing
        for (const [h, b] of [
          [{ 'content-length': 'abc' }, '{}'],
          [{ 'content-length': '-1' }, '{}'],
          [{ 'content-length': '2, 3' }, '{}'],
          [{ 'content-length': 2, 'transfer-encoding': 'chunked' }, '2\r\n{}\r\n0\r\n\r\n'],
          [{ 'transfer-encoding': 'chunked' }, 'zz\r\n{}\r\n0\r\n\r\n'],
        ] as const) {
          checkRaw(await raw(req(method, path, { 'content-type': 'application/json', ...h, ...auth }, b)), target, `framing ${JSON.stringify(h)}`, { parser: true });
        }
      }
      // malformed request lines, URLs and headers
      const weird = [
        'GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-bad header: 1\r\n\r\n',
        'GET /health\r\n\r\n',
        'BREW /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
        `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
        `GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-big: ${'a'.repeat(100_000)}\r\n\r\n`,
        'GET /v1/wallet/%E0%A4%A/balances HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
        'GET /v0/webhooks/%zz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
        'GET /v1/wallet/\xff\xfe/balances HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
        'GET /health?%zz=%E0%A4%A HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
        'POST /?api-key=%E0%A4%A HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
        'GET /health HTTP/9.9\r\nhost: x\r\nconnection: close\r\n\r\n',
        '\r\n\r\n\r\n',
        '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03', // a TLS ClientHello on the plain port
      ];
      for (const w of weird) {
        const text = await raw(Buffer.from(w, 'latin1'));
        const target = /^(\S+) (\S+)/.exec(w);
        checkRaw(text, target ? `${target[1]} ${target[2].split('?')[0]}` : 'GET /', `weird ${JSON.stringify(w.slice(0, 120))}`, { parser: true });
      }
      // regression: requests the HTTP parser refuses are answered in the REST format (was Fastify's {error, message, statusCode})
      const bad = await raw('GET /health HTTP/1.1\r\nhost: x\r\nx-bad header: 1\r\n\r\n');
      expect(bad).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(bad.slice(bad.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'Malformed HTTP request', code: 400, details: 'the request could not be parsed as HTTP/1.1' });
      const big = await raw(`GET /health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(100_000)}\r\n\r\n`);
      expect(big).toMatch(/^HTTP\/1\.1 431 /);
      expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 431 });
      await assertAlive();
      // the listening server answers too
      expect(await raw(req('GET', '/health', {}))).toMatch(/^HTTP\/1\.1 200/);
      expect(found(before)).toEqual([]);
    }, 120_000);
  });
});

describe('fuzz: volume', () => {
  it('sent at least 10,000 requests (short variant; ten times as many generated in the long one)', () => {
    const total = Object.values(stats.requests).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(LONG ? 100_000 : 10_000);
    expect(stats.fiveXX).toBe(0);
  });
});
