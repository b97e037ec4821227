/**
 * IP allow-lists: each entry an IPv4/IPv6 address or CIDR range. IPv4-mapped IPv6 client addresses
 * (::ffff:1.2.3.4) are matched as IPv4. Uses ipaddr.js (the parser Fastify's proxy handling uses).
 */
import ipaddr from 'ipaddr.js';

export type IpRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses an allow-list entry; throws with a readable message when it is neither an address nor a CIDR. */
export function parseAllowEntry(entry: string): IpRange {
  const s = entry.trim();
  try {
    if (s.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(s);
      return [normalize(addr), addr.kind() === 'ipv6' && normalize(addr).kind() === 'ipv4' ? bits - 96 : bits];
    }
    const a = normalize(ipaddr.parse(s));
    return [a, a.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new Error(`"${entry}" is not an IP address or CIDR range`);
  }
}

function normalize(a: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
}

/** True when the list is empty (no restriction) or `ip` falls in one of its ranges. */
export function ipAllowed(ip: string, allowList: readonly string[]): boolean {
  if (!allowList.length) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = normalize(ipaddr.parse(ip));
  } catch {
    return false;
  }
  for (const entry of allowList) {
    let range: IpRange;
    try {
      range = parseAllowEntry(entry);
    } catch {
      continue;
    }
    if (range[0].kind() === addr.kind() && addr.match(range as never)) return true;
  }
  return false;
}
