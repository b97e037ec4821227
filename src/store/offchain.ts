/**
 * Table family "off-chain metadata" (`offchain_metadata`, migration 006): the JSON documents on-chain metadata
 * points to, one row per uri, with the fetch schedule. Written by the off-chain fetcher (src/offchain/fetcher.ts);
 * read by the DAS renderer and the token-metadata endpoint.
 *
 * Clock: every time is the database's `now()`, so several processes agree on what is due.
 */
import type { Queryable } from './db.js';

export type OffchainStatus = 'pending' | 'ok' | 'failed';

export interface OffchainEntry {
  uri: string;
  status: OffchainStatus;
  /** The last JSON document fetched successfully (kept while a refresh fails). */
  content: Record<string, unknown> | null;
  /** The last failure; null after a success. */
  error: string | null;
  /** Failed attempts since the last success. */
  attempts: number;
  fetchedAt: Date | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
}

/** Longest uri accepted (on-chain Token Metadata uris are ≤ 200 bytes; Token-2022 metadata can be longer). */
export const MAX_URI_LENGTH = 4096;

/**
 * True when the fetcher can fetch this uri: http(s), or ipfs:// and ar:// (rewritten to the configured gateways
 * at fetch time). Empty / blank uris and other schemes (data:, file:, ...) are not queued.
 */
export function isFetchableUri(uri: string): boolean {
  const s = uri.trim();
  if (!s || s.length > MAX_URI_LENGTH) return false;
  return /^(https?:\/\/|ipfs:\/\/|ar:\/\/)/i.test(s);
}

/**
 * Queues uris for fetching (idempotent: a known uri is left as it is). Skips blank and unfetchable uris.
 * Returns how many rows were added.
 */
export async function enqueueUris(q: Queryable, uris: Iterable<string>): Promise<number> {
  const list = [...new Set([...uris].filter((u) => typeof u === 'string' && isFetchableUri(u)))];
  if (!list.length) return 0;
  const { rows } = await q.query<{ uri: string }>(
    `INSERT INTO offchain_metadata (uri, status, next_attempt_at)
     SELECT u, 'pending', now() FROM unnest($1::text[]) AS u
     ON CONFLICT (uri) DO NOTHING RETURNING uri`,
    [list],
  );
  return rows.length;
}

export interface OffchainClaim {
  uri: string;
  /** Failed attempts before this one. */
  attempts: number;
  hasContent: boolean;
}

/**
 * Claims up to `limit` due rows for this worker: each row's next_attempt_at moves `leaseMs` ahead (so it is not
 * due again while being fetched, and comes back by itself if the worker dies) and its claim_token becomes
 * `token`. Rows locked by another claim in flight are skipped, never waited for.
 */
export async function claimDue(q: Queryable, limit: number, leaseMs: number, token: string): Promise<OffchainClaim[]> {
  if (limit <= 0) return [];
  const { rows } = await q.query<{ uri: string; attempts: number; has_content: boolean }>(
    `UPDATE offchain_metadata o
        SET claim_token = $3, last_attempt_at = now(), next_attempt_at = now() + $2::float8 * interval '1 millisecond'
      WHERE o.uri = ANY(ARRAY(
              SELECT uri FROM offchain_metadata
               WHERE next_attempt_at <= now()
               ORDER BY next_attempt_at
               LIMIT $1
               FOR UPDATE SKIP LOCKED))
        AND o.next_attempt_at <= now()
  RETURNING o.uri, o.attempts, (o.content IS NOT NULL) AS has_content`,
    [limit, leaseMs, token],
  );
  return rows.map((r) => ({ uri: r.uri, attempts: Number(r.attempts), hasContent: r.has_content }));
}

/** Puts claimed rows back (due now) without counting an attempt: a worker stopping mid-fetch. */
export async function releaseClaims(q: Queryable, token: string, uris: string[]): Promise<void> {
  if (!uris.length) return;
  await q.query(
    `UPDATE offchain_metadata SET claim_token = NULL, next_attempt_at = now()
      WHERE claim_token = $1 AND uri = ANY($2::text[])`,
    [token, uris],
  );
}

/**
 * Stores a fetched document. `token` = the claim that fetched it (the write is dropped when the claim was lost,
 * e.g. its lease expired and another worker re-claimed the row); null = an on-demand fetch, written
 * unconditionally (the row is created when missing). `refreshAfterMs` null = never refetch.
 * Returns false when the write was dropped.
 */
export async function recordSuccess(
  q: Queryable,
  uri: string,
  token: string | null,
  content: Record<string, unknown>,
  refreshAfterMs: number | null,
): Promise<boolean> {
  const json = JSON.stringify(content);
  if (token === null) {
    await q.query(
      `INSERT INTO offchain_metadata (uri, status, content, error, attempts, fetched_at, last_attempt_at, next_attempt_at, claim_token)
       VALUES ($1, 'ok', $2::jsonb, NULL, 0, now(), now(), CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + $3::float8 * interval '1 millisecond' END, NULL)
       ON CONFLICT (uri) DO UPDATE SET status = 'ok', content = EXCLUDED.content, error = NULL, attempts = 0,
         fetched_at = now(), last_attempt_at = now(), next_attempt_at = EXCLUDED.next_attempt_at, claim_token = NULL`,
      [uri, json, refreshAfterMs],
    );
    return true;
  }
  const { rows } = await q.query(
    `UPDATE offchain_metadata SET status = 'ok', content = $3::jsonb, error = NULL, attempts = 0, fetched_at = now(),
            next_attempt_at = CASE WHEN $4::float8 IS NULL THEN NULL ELSE now() + $4::float8 * interval '1 millisecond' END,
            claim_token = NULL
      WHERE uri = $1 AND claim_token = $2 RETURNING uri`,
    [uri, token, json, refreshAfterMs],
  );
  return rows.length > 0;
}

/**
 * Records a failed attempt: attempts + 1, the error, and the next attempt `retryAfterMs` from now (null = none).
 * `gaveUp` marks a row without content `failed` (otherwise `pending`); a row with content stays `ok` (its last
 * good document keeps being served). Same `token` rule as recordSuccess. Returns false when dropped.
 */
export async function recordFailure(
  q: Queryable,
  uri: string,
  token: string | null,
  error: string,
  o: { gaveUp: boolean; retryAfterMs: number | null },
): Promise<boolean> {
  const next = `CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + $3::float8 * interval '1 millisecond' END`;
  const status = `CASE WHEN t.content IS NOT NULL THEN 'ok' WHEN $4::boolean THEN 'failed' ELSE 'pending' END`;
  const msg = error.slice(0, 1000);
  if (token === null) {
    await q.query(
      `INSERT INTO offchain_metadata AS t (uri, status, error, attempts, last_attempt_at, next_attempt_at)
       VALUES ($1, CASE WHEN $4::boolean THEN 'failed' ELSE 'pending' END, $2, 1, now(), ${next})
       ON CONFLICT (uri) DO UPDATE SET status = ${status}, error = EXCLUDED.error, attempts = t.attempts + 1,
         last_attempt_at = now(), next_attempt_at = EXCLUDED.next_attempt_at, claim_token = NULL`,
      [uri, msg, o.retryAfterMs, o.gaveUp],
    );
    return true;
  }
  const { rows } = await q.query(
    `UPDATE offchain_metadata t SET status = ${status}, error = $2, attempts = t.attempts + 1, next_attempt_at = ${next}, claim_token = NULL
      WHERE t.uri = $1 AND t.claim_token = $5 RETURNING t.uri`,
    [uri, msg, o.retryAfterMs, o.gaveUp, token],
  );
  return rows.length > 0;
}

type Row = {
  uri: string;
  status: OffchainStatus;
  content: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
  fetched_at: Date | string | null;
  last_attempt_at: Date | string | null;
  next_attempt_at: Date | string | null;
};

const date = (v: Date | string | null): Date | null => (v === null ? null : v instanceof Date ? v : new Date(v));

/** Rows by uri (unknown uris are absent), one query. */
export async function getOffchainEntries(q: Queryable, uris: Iterable<string>): Promise<Map<string, OffchainEntry>> {
  const out = new Map<string, OffchainEntry>();
  const list = [...new Set(uris)];
  if (!list.length) return out;
  const { rows } = await q.query<Row>(
    `SELECT uri, status, content, error, attempts, fetched_at, last_attempt_at, next_attempt_at
       FROM offchain_metadata WHERE uri = ANY($1::text[])`,
    [list],
  );
  for (const r of rows)
    out.set(r.uri, {
      uri: r.uri,
      status: r.status,
      content: r.content,
      error: r.error,
      attempts: Number(r.attempts),
      fetchedAt: date(r.fetched_at),
      lastAttemptAt: date(r.last_attempt_at),
      nextAttemptAt: date(r.next_attempt_at),
    });
  return out;
}

/** The fetched documents of the given uris (uris without one are absent), one query. */
export async function getOffchainContents(q: Queryable, uris: Iterable<string>): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  const list = [...new Set(uris)].filter((u) => u !== '');
  if (!list.length) return out;
  const { rows } = await q.query<{ uri: string; content: Record<string, unknown> }>(
    'SELECT uri, content FROM offchain_metadata WHERE uri = ANY($1::text[]) AND content IS NOT NULL',
    [list],
  );
  for (const r of rows) out.set(r.uri, r.content);
  return out;
}
