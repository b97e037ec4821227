/**
 * Table family "usage" (migration 016): credits and calls per API key, UTC day and method. Written only by the
 * usage recorder's periodic flush (one additive upsert for everything a process counted), read by quotas and the
 * dashboard.
 */
import type { Queryable } from './db.js';

export interface UsageDelta {
  keyId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  method: string;
  calls: number;
  credits: number;
}

/** Adds counted usage (rows of keys deleted meanwhile are dropped). */
export async function addUsage(q: Queryable, rows: readonly UsageDelta[]): Promise<void> {
  if (!rows.length) return;
  await q.query(
    `INSERT INTO usage_daily AS u (key_id, day, method, calls, credits)
     SELECT d.key_id, d.day, d.method, d.calls, d.credits
       FROM unnest($1::text[], $2::date[], $3::text[], $4::int8[], $5::int8[]) AS d (key_id, day, method, calls, credits)
       JOIN api_keys k ON k.id = d.key_id
     ON CONFLICT (key_id, day, method) DO UPDATE SET calls = u.calls + EXCLUDED.calls, credits = u.credits + EXCLUDED.credits`,
    [rows.map((r) => r.keyId), rows.map((r) => r.day), rows.map((r) => r.method), rows.map((r) => r.calls), rows.map((r) => r.credits)],
  );
}

/** Credits a key used from `fromDay` (inclusive, YYYY-MM-DD) on. */
export async function creditsSince(q: Queryable, keyId: string, fromDay: string): Promise<number> {
  const { rows } = await q.query<{ n: string | number | null }>('SELECT sum(credits) AS n FROM usage_daily WHERE key_id = $1 AND day >= $2::date', [keyId, fromDay]);
  return Number(rows[0]?.n ?? 0);
}

export interface UsageRow {
  day: string;
  method: string;
  calls: number;
  credits: number;
}

/** A key's usage per day and method between two UTC days (inclusive), oldest first. */
export async function usageOf(q: Queryable, keyId: string, fromDay: string, toDay: string): Promise<UsageRow[]> {
  const { rows } = await q.query<{ day: string | Date; method: string; calls: string | number; credits: string | number }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, method, calls, credits FROM usage_daily
      WHERE key_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day, method`,
    [keyId, fromDay, toDay],
  );
  return rows.map((r) => ({ day: String(r.day), method: r.method, calls: Number(r.calls), credits: Number(r.credits) }));
}
