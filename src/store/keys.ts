/**
 * Table family "API keys". A key is `sg_<id>_<secret>`; only SHA-256(key) is stored. Lookup is by id, and the
 * hash is compared in constant time, so neither the database nor timing reveals a key.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from './db.js';

export interface ApiKeyRecord {
  id: string;
  name: string;
  allowedIps: string[];
  plan: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

interface KeyRow {
  id: string;
  name: string;
  allowed_ips: string[];
  plan: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

function toRecord(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    name: r.name,
    allowedIps: r.allowed_ips,
    plan: r.plan,
    createdAt: new Date(r.created_at),
    expiresAt: r.expires_at ? new Date(r.expires_at) : null,
    revokedAt: r.revoked_at ? new Date(r.revoked_at) : null,
  };
}

const KEY_RE = /^sg_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
/** A key id (16 hex digits): anything else names no key and is never sent to the database (a NUL byte there is an error). */
const isKeyId = (id: string) => /^[0-9a-f]{16}$/.test(id);

/** Compared against when the presented id is unknown (SHA-256 never yields 32 zero bytes in practice). */
const NO_KEY_DIGEST = Buffer.alloc(32);

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function newKey(id: string): string {
  return `sg_${id}_${randomBytes(32).toString('base64url')}`;
}

export type KeyStatus = 'active' | 'revoked' | 'expired';

/** Whether a key works at `now`: revoked, expired (expiry at or before now), or active. */
export function keyStatus(k: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): KeyStatus {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && k.expiresAt <= now) return 'expired';
  return 'active';
}

/**
 * NOTIFY channel of a changed key (revoked, rotated, updated): API processes that remember checked keys
 * (src/api/plugins/key-cache.ts) forget them when it fires. Sent by the changing statement itself, at its commit.
 */
export const KEYS_CHANNEL = 'solgate_keys';
const NOTIFY_CHANGE = `pg_notify('${KEYS_CHANNEL}', u.id) AS notified`;

let changes = 0;
/** Key changes made through this process (a remembered key is judged again after any of them). */
export function keysChangeCount(): number {
  return changes;
}
function changed(yes: boolean): boolean {
  if (yes) changes++;
  return yes;
}

/** Creates a key; the returned plain key is the only copy that will ever exist. */
export async function createApiKey(
  q: Queryable,
  opts: { name: string; allowedIps?: string[]; plan?: string; expiresAt?: Date | null },
): Promise<{ key: string; record: ApiKeyRecord }> {
  const id = randomBytes(8).toString('hex');
  const key = newKey(id);
  const { rows } = await q.query<{ created_at: Date }>(
    `INSERT INTO api_keys (id, name, key_hash, allowed_ips, plan, expires_at) VALUES ($1, $2, $3, $4::text[], $5, $6)
     RETURNING created_at`,
    [id, opts.name, hashKey(key), opts.allowedIps ?? [], opts.plan ?? 'developer', opts.expiresAt ?? null],
  );
  return {
    key,
    record: {
      id,
      name: opts.name,
      allowedIps: opts.allowedIps ?? [],
      plan: opts.plan ?? 'developer',
      createdAt: new Date(rows[0].created_at),
      expiresAt: opts.expiresAt ?? null,
      revokedAt: null,
    },
  };
}

/**
 * The record of a presented key when it exists and matches, else null. Revocation and expiry are the caller's
 * to judge (so it can answer precisely); malformed keys never reach the database.
 */
export async function findApiKey(q: Queryable, key: string): Promise<ApiKeyRecord | null> {
  const m = KEY_RE.exec(key);
  if (!m) return null;
  const { rows } = await q.query<KeyRow & { key_hash: string }>('SELECT id, name, key_hash, allowed_ips, plan, created_at, expires_at, revoked_at FROM api_keys WHERE id = $1', [m[1]]);
  const r = rows[0];
  const a = Buffer.from(hashKey(key), 'hex');
  // An unknown id is hashed and compared too (against a digest no key has), so both refusals take the same path.
  const b = r ? Buffer.from(r.key_hash, 'hex') : NO_KEY_DIGEST;
  if (a.length !== b.length || !timingSafeEqual(a, b) || !r) return null;
  return toRecord(r);
}

export async function listApiKeys(q: Queryable): Promise<ApiKeyRecord[]> {
  const { rows } = await q.query<KeyRow>('SELECT id, name, allowed_ips, plan, created_at, expires_at, revoked_at FROM api_keys ORDER BY created_at, id');
  return rows.map(toRecord);
}

export async function revokeApiKey(q: Queryable, id: string): Promise<boolean> {
  if (!isKeyId(id)) return false;
  const { rows } = await q.query(
    `WITH u AS (UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id)
     SELECT id, ${NOTIFY_CHANGE} FROM u`,
    [id],
  );
  return changed(rows.length > 0);
}

/** One key by id (no secret involved), or null. */
export async function getApiKey(q: Queryable, id: string): Promise<ApiKeyRecord | null> {
  if (!isKeyId(id)) return null;
  const { rows } = await q.query<KeyRow>('SELECT id, name, allowed_ips, plan, created_at, expires_at, revoked_at FROM api_keys WHERE id = $1', [id]);
  return rows.length ? toRecord(rows[0]) : null;
}

/**
 * Regenerates a live key's secret: the returned key (same id, name, plan, allow-list, usage) is the only copy, and
 * the old one fails at once in this process and, through the change's NOTIFY, in the others (at the latest after
 * SOLGATE_KEY_CACHE_MS). Null when the key does not exist or is revoked.
 */
export async function rotateApiKey(q: Queryable, id: string): Promise<{ key: string; record: ApiKeyRecord } | null> {
  if (!isKeyId(id)) return null;
  const key = newKey(id);
  const { rows } = await q.query<KeyRow>(
    `WITH u AS (UPDATE api_keys SET key_hash = $2, rotated_at = now() WHERE id = $1 AND revoked_at IS NULL
                RETURNING id, name, allowed_ips, plan, created_at, expires_at, revoked_at)
     SELECT *, ${NOTIFY_CHANGE} FROM u`,
    [id, hashKey(key)],
  );
  return changed(rows.length > 0) ? { key, record: toRecord(rows[0]) } : null;
}

/** Changes a key's name, plan, allow-list or expiry (fields left undefined are kept); null when unknown. */
export async function updateApiKey(
  q: Queryable,
  id: string,
  o: { name?: string; plan?: string; allowedIps?: string[]; expiresAt?: Date | null },
): Promise<ApiKeyRecord | null> {
  if (!isKeyId(id)) return null;
  const { rows } = await q.query<KeyRow>(
    `WITH u AS (UPDATE api_keys SET name = COALESCE($2, name), plan = COALESCE($3, plan), allowed_ips = COALESCE($4::text[], allowed_ips),
                       expires_at = CASE WHEN $5 THEN $6::timestamptz ELSE expires_at END
                 WHERE id = $1 RETURNING id, name, allowed_ips, plan, created_at, expires_at, revoked_at)
     SELECT *, ${NOTIFY_CHANGE} FROM u`,
    [id, o.name ?? null, o.plan ?? null, o.allowedIps ?? null, o.expiresAt !== undefined, o.expiresAt ?? null],
  );
  return changed(rows.length > 0) ? toRecord(rows[0]) : null;
}
