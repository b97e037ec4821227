/**
 * Table family "partitions": the range-partitioned append-only tables (migration 032) and their upkeep — creating
 * the next partitions ahead of the values being written, and dropping whole partitions older than a retention
 * horizon (docs/storage.md). The job that calls these is `src/ingest/retention.ts`.
 *
 * Layout per table: `<table>_p_old` (everything below the value the conversion started from), `<table>_p<start>`
 * (contiguous fixed-width ranges; `<start>` is the first slot, or the first UTC day as YYYYMMDD), and
 * `<table>_default`, the DEFAULT partition catching any value no range covers, so no insert ever fails. Every table
 * of a family has the same ranges: they are created and dropped together, in one transaction.
 *
 * Values are handled as integers: slots, or whole UTC days since 1970-01-01 for the time families.
 *
 * Locks: a partition far enough ahead of the values being written is created beside the table and then attached
 * (ATTACH takes SHARE UPDATE EXCLUSIVE on the parent, which does not conflict with inserts and reads); one that may
 * already be written, and every detach, takes ACCESS EXCLUSIVE on the family's tables for an instant (DETACH …
 * CONCURRENTLY is refused by PostgreSQL while a DEFAULT partition exists). Every change runs under a short
 * `lock_timeout`, below PostgreSQL's `deadlock_timeout` (1 s): a change that would wait longer gives up (error
 * 55P03) and is tried again next round, so ingestion and reads wait at most that long, and in a lock cycle with an
 * ingestion transaction it is always the change that gives up, never the insert.
 */
import type { Db, Queryable } from './db.js';

export type FamilyName = 'history' | 'webhook_attempts' | 'usage';

export interface PartitionFamily {
  name: FamilyName;
  tables: readonly string[];
  /** The partition key's column and SQL type. */
  column: string;
  type: 'bigint' | 'timestamptz' | 'date';
  /** Storage parameters each new partition is created with (autovacuum per family; docs/storage.md). */
  storage: string;
}

export const PARTITION_FAMILIES: readonly PartitionFamily[] = [
  // Insert-only: vacuum after 2% new rows (sets the visibility map: index-only scans), analyze after 2%.
  {
    name: 'history', tables: ['transactions', 'address_slots', 'address_typed', 'wallet_transfers'], column: 'slot', type: 'bigint',
    storage: 'autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02',
  },
  { name: 'webhook_attempts', tables: ['webhook_attempts'], column: 'at', type: 'timestamptz', storage: 'autovacuum_vacuum_insert_scale_factor = 0.05' },
  // Counters updated in place every few seconds: room for HOT updates, vacuum after 5% dead rows.
  { name: 'usage', tables: ['usage_daily'], column: 'day', type: 'date', storage: 'fillfactor = 70, autovacuum_vacuum_scale_factor = 0.05' },
];

export const family = (name: FamilyName): PartitionFamily => PARTITION_FAMILIES.find((f) => f.name === name)!;

export interface PartitionInfo {
  /** The partition's table name. */
  name: string;
  /** First value (inclusive); null = MINVALUE. */
  lo: number | null;
  /** End (exclusive); null = MAXVALUE. */
  hi: number | null;
  isDefault: boolean;
}

const DAY_MS = 86_400_000;

/** The UTC day number of a time. */
export const dayNumber = (ms: number): number => Math.floor(ms / DAY_MS);

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** A value as a SQL literal of the family's key type. */
function literal(f: PartitionFamily, v: number): string {
  if (f.type === 'bigint') return String(Math.trunc(v));
  return f.type === 'date' ? `'${isoDay(v)}'` : `'${isoDay(v)} 00:00:00+00'`;
}

/** The name suffix of a partition starting at `lo`. */
const suffix = (f: PartitionFamily, lo: number) => (f.type === 'bigint' ? `_p${lo}` : `_p${isoDay(lo).replaceAll('-', '')}`);

/** One bound of `pg_get_expr(relpartbound)` (`MINVALUE`, `'123'`, `123`, `'2026-11-27'`, `'2026-11-27 00:00:00+00'`). */
function parseBound(f: PartitionFamily, raw: string): number | null {
  const t = raw.trim();
  if (t === 'MINVALUE' || t === 'MAXVALUE') return null;
  const v = t.replace(/^'|'$/g, '');
  if (f.type === 'bigint') return Number(v);
  const m = /^(\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2}:\d{2})(?:\.\d+)?([+-]\d{2})(?::?(\d{2}))?)?$/.exec(v);
  if (!m) throw new Error(`partitions: cannot read the bound ${raw} of family ${f.name}`);
  const ms = m[2] ? Date.parse(`${m[1]}T${m[2]}${m[3]}:${m[4] ?? '00'}`) : Date.parse(`${m[1]}T00:00:00Z`);
  return Math.round(ms / DAY_MS);
}

/** The partitions of `table` with their ranges, lowest first (the DEFAULT partition last). */
export async function listPartitions(q: Queryable, f: PartitionFamily, table = f.tables[0]): Promise<PartitionInfo[]> {
  const { rows } = await q.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::text::regclass`,
    [table],
  );
  const out = rows.map((r): PartitionInfo => {
    if (r.bound.trim() === 'DEFAULT') return { name: r.name, lo: null, hi: null, isDefault: true };
    const m = /FROM \((.*)\) TO \((.*)\)/.exec(r.bound);
    if (!m) throw new Error(`partitions: unexpected bound of ${r.name}: ${r.bound}`);
    return { name: r.name, lo: parseBound(f, m[1]), hi: parseBound(f, m[2]), isDefault: false };
  });
  const key = (p: PartitionInfo) => (p.isDefault ? Infinity : p.lo ?? -Infinity);
  return out.sort((a, b) => key(a) - key(b));
}

/** Arbitrary base of the per-family transaction-level advisory lock: one maintainer per family at a time. */
const LOCK_BASE = 7_022_000;
const lockId = (f: PartitionFamily) => LOCK_BASE + PARTITION_FAMILIES.indexOf(f);

async function begin(q: Queryable, f: PartitionFamily, lockTimeoutMs: number): Promise<boolean> {
  const { rows } = await q.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [lockId(f)]);
  if (!rows[0]?.ok) return false;
  await q.query(`SET LOCAL lock_timeout = '${Math.max(1, Math.trunc(lockTimeoutMs))}ms'`);
  return true;
}

export interface AheadOptions {
  /** The value being written now (the checkpoint slot, today's day number). */
  now: number;
  /** Width of one partition, in the family's unit. */
  width: number;
  /** How many partitions past the one holding `now` must exist. */
  ahead: number;
  lockTimeoutMs: number;
  /**
   * A range starting within this distance of `now` may already be written (a batch in flight is past the
   * checkpoint; a new index's first blocks go to the DEFAULT partition): it is attached with the family's tables
   * locked ACCESS EXCLUSIVE, so no insert can route a row with the partition layout from before the attach
   * (PostgreSQL would refuse such a row in the DEFAULT partition). Farther ranges are attached beside inserts.
   */
  lockedMargin: number;
}

/**
 * Creates the family's next partitions until ones covering `now + ahead·width` exist; returns how many ranges were
 * created. Ranges are contiguous from the highest existing bound: aligned to multiples of `width`, except one
 * filler range up to the partition holding `now` when the highest bound is far behind (a new index starting at a
 * cluster's tip). Rows the DEFAULT partition already holds in a new range (the job lagged behind ingestion) are
 * moved into it in the same transaction.
 */
export async function createPartitionsAhead(db: Db, f: PartitionFamily, o: AheadOptions): Promise<number> {
  const w = Math.max(1, Math.trunc(o.width));
  let created = 0;
  for (let guard = 0; guard < 64; guard++) {
    const made = await db.tx(async (q) => {
      if (!(await begin(q, f, o.lockTimeoutMs))) return false;
      const ranges = (await listPartitions(q, f)).filter((p) => !p.isDefault);
      if (!ranges.length || ranges.some((p) => p.hi === null)) return false;
      const top = Math.max(...ranges.map((p) => p.hi!));
      if (top > o.now + o.ahead * w) return false;
      let hi = (Math.floor(top / w) + 1) * w;
      const holding = Math.floor(o.now / w) * w;
      if (holding > hi) hi = holding;
      if (top <= o.now + o.lockedMargin) await q.query(`LOCK TABLE ${f.tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
      for (const table of f.tables) {
        const part = `${table}${suffix(f, top)}`;
        // No row may reach the DEFAULT partition's part of the range between the move and the attach.
        await q.query(`LOCK TABLE ${table}_default IN EXCLUSIVE MODE`);
        // The parent's column compression too (LZ4 for the slot rows where the server has it, migration 050).
        await q.query(`CREATE TABLE ${part} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMPRESSION) WITH (${f.storage})`);
        await q.query(
          `WITH moved AS (DELETE FROM ${table}_default WHERE ${f.column} >= ${literal(f, top)} AND ${f.column} < ${literal(f, hi)} RETURNING *)
           INSERT INTO ${part} SELECT * FROM moved`,
        );
        await q.query(`ALTER TABLE ${table} ATTACH PARTITION ${part} FOR VALUES FROM (${literal(f, top)}) TO (${literal(f, hi)})`);
      }
      return true;
    });
    if (!made) break;
    created++;
  }
  return created;
}

export interface DropResult {
  /** Ranges dropped (one per range, however many tables the family has). */
  dropped: number;
  /** Rows deleted from the DEFAULT partitions below the horizon. */
  rowsDeleted: number;
}

/**
 * Drops the family's partitions that lie wholly below `horizon` (every value < horizon), one range per transaction
 * (all tables of the family together), then deletes what the DEFAULT partitions hold below it. Records in
 * `storage_retention` the value from which everything is kept. A lock not obtained within `lockTimeoutMs` throws
 * (55P03): the caller tries again next round.
 */
export async function dropPartitionsBelow(db: Db, f: PartitionFamily, horizon: number, lockTimeoutMs: number): Promise<DropResult> {
  const out: DropResult = { dropped: 0, rowsDeleted: 0 };
  for (let guard = 0; guard < 1000; guard++) {
    const done = await db.tx(async (q) => {
      if (!(await begin(q, f, lockTimeoutMs))) return false;
      const victim = (await listPartitions(q, f)).find((p) => !p.isDefault && p.hi !== null && p.hi <= horizon);
      if (!victim) return false;
      const end = f.tables[0].length;
      let hadRows = false;
      // All the family's tables at once, in one order (the DETACHes need ACCESS EXCLUSIVE on each anyway).
      await q.query(`LOCK TABLE ${f.tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
      for (const table of f.tables) {
        const part = `${table}${victim.name.slice(end)}`;
        await q.query(`ALTER TABLE ${table} DETACH PARTITION ${part}`);
        const { rows } = await q.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${part}) AS any`);
        hadRows ||= rows[0].any;
        await q.query(`DROP TABLE ${part}`);
      }
      // An empty range removes nothing: completeness moves only when rows went.
      await recordRemoved(q, f, hadRows ? victim.hi! : null, 1, 0);
      return true;
    });
    if (!done) break;
    out.dropped++;
  }
  await db.tx(async (q) => {
    if (!(await begin(q, f, lockTimeoutMs))) return;
    let n = 0;
    for (const table of f.tables) {
      const { rows } = await q.query<{ n: number }>(
        `WITH d AS (DELETE FROM ${table}_default WHERE ${f.column} < ${literal(f, horizon)} RETURNING 1) SELECT count(*)::int AS n FROM d`,
      );
      n += rows[0]?.n ?? 0;
    }
    if (n > 0) await recordRemoved(q, f, horizon, 0, n);
    out.rowsDeleted = n;
  });
  return out;
}

async function recordRemoved(q: Queryable, f: PartitionFamily, completeFrom: number | null, partitions: number, rows: number): Promise<void> {
  await q.query(
    `INSERT INTO storage_retention AS t (family, complete_from, partitions_dropped, rows_deleted)
     VALUES ($1, COALESCE($2::bigint, 0), $3, $4)
     ON CONFLICT (family) DO UPDATE SET complete_from = GREATEST(t.complete_from, EXCLUDED.complete_from),
       partitions_dropped = t.partitions_dropped + EXCLUDED.partitions_dropped, rows_deleted = t.rows_deleted + EXCLUDED.rows_deleted,
       updated_at = now()`,
    [f.name, completeFrom, partitions, rows],
  );
}

/**
 * The value (slot for `history`) from which retention has kept everything; null when it never removed a row.
 */
export async function retainedFrom(q: Queryable, name: FamilyName): Promise<number | null> {
  const { rows } = await q.query<{ complete_from: string | number }>('SELECT complete_from FROM storage_retention WHERE family = $1 AND complete_from > 0', [name]);
  return rows.length ? Number(rows[0].complete_from) : null;
}
