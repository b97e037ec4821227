/**
 * Reads a known-entity registry file: CSV with a header containing `address,name,type,category[,tags]`
 * (tags separated by `;` or `|`), or JSON (an array of `{address, name, type, category, tags?}`).
 * Rows with an invalid address or a missing field are reported, not silently dropped.
 */
import { readFileSync } from 'node:fs';
import { isAddress } from '../core/encoding.js';
import type { Identity } from '../store/identities.js';

export interface ImportResult {
  identities: Identity[];
  errors: string[];
}

/** Splits one CSV line honouring double quotes. */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') (cur += '"'), i++;
      else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') out.push(cur), (cur = '');
    else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim());
}

function validate(raw: Record<string, unknown>, where: string, errors: string[]): Identity | null {
  const s = (k: string) => (typeof raw[k] === 'string' ? (raw[k] as string).trim() : '');
  const address = s('address');
  if (!isAddress(address)) return errors.push(`${where}: invalid address '${address}'`), null;
  for (const k of ['name', 'type', 'category']) if (!s(k)) return errors.push(`${where}: missing ${k}`), null;
  let tags: string[] = [];
  if (Array.isArray(raw.tags)) tags = raw.tags.filter((t): t is string => typeof t === 'string');
  else if (typeof raw.tags === 'string' && raw.tags.trim()) tags = raw.tags.split(/[;|]/).map((t) => t.trim()).filter(Boolean);
  return { address, name: s('name'), type: s('type'), category: s('category'), tags };
}

/** Checks a list of `{address, name, type, category, tags?}` objects (JSON files, the admin API). */
export function identitiesFromList(list: unknown[], name = 'identities'): ImportResult {
  const errors: string[] = [];
  const identities: Identity[] = [];
  list.forEach((r, i) => {
    const id = r && typeof r === 'object' ? validate(r as Record<string, unknown>, `${name}[${i}]`, errors) : (errors.push(`${name}[${i}]: not an object`), null);
    if (id) identities.push(id);
  });
  return { identities, errors };
}

export function parseIdentityFile(text: string, name = 'file'): ImportResult {
  const errors: string[] = [];
  const identities: Identity[] = [];
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (e) {
      throw new Error(`${name}: not valid JSON (${(e as Error).message})`);
    }
    const list = Array.isArray(json) ? json : (json as { identities?: unknown }).identities;
    if (!Array.isArray(list)) throw new Error(`${name}: expected a JSON array of identities`);
    return identitiesFromList(list, name);
  }
  const lines = trimmed.split(/\r?\n/);
  const header = csvFields(lines[0]).map((h) => h.toLowerCase());
  for (const need of ['address', 'name', 'type', 'category'])
    if (!header.includes(need)) throw new Error(`${name}: CSV header must include ${need} (got ${header.join(',')})`);
  lines.slice(1).forEach((line, i) => {
    if (!line.trim()) return;
    const f = csvFields(line);
    const rec = Object.fromEntries(header.map((h, j) => [h, f[j] ?? '']));
    const id = validate(rec, `${name}:${i + 2}`, errors);
    if (id) identities.push(id);
  });
  return { identities, errors };
}

export function readIdentityFile(path: string): ImportResult {
  return parseIdentityFile(readFileSync(path, 'utf8'), path);
}
