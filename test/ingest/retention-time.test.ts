/**
 * Retention of the time-partitioned families (issue #22): webhook delivery attempts (daily partitions, kept
 * SOLGATE_WEBHOOK_RETENTION_DAYS) and usage rows (30-day partitions, kept SOLGATE_RETENTION_USAGE_DAYS), over 60
 * simulated days (the job's clock seam) while a writer keeps inserting attempts and upserting usage as the worker and
 * the meter do. Every write succeeds; the job creates partitions ahead and drops the old ones; no attempt older than
 * the horizon remains and every one after it does; usage rows are dropped only by whole 30-day ranges, never one of
 * the days kept. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetentionJob } from '../../src/ingest/retention.js';
import { dayNumber, family, listPartitions } from '../../src/store/partitions.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const DAY = 86_400_000;
const WEBHOOK = '00000000-0000-4000-8000-000000000002';
const ATTEMPT_DAYS = 7;
const USAGE_DAYS = 32;
const DAYS = 60;
let t: TestDb;
let eventId = 0;
const today = dayNumber(Date.now());
/** The simulated day the job and the writer are at. */
let day = today + 1;
const iso = (d: number) => new Date(d * DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await createTestDb();
  await t.db.query(`INSERT INTO api_keys (id, name, key_hash) VALUES ('k1', 'retention', 'h')`);
  await t.db.query(`INSERT INTO webhooks (id, key_id, url, webhook_type, secret) VALUES ($1, 'k1', 'https://example.com/h', 'raw', 's')`, [WEBHOOK]);
  const { rows } = await t.db.query<{ id: number }>(`INSERT INTO webhook_events (webhook_id, signature, slot, position) VALUES ($1, 'sig', 1, 1000000) RETURNING id`, [WEBHOOK]);
  eventId = rows[0].id;
}, 60_000);

afterAll(async () => {
  await t?.drop();
});

/** One attempt at a time of `d` and one usage upsert of `d`, as the delivery worker and the meter write them. */
async function write(d: number, n: number): Promise<void> {
  await t.db.query(
    `INSERT INTO webhook_attempts (event_id, webhook_id, attempt, at, ok, status, latency_ms) VALUES ($1, $2, $3, to_timestamp($4::float8 / 1000), true, 200, 5)`,
    [eventId, WEBHOOK, n, d * DAY + (n % 86_000) * 1000],
  );
  await t.db.query(
    `INSERT INTO usage_daily (key_id, day, method, calls, credits) VALUES ('k1', $1::date, 'getAsset', 1, 10)
     ON CONFLICT (key_id, day, method) DO UPDATE SET calls = usage_daily.calls + 1, credits = usage_daily.credits + 10`,
    [iso(d)],
  );
}

describe('retention of webhook attempts and usage over 60 simulated days', () => {
  const written = new Map<number, number>(); // day -> attempts written
  let failures = 0;
  let dropped = { webhook_attempts: 0, usage: 0 };

  it('never fails a write while it creates and drops partitions', async () => {
    const job = createRetentionJob({ db: t.db, historySlots: 0, webhookAttemptDays: ATTEMPT_DAYS, usageDays: USAGE_DAYS, now: () => day * DAY + DAY / 2 });
    let stop = false;
    let n = 0;
    // The writer: all along, at the simulated day of the moment.
    const writer = (async () => {
      while (!stop) {
        const d = day;
        try {
          await write(d, ++n);
          written.set(d, (written.get(d) ?? 0) + 1);
        } catch {
          failures++;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    for (; day <= today + DAYS; day++) {
      const r = await job.runOnce();
      dropped = { webhook_attempts: dropped.webhook_attempts + (r.dropped.webhook_attempts ?? 0), usage: dropped.usage + (r.dropped.usage ?? 0) };
      // Give the writer this day.
      const before = written.get(day) ?? 0;
      while ((written.get(day) ?? 0) < before + 3) await new Promise((r) => setTimeout(r, 2));
    }
    day--;
    stop = true;
    await writer;
    await job.runOnce();
    expect(failures).toBe(0);
    expect(dropped.webhook_attempts).toBeGreaterThanOrEqual(DAYS - ATTEMPT_DAYS - 3);
    expect(dropped.usage).toBeGreaterThanOrEqual(1);
  });

  it('keeps every attempt from the horizon on and none before it; the daily partitions stay few', async () => {
    const horizon = day - ATTEMPT_DAYS;
    const { rows } = await t.db.query<{ d: number; n: number }>(
      `SELECT floor(extract(epoch FROM at) / 86400)::int AS d, count(*)::int AS n FROM webhook_attempts GROUP BY 1 ORDER BY 1`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.d, `an attempt of day ${r.d} is older than the horizon ${horizon}`).toBeGreaterThanOrEqual(horizon);
    for (let d = horizon; d <= day; d++) expect(rows.find((r) => r.d === d)?.n ?? 0, `day ${d}`).toBe(written.get(d) ?? 0);
    const parts = await listPartitions(t.db, family('webhook_attempts'));
    expect(parts.filter((p) => !p.isDefault).length).toBeLessThanOrEqual(ATTEMPT_DAYS + 4);
  });

  it('keeps every usage day from the horizon on; drops only whole 30-day ranges', async () => {
    const horizon = day - USAGE_DAYS;
    const { rows } = await t.db.query<{ d: string; calls: number }>(`SELECT to_char(day, 'YYYY-MM-DD') AS d, calls::int AS calls FROM usage_daily ORDER BY day`);
    const byDay = new Map(rows.map((r) => [dayNumber(Date.parse(`${r.d}T00:00:00Z`)), r.calls]));
    for (let d = horizon; d <= day; d++) expect(byDay.get(d) ?? 0, `usage of day ${d}`).toBe(written.get(d) ?? 0);
    // What is older than the horizon is only what shares a 30-day range with kept days.
    for (const d of byDay.keys()) expect(d).toBeGreaterThanOrEqual(horizon - 30);
    const parts = await listPartitions(t.db, family('usage'));
    for (const p of parts) if (!p.isDefault && p.hi !== null) expect(p.hi).toBeGreaterThan(horizon);
  });
});
