/**
 * Name-service resolution for the identity endpoints: `.sol` domain → owner, and owner → its `.sol` domains.
 * Reads indexed name records first; when a cluster RPC is configured, a domain not indexed yet is read live.
 */
import { SolgateError } from '../core/errors.js';
import { SOL_TLD_AUTHORITY } from '../core/programs.js';
import type { AccountUpdate } from '../core/model.js';
import type { Queryable } from '../store/db.js';
import { getNameRecords, getOwnedNames } from '../store/identities.js';
import { decodeNameRecord, reverseLookupKey, solDomainKey } from '../parsers/accounts/name-service.js';

/** Reads accounts from a live cluster (absent ones are left out). */
export type AccountFetcher = (pubkeys: string[]) => Promise<AccountUpdate[]>;

export function looksLikeDomain(s: string): boolean {
  return /^[a-z0-9\-_.]+\.[a-z0-9\-_]+$/i.test(s) && s.length <= 253;
}

/** The wallet that owns `domain`, or null when the domain is not registered. */
export async function resolveDomain(q: Queryable, domain: string, fetcher?: AccountFetcher): Promise<string | null> {
  if (!domain.toLowerCase().endsWith('.sol'))
    throw new SolgateError('INVALID_PARAMS', 'Unsupported domain', {
      details: `'${domain}' is not a .sol domain; only SPL Name Service (.sol) domains are resolved by this server`,
    });
  const key = await solDomainKey(domain);
  if (!key) throw new SolgateError('INVALID_PARAMS', 'Invalid domain', { details: `'${domain}' is not a valid .sol domain` });
  const rec = (await getNameRecords(q, [key])).get(key);
  if (rec) return rec.owner;
  if (!fetcher) return null;
  const [acc] = await fetcher([key]);
  return acc ? (decodeNameRecord(acc)?.owner ?? null) : null;
}

/** `.sol` domains owned by `owner` whose reverse-lookup names are known, alphabetical. */
export async function domainNamesOf(q: Queryable, owner: string): Promise<string[]> {
  const names = await getOwnedNames(q, owner, SOL_TLD_AUTHORITY);
  if (!names.length) return [];
  const reverseKeys = await Promise.all(names.map((n) => reverseLookupKey(n)));
  const recs = await getNameRecords(q, reverseKeys);
  const out: string[] = [];
  for (const k of reverseKeys) {
    const name = recs.get(k)?.reverseName;
    if (name) out.push(name.endsWith('.sol') ? name : `${name}.sol`);
  }
  return out.sort();
}
