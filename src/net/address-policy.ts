/**
 * Address classification of the SSRF guard: whether a literal IPv4/IPv6 address may be connected to.
 *
 * Refused: private (10/8, 172.16/12, 192.168/16), loopback (127/8, ::1), link-local (169.254/16 — cloud metadata
 * endpoints —, fe80::/10), unique-local (fc00::/7), unspecified (0.0.0.0/8, ::), carrier-grade NAT (100.64/10),
 * multicast, broadcast, reserved/documentation/benchmarking ranges, deprecated site-local, and every IPv6 form that is
 * not global unicast (2000::/3). IPv6 forms that embed an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, IPv4-translated,
 * NAT64 64:ff9b::/96) are judged by the embedded IPv4 address. `allowPrivate` lifts the policy entirely (trusted
 * networks, tests); `allowCidrs` lifts it for the listed ranges only.
 *
 * Pure (no I/O): the URL checks (`url-checks.ts`) and the connect-time lookup (`guarded-agent.ts`) apply it.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { parseAllowEntry, type IpRange } from '../api/plugins/ip-allow.js';
import { SsrfError } from './ssrf-errors.js';

export interface SsrfPolicy {
  /** Allow any address (private, loopback, ...). Default false. Schemes are still restricted to http(s). */
  allowPrivate?: boolean;
  /** Addresses or CIDR ranges allowed even though the policy would refuse them (e.g. `10.1.2.0/24`). */
  allowCidrs?: readonly string[];
}

const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** A policy with its allow-list parsed, for checking many addresses. */
export interface CompiledPolicy {
  allowPrivate: boolean;
  allow: IpRange[];
}

/** Parses the policy's allow-list once. */
export function compile(p: SsrfPolicy | undefined): CompiledPolicy {
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

/** {@link refusedRange} under an already compiled policy. */
export function refusedRangeCompiled(address: string, p: CompiledPolicy): string | null {
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

/** A refused range name (as {@link refusedRange} returns it) in words, for error messages. */
export function describeRange(r: string): string {
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
