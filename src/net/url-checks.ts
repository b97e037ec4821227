/**
 * Up-front checks of a URL before any connection: scheme (http/https only), no embedded credentials, a literal-IP
 * host allowed by the address policy, each redirect hop checked like the first URL, and — for validating a URL ahead
 * of time, e.g. when a webhook is registered — every address a named host resolves to. Fetching needs no separate
 * DNS check: the guarded agent (`guarded-agent.ts`) checks at connect time.
 */
import dns from 'node:dns';
import { isIP } from 'node:net';
import { assertAddressAllowed, compile, describeRange, refusedRangeCompiled, type SsrfPolicy } from './address-policy.js';
import { GuardedFetchError, SsrfError } from './ssrf-errors.js';

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

/** A resolver returning every address of a name (the system resolver by default; tests pass their own). */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** `dns.lookup` with every address, in the resolver's order. */
export const systemLookupAll: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

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
