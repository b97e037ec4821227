/**
 * SSRF guard for outbound HTTP to URLs that come from outside (on-chain metadata URIs, webhook targets).
 *
 * Policy: only `http:`/`https:` URLs; the target host's addresses must all be public unicast. Refused: private
 * (10/8, 172.16/12, 192.168/16), loopback (127/8, ::1), link-local (169.254/16 — cloud metadata endpoints —,
 * fe80::/10), unique-local (fc00::/7), unspecified (0.0.0.0/8, ::), carrier-grade NAT (100.64/10), multicast,
 * broadcast, reserved/documentation/benchmarking ranges, deprecated site-local, and every IPv6 form that is
 * not global unicast (2000::/3). IPv6 forms that embed an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, IPv4-
 * translated, NAT64 64:ff9b::/96) are judged by the embedded IPv4 address. `allowPrivate` lifts the address
 * policy entirely (trusted networks, tests); `allowCidrs` lifts it for the listed ranges only.
 *
 * Enforcement happens where the connection is made, so a DNS answer cannot change between the check and the
 * connect (DNS rebinding): `createGuardedAgent` gives undici a `connect.lookup` that resolves every address of
 * the host and fails the connection when any is refused. Literal-IP hosts never reach `lookup` (Node skips DNS
 * for them), so `checkUrl` refuses those before any request. Redirects are followed manually, hop by hop, and
 * each hop goes through the same two checks.
 */
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { Agent, request, type Dispatcher } from 'undici';
import { parseAllowEntry, type IpRange } from '../api/plugins/ip-allow.js';

export interface SsrfPolicy {
  /** Allow any address (private, loopback, ...). Default false. Schemes are still restricted to http(s). */
  allowPrivate?: boolean;
  /** Addresses or CIDR ranges allowed even though the policy would refuse them (e.g. `10.1.2.0/24`). */
  allowCidrs?: readonly string[];
}

/** A target refused by the policy (never retryable). */
export class SsrfError extends Error {
  readonly code = 'SSRF_REFUSED';
  constructor(
    message: string,
    readonly target: string,
    /** The refused address and why (ipaddr.js range name or `scheme`). */
    readonly address?: string,
    readonly range?: string,
  ) {
    super(message);
    this.name = 'SsrfError';
  }
}

export type GuardedFetchErrorKind = 'bad_url' | 'timeout' | 'too_large' | 'too_many_redirects' | 'network' | 'aborted';

/** A failed exchange that is not an SSRF refusal. */
export class GuardedFetchError extends Error {
  constructor(
    readonly kind: GuardedFetchErrorKind,
    message: string,
    opts?: { cause?: unknown },
  ) {
    super(message, opts);
    this.name = 'GuardedFetchError';
  }
}

const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

interface CompiledPolicy {
  allowPrivate: boolean;
  allow: IpRange[];
}

function compile(p: SsrfPolicy | undefined): CompiledPolicy {
  return { allowPrivate: p?.allowPrivate ?? false, allow: (p?.allowCidrs ?? []).map(parseAllowEntry) };
}

/** The IPv4 address embedded in an IPv4-mapped, IPv4-translated or NAT64 IPv6 address, else null. */
function embeddedIPv4(a: ipaddr.IPv6): ipaddr.IPv4 | null {
  const r = a.range();
  if (r !== 'ipv4Mapped' && r !== 'rfc6145' && r !== 'rfc6052') return null;
  const b = a.toByteArray();
  return new ipaddr.IPv4(b.slice(12, 16));
}

function inAllowList(a: ipaddr.IPv4 | ipaddr.IPv6, allow: IpRange[]): boolean {
  return allow.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));
}

/**
 * The address as the connection would use it: IPv6 in WHATWG canonical form, so that spellings ipaddr.js reads
 * differently from Node (`::1.2.3.4` is IPv4-compatible `::102:304` to Node, IPv4-mapped to ipaddr.js) are judged
 * by what is actually dialled.
 */
function canonical(address: string): string {
  if (isIP(address) !== 6) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return address;
  }
}

/**
 * Why `address` (a literal IPv4/IPv6 address) is refused under `policy`: the range name, or null when it is
 * allowed. Unparseable input is refused ('invalid').
 */
export function refusedRange(address: string, policy?: SsrfPolicy): string | null {
  return refusedRangeCompiled(address, compile(policy));
}

function refusedRangeCompiled(address: string, p: CompiledPolicy): string | null {
  if (p.allowPrivate) return null;
  let a: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    a = ipaddr.parse(canonical(address.replace(/^\[|\]$/g, '')));
  } catch {
    return 'invalid';
  }
  if (inAllowList(a, p.allow)) return null;
  if (a.kind() === 'ipv6') {
    const v6 = a as ipaddr.IPv6;
    const v4 = embeddedIPv4(v6);
    if (v4) {
      if (inAllowList(v4, p.allow)) return null;
      const r4 = v4.range();
      return r4 === 'unicast' ? null : `${v6.range()}:${r4}`;
    }
    const r = v6.range();
    if (r !== 'unicast') return r;
    return v6.match(IPV6_GLOBAL_UNICAST) ? null : 'notGlobalUnicast';
  }
  const r = (a as ipaddr.IPv4).range();
  return r === 'unicast' ? null : r;
}

/** Throws SsrfError when `address` is refused. */
export function assertAddressAllowed(address: string, target: string, policy?: SsrfPolicy): void {
  const r = refusedRange(address, policy);
  if (r) throw new SsrfError(`refused to connect to ${target}: address ${address} is ${describeRange(r)}`, target, address, r);
}

function describeRange(r: string): string {
  const names: Record<string, string> = {
    private: 'private',
    loopback: 'loopback',
    linkLocal: 'link-local',
    uniqueLocal: 'unique-local',
    unspecified: 'unspecified',
    carrierGradeNat: 'carrier-grade NAT',
    multicast: 'multicast',
    broadcast: 'broadcast',
    reserved: 'reserved',
    invalid: 'not a valid IP address',
    notGlobalUnicast: 'not global unicast',
  };
  if (r.includes(':')) {
    const [v6, v4] = r.split(':');
    return `${names[v6] ?? v6} IPv6 of a ${names[v4] ?? v4} IPv4 address`;
  }
  return `${names[r] ?? r} (refused range)`;
}

/**
 * Parses and checks a URL before any connection: http/https only, no credentials, and a literal-IP host must be
 * allowed (names are checked at connect time by the guarded agent). Returns the parsed URL.
 */
export function checkUrl(raw: string | URL, policy?: SsrfPolicy): URL {
  let u: URL;
  try {
    u = typeof raw === 'string' ? new URL(raw) : new URL(raw.href);
  } catch {
    throw new GuardedFetchError('bad_url', `invalid URL: ${String(raw).slice(0, 200)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new SsrfError(`refused URL scheme ${u.protocol} (only http and https are fetched)`, u.href, undefined, 'scheme');
  if (u.username || u.password) throw new SsrfError('refused URL with embedded credentials', u.href, undefined, 'credentials');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw new GuardedFetchError('bad_url', `URL without a host: ${u.href}`);
  if (isIP(host)) assertAddressAllowed(host, u.host, policy);
  return u;
}

type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookupAll: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * Resolves `hostname` (every address) and throws SsrfError when any is refused. For validating a URL up front
 * (e.g. when a webhook is registered); fetching needs no separate call since the guarded agent checks at connect.
 */
export async function resolveAndCheck(hostname: string, policy?: SsrfPolicy, lookupAll: LookupAll = systemLookupAll): Promise<{ address: string; family: number }[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    assertAddressAllowed(host, hostname, policy);
    return [{ address: host, family: isIP(host) }];
  }
  const p = compile(policy);
  const addrs = await lookupAll(host);
  if (!addrs.length) throw new GuardedFetchError('network', `${hostname} did not resolve`);
  for (const a of addrs) {
    const r = refusedRangeCompiled(a.address, p);
    if (r) throw new SsrfError(`refused to connect to ${hostname}: it resolves to ${a.address}, which is ${describeRange(r)}`, hostname, a.address, r);
  }
  return addrs;
}

/** `checkUrl` plus DNS resolution of a named host: the full up-front check of a URL. */
export async function assertUrlAllowed(raw: string | URL, policy?: SsrfPolicy, lookupAll?: LookupAll): Promise<URL> {
  const u = checkUrl(raw, policy);
  await resolveAndCheck(u.hostname, policy, lookupAll);
  return u;
}

/** A `net.connect` lookup that resolves every address and fails when any is refused (used by the agent). */
export function guardedLookup(policy?: SsrfPolicy, lookupAll: LookupAll = systemLookupAll): LookupFunction {
  const p = compile(policy);
  return ((hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    lookupAll(hostname).then(
      (addrs) => {
        const wanted = options.family === 4 || options.family === 6 ? addrs.filter((a) => a.family === options.family) : addrs;
        if (!wanted.length) {
          const e: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          e.code = 'ENOTFOUND';
          return callback(e, '');
        }
        // Any refused address refuses the host, even if another one is public: the resolver may hand out either.
        for (const a of addrs) {
          const r = refusedRangeCompiled(a.address, p);
          if (r) return callback(new SsrfError(`refused to connect to ${hostname}: it resolves to ${a.address}, which is ${describeRange(r)}`, hostname, a.address, r), '');
        }
        if (options.all) callback(null, wanted.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, wanted[0].address, wanted[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  }) as LookupFunction;
}

/** An undici agent whose connections only reach addresses the policy allows. */
export interface GuardedAgent {
  readonly dispatcher: Dispatcher;
  readonly policy: SsrfPolicy;
  close(): Promise<void>;
}

export interface GuardedAgentOptions {
  /** Connections per origin (default 4). */
  connections?: number;
  /** TCP/TLS connect timeout (default 10 s). */
  connectTimeoutMs?: number;
  /** Resolver returning every address of a name (tests); default the system resolver (`dns.lookup`). */
  lookupAll?: LookupAll;
}

export function createGuardedAgent(policy: SsrfPolicy = {}, o: GuardedAgentOptions = {}): GuardedAgent {
  const agent = new Agent({
    connections: o.connections ?? 4,
    keepAliveTimeout: 10_000,
    connect: { lookup: guardedLookup(policy, o.lookupAll), timeout: o.connectTimeoutMs ?? 10_000 },
  });
  return { dispatcher: agent, policy, close: () => agent.close() };
}

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

/**
 * The next URL of a redirect, checked like the first one (scheme, credentials, literal address). Relative
 * `Location`s resolve against the current URL.
 */
export function checkRedirect(current: string | URL, location: string, policy?: SsrfPolicy): URL {
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw new GuardedFetchError('bad_url', `invalid redirect Location: ${location.slice(0, 200)}`);
  }
  return checkUrl(next, policy);
}

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
    const s = isSsrf(e);
    if (s) throw s;
    if (e instanceof GuardedFetchError) throw e;
    if (deadline.aborted) throw new GuardedFetchError('timeout', `timed out after ${timeoutMs} ms`, { cause: e });
    if (o.signal?.aborted) throw new GuardedFetchError('aborted', 'aborted', { cause: e });
    const err = e as { code?: string; message?: string };
    if (err?.code === 'UND_ERR_HEADERS_TIMEOUT' || err?.code === 'UND_ERR_BODY_TIMEOUT' || err?.code === 'UND_ERR_CONNECT_TIMEOUT')
      throw new GuardedFetchError('timeout', `timed out (${err.code})`, { cause: e });
    throw new GuardedFetchError('network', `${err?.code ? `${err.code}: ` : ''}${err?.message ?? String(e)}`, { cause: e });
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
