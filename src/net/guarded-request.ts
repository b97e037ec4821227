/**
 * One HTTP exchange under the SSRF policy (`guardedRequest`): URL checked, connection through the guarded agent,
 * redirects followed by hand with every hop checked, one deadline for the whole exchange, and the body capped while
 * it streams (after decompression). Errors come out as `SsrfError` or `GuardedFetchError` only.
 */
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { request, type Dispatcher } from 'undici';
import type { GuardedAgent, GuardedConnection } from './guarded-agent.js';
import { GuardedFetchError, SsrfError } from './ssrf-errors.js';
import { checkRedirect, checkUrl } from './url-checks.js';

export interface GuardedRequestOptions {
  /** The agent to connect through (its policy is the one applied to every hop). */
  agent: GuardedAgent;
  method?: 'GET' | 'POST' | 'PUT' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Redirects followed at most (default 5); each hop is checked. */
  maxRedirects?: number;
  /** Deadline of the whole exchange, redirects and body included (default 10 s). */
  timeoutMs?: number;
  /** Largest body accepted, after decompression (default 1 MiB); larger bodies abort the transfer. */
  maxBytes?: number;
  signal?: AbortSignal;
  /**
   * The request may be sent again if its connection fails before the answer, and so may share a pipelined
   * connection (`GuardedAgent.connection`) with other requests in flight (undici sends a request not marked
   * idempotent only on an otherwise idle connection). Default: GET/HEAD only.
   */
  idempotent?: boolean;
}

export interface GuardedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
  /** Every URL redirected to, in order. */
  redirects: string[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function headerMap(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Drops a response body without reading it (destroying emits an abort error nobody else listens to). */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

function isSsrf(e: unknown): SsrfError | null {
  for (let x = e, i = 0; x && i < 5; x = (x as { cause?: unknown }).cause, i++) if (x instanceof SsrfError) return x;
  return null;
}

/** Any error of an exchange as `SsrfError` (a refused target anywhere in its causes) or `GuardedFetchError`. */
function fetchError(e: unknown, timeoutMs: number, timedOut: boolean, aborted: boolean): Error {
  const s = isSsrf(e);
  if (s) return s;
  if (e instanceof GuardedFetchError) return e;
  if (timedOut) return new GuardedFetchError('timeout', `timed out after ${timeoutMs} ms`, { cause: e });
  if (aborted) return new GuardedFetchError('aborted', 'aborted', { cause: e });
  const err = e as { code?: string; message?: string };
  if (err?.code === 'UND_ERR_HEADERS_TIMEOUT' || err?.code === 'UND_ERR_BODY_TIMEOUT' || err?.code === 'UND_ERR_CONNECT_TIMEOUT')
    return new GuardedFetchError('timeout', `timed out (${err.code})`, { cause: e });
  return new GuardedFetchError('network', `${err?.code ? `${err.code}: ` : ''}${err?.message ?? String(e)}`, { cause: e });
}

/** Reads a body stream up to `maxBytes` (after decompressing `encoding`), else throws `too_large`. */
async function readCapped(body: Readable, encoding: string | undefined, maxBytes: number): Promise<Buffer> {
  let stream: Readable = body;
  const enc = (encoding ?? '').trim().toLowerCase();
  if (enc === 'gzip' || enc === 'x-gzip' || enc === 'deflate' || enc === 'br') {
    const z = enc === 'br' ? zlib.createBrotliDecompress() : enc === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
    pipeline(body, z, () => {});
    stream = z;
  } else if (enc && enc !== 'identity') {
    discard(body);
    throw new GuardedFetchError('network', `unsupported content-encoding ${enc}`);
  }
  const chunks: Buffer[] = [];
  let n = 0;
  try {
    for await (const c of stream) {
      const b = c as Buffer;
      n += b.length;
      if (n > maxBytes) throw new GuardedFetchError('too_large', `response body exceeds ${maxBytes} bytes`);
      chunks.push(b);
    }
  } finally {
    if (n > maxBytes || !stream.readableEnded) {
      discard(stream);
      if (stream !== body) discard(body);
    }
  }
  return Buffer.concat(chunks);
}

/**
 * One HTTP exchange under the SSRF policy: checks the URL, connects through the guarded agent, follows redirects
 * manually (each hop checked; 303 — and 301/302 of a non-GET — continue as GET without body), enforces the
 * deadline and the body cap while streaming. Returns any final status (callers decide what a 404 means).
 * Throws SsrfError (refused target) or GuardedFetchError.
 */
export async function guardedRequest(url: string | URL, o: GuardedRequestOptions): Promise<GuardedResponse> {
  const policy = o.agent.policy;
  const maxRedirects = o.maxRedirects ?? 5;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const maxBytes = o.maxBytes ?? 1024 * 1024;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = o.signal ? AbortSignal.any([deadline, o.signal]) : deadline;
  let current = checkUrl(url, policy);
  let method: string = o.method ?? 'GET';
  let body = o.body;
  const redirects: string[] = [];
  const fail = (e: unknown): never => {
    throw fetchError(e, timeoutMs, deadline.aborted, o.signal?.aborted ?? false);
  };
  for (;;) {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(current, {
        dispatcher: o.agent.dispatcher,
        method: method as Dispatcher.HttpMethod,
        headers: { 'accept-encoding': 'gzip, deflate, br', ...o.headers },
        body,
        signal,
        ...(o.idempotent !== undefined ? { idempotent: o.idempotent } : {}),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (e) {
      return fail(e);
    }
    const headers = headerMap(res.headers);
    if (REDIRECTS.has(res.statusCode) && headers.location !== undefined) {
      discard(res.body as unknown as Readable);
      if (redirects.length >= maxRedirects) throw new GuardedFetchError('too_many_redirects', `more than ${maxRedirects} redirects`);
      current = checkRedirect(current, headers.location, policy);
      redirects.push(current.href);
      if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method !== 'GET' && method !== 'HEAD')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    const len = Number(headers['content-length']);
    if (!headers['content-encoding'] && Number.isFinite(len) && len > maxBytes) {
      discard(res.body as unknown as Readable);
      throw new GuardedFetchError('too_large', `response body of ${len} bytes exceeds ${maxBytes} bytes`);
    }
    let buf: Buffer;
    try {
      buf = method === 'HEAD' ? Buffer.alloc(0) : await readCapped(res.body as unknown as Readable, headers['content-encoding'], maxBytes);
    } catch (e) {
      return fail(e);
    }
    return { status: res.statusCode, headers, body: buf, url: current.href, redirects };
  }
}

/** A URL checked once (`checkUrl`) for many requests to it on one connection. */
export interface CheckedTarget {
  /** The connection's origin (`GuardedAgent.connection`). */
  origin: string;
  /** Path and query, as sent in the request line. */
  path: string;
}

/** Checks `url` like `guardedRequest` does before its first request (scheme, credentials, literal address). */
export function checkTarget(url: string | URL, policy?: GuardedAgent['policy']): CheckedTarget {
  const u = checkUrl(url, policy);
  return { origin: u.origin, path: `${u.pathname}${u.search}` };
}

/** Connections `postOnConnection` destroyed because a request on them timed out (the rest of their requests failed with it). */
const timedOutOn = new WeakSet<GuardedConnection>();

/**
 * One POST whose answer is judged by its status alone (webhook deliveries), on a guarded connection to the target's
 * origin, possibly pipelined behind earlier requests. The same guard as `guardedRequest` (the target checked once
 * with `checkTarget`, the connection's lookup at connect) with less work per request, since a delivery worker sends
 * thousands per second:
 * - No redirects: a 3xx with a Location throws `too_many_redirects` (the caller's URL must answer directly).
 * - The answer's body is read and dropped, at most `maxBytes` of it; a longer body closes the connection.
 * - One deadline from the call to the end of the answer: when it passes, the connection is destroyed (on a pipelined
 *   connection every later answer waits behind this one), so this request and those behind it fail with a `timeout`;
 *   the caller then opens a new connection (`GuardedConnection.destroyed`).
 * Returns the status; throws `SsrfError` or `GuardedFetchError` as `guardedRequest` does.
 */
export async function postOnConnection(
  conn: GuardedConnection,
  target: CheckedTarget,
  o: { headers: Record<string, string>; body: string; timeoutMs: number; maxBytes: number; idempotent?: boolean },
): Promise<number> {
  let timedOut = false;
  // A timer, not an AbortSignal: a signal per request and its listeners cost ≈ 12 µs of CPU each (a worker's profile).
  const timer = setTimeout(() => {
    timedOut = true;
    timedOutOn.add(conn);
    void conn.destroy().catch(() => {});
  }, o.timeoutMs);
  try {
    const res = await conn.dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: 'POST',
      headers: o.headers,
      body: o.body,
      idempotent: o.idempotent ?? false,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
    if (REDIRECTS.has(res.statusCode) && res.headers.location !== undefined) {
      discard(res.body as unknown as Readable);
      throw new GuardedFetchError('too_many_redirects', 'redirects are not followed');
    }
    await res.body.dump({ limit: o.maxBytes });
    return res.statusCode;
  } catch (e) {
    if (!timedOut && timedOutOn.has(conn) && !isSsrf(e))
      throw new GuardedFetchError('timeout', `timed out behind a request on the same connection that got no answer within ${o.timeoutMs} ms`, { cause: e });
    throw fetchError(e, o.timeoutMs, timedOut, false);
  } finally {
    clearTimeout(timer);
  }
}
