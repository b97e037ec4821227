/**
 * Table family "backfill": the per-address history backfill queue (`backfill_addresses`). Workers claim an
 * address under a lease (`FOR UPDATE SKIP LOCKED`, so several processes share the queue), advance its cursor after
 * each written page (a crash resumes from the last page written) and finish it as `done` (the first signature was
 * reached), `truncated` (the cluster no longer serves older transactions) or `failed` (retried on the next request).
 */
import type { Queryable } from './db.js';

export type BackfillStatus = 'pending' | 'running' | 'done' | 'truncated' | 'failed';

export interface BackfillRow {
  address: string;
  parent: string | null;
  status: BackfillStatus;
  cursor: string | null;
  oldestSlot: number | null;
  transactions: number;
  pages: number;
  attempts: number;
  lastError: string | null;
  /** A repair run (migration 042): also writes unindexed transactions from the origin up to the checkpoint. */
  repair: boolean;
}

const COLS = 'address, parent, status, cursor, oldest_slot, transactions, pages, attempts, last_error, repair';

function row(r: Record<string, unknown>): BackfillRow {
  return {
    address: r.address as string,
    parent: (r.parent as string | null) ?? null,
    status: r.status as BackfillStatus,
    cursor: (r.cursor as string | null) ?? null,
    oldestSlot: r.oldest_slot === null || r.oldest_slot === undefined ? null : Number(r.oldest_slot),
    transactions: Number(r.transactions),
    pages: Number(r.pages),
    attempts: Number(r.attempts),
    lastError: (r.last_error as string | null) ?? null,
    repair: r.repair === true,
  };
}

/**
 * Queues `addresses` (a failed one is queued again from its cursor; done/truncated/queued ones are left as they are).
 * `parent`: the wallet whose history needs these (its token accounts).
 */
export async function enqueueBackfill(q: Queryable, addresses: string[], parent: string | null = null): Promise<void> {
  if (!addresses.length) return;
  await q.query(
    `INSERT INTO backfill_addresses AS t (address, parent) SELECT unnest($1::text[]), $2
     ON CONFLICT (address) DO UPDATE SET status = 'pending', requested_at = now() WHERE t.status = 'failed'`,
    [addresses, parent],
  );
  // A failed token account of a wallet asked about again is retried with it.
  if (parent === null)
    await q.query(`UPDATE backfill_addresses SET status = 'pending', requested_at = now() WHERE parent = ANY($1::text[]) AND status = 'failed'`, [addresses]);
}

/** The token accounts `wallet` owns or owned as the index knows them (its history needs theirs). */
export async function ownedTokenAccounts(q: Queryable, wallet: string): Promise<string[]> {
  const { rows } = await q.query<{ address: string }>('SELECT address FROM token_accounts WHERE owner = $1 ORDER BY address', [wallet]);
  return rows.map((r) => r.address);
}

/** The state of `wallet`'s token-account backfills: how many are not finished, and the first truncated/failed one. */
export async function childBackfills(q: Queryable, wallet: string): Promise<{ open: number; truncated: BackfillRow | null; failed: BackfillRow | null }> {
  const { rows } = await q.query<Record<string, unknown>>(`SELECT ${COLS} FROM backfill_addresses WHERE parent = $1`, [wallet]);
  const list = rows.map(row);
  return {
    open: list.filter((r) => r.status === 'pending' || r.status === 'running').length,
    truncated: list.find((r) => r.status === 'truncated') ?? null,
    failed: list.find((r) => r.status === 'failed') ?? null,
  };
}

/** The backfill rows of `addresses`. */
export async function getBackfills(q: Queryable, addresses: string[]): Promise<Map<string, BackfillRow>> {
  const out = new Map<string, BackfillRow>();
  if (!addresses.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(`SELECT ${COLS} FROM backfill_addresses WHERE address = ANY($1::text[])`, [addresses]);
  for (const r of rows) out.set(r.address as string, row(r));
  return out;
}

/** Claims the oldest due address (pending, or running with an expired lease) for `leaseMs`; null when none is due. */
export async function claimBackfill(q: Queryable, leaseMs: number): Promise<BackfillRow | null> {
  const { rows } = await q.query<Record<string, unknown>>(
    `UPDATE backfill_addresses SET status = 'running', attempts = attempts + 1, lease_until = now() + ($1::int * interval '1 millisecond')
      WHERE address = (
        SELECT address FROM backfill_addresses
         WHERE status = 'pending' OR (status = 'running' AND lease_until < now())
         ORDER BY requested_at FOR UPDATE SKIP LOCKED LIMIT 1)
      RETURNING ${COLS}`,
    [leaseMs],
  );
  return rows.length ? row(rows[0]) : null;
}

/**
 * Makes every running backfill claimable at once: for a database only one process can open (the embedded one), whose
 * earlier process was killed holding leases nobody else will ever give back.
 */
export async function releaseRunningBackfills(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `WITH r AS (UPDATE backfill_addresses SET status = 'pending', lease_until = NULL WHERE status = 'running' RETURNING 1) SELECT count(*)::int AS n FROM r`,
  );
  return rows[0].n;
}

/** Records a written page: the new cursor (oldest signature written) and counts; extends the lease. */
export async function advanceBackfill(q: Queryable, address: string, p: { cursor: string; oldestSlot: number; transactions: number; leaseMs: number }): Promise<void> {
  await q.query(
    `UPDATE backfill_addresses SET cursor = $2, oldest_slot = $3, transactions = transactions + $4, pages = pages + 1,
       lease_until = now() + ($5::int * interval '1 millisecond') WHERE address = $1`,
    [address, p.cursor, p.oldestSlot, p.transactions, p.leaseMs],
  );
}

/**
 * Finishes a backfill as done / truncated / failed; `oldestSlot`: the slot its history is complete from (truncated).
 * `ranAsRepair`: the finished run was a repair run (its row's `repair` when claimed). A finished repair clears the
 * flag; a repair asked for while a plain run went on (enqueueRepair) is kept: the row goes back to `pending` from the
 * newest signature. A failed run keeps the flag for its retry.
 */
export async function finishBackfill(
  q: Queryable, address: string, status: 'done' | 'truncated' | 'failed', o: { error?: string; oldestSlot?: number; ranAsRepair?: boolean } = {},
): Promise<void> {
  await q.query(
    `UPDATE backfill_addresses SET
       status = CASE WHEN $2 <> 'failed' AND repair AND NOT $5 THEN 'pending' ELSE $2 END,
       cursor = CASE WHEN $2 <> 'failed' AND repair AND NOT $5 THEN NULL ELSE cursor END,
       repair = CASE WHEN $2 <> 'failed' AND $5 THEN false ELSE repair END,
       last_error = $3, lease_until = NULL, finished_at = CASE WHEN $2 = 'failed' THEN NULL ELSE now() END,
       oldest_slot = COALESCE($4, oldest_slot)
      WHERE address = $1`,
    [address, status, o.error?.slice(0, 500) ?? null, o.oldestSlot ?? null, o.ranAsRepair ?? false],
  );
}

/**
 * Queues `addresses` for a repair run (the drift detector found their indexed state behind the cluster's): a new
 * address, or one finished in any way, starts again from the newest signature with `repair` set; one queued or
 * running is marked `repair` and left where it is (a running one without it re-runs from the newest once it ends
 * — see finishBackfill).
 */
export async function enqueueRepair(q: Queryable, addresses: string[]): Promise<void> {
  if (!addresses.length) return;
  await q.query(
    `INSERT INTO backfill_addresses AS t (address, repair) SELECT unnest($1::text[]), true
     ON CONFLICT (address) DO UPDATE SET repair = true,
       status = CASE WHEN t.status IN ('pending', 'running') THEN t.status ELSE 'pending' END,
       cursor = CASE WHEN t.status IN ('pending', 'running') THEN t.cursor ELSE NULL END,
       requested_at = CASE WHEN t.status IN ('pending', 'running') THEN t.requested_at ELSE now() END`,
    [addresses],
  );
}

/** Queue depths by status (for /metrics). */
export async function backfillDepths(q: Queryable): Promise<Record<BackfillStatus, number>> {
  const out: Record<BackfillStatus, number> = { pending: 0, running: 0, done: 0, truncated: 0, failed: 0 };
  const { rows } = await q.query<{ status: BackfillStatus; n: string | number }>('SELECT status, count(*) AS n FROM backfill_addresses GROUP BY status');
  for (const r of rows) out[r.status] = Number(r.n);
  return out;
}

/** Which of `signatures` the index already holds (a transaction is written whole: every address it concerns at once). */
export async function indexedSignatures(q: Queryable, signatures: string[]): Promise<Set<string>> {
  if (!signatures.length) return new Set();
  const { rows } = await q.query<{ signature: string }>('SELECT signature FROM transactions WHERE signature = ANY($1::text[])', [signatures]);
  return new Set(rows.map((r) => r.signature));
}

/** A slot-range backfill (`backfill_ranges`). */
export interface BackfillRange {
  fromSlot: number;
  toSlot: number;
  nextSlot: number;
  status: 'running' | 'done';
  blocks: number;
  transactions: number;
}

/** The range `[from, to]`, created (from its start) if it does not exist. */
export async function openBackfillRange(q: Queryable, from: number, to: number): Promise<BackfillRange> {
  await q.query('INSERT INTO backfill_ranges (from_slot, to_slot, next_slot) VALUES ($1, $2, $1) ON CONFLICT DO NOTHING', [from, to]);
  const { rows } = await q.query<Record<string, string | number>>('SELECT * FROM backfill_ranges WHERE from_slot = $1 AND to_slot = $2', [from, to]);
  const r = rows[0];
  return { fromSlot: Number(r.from_slot), toSlot: Number(r.to_slot), nextSlot: Number(r.next_slot), status: r.status as 'running' | 'done', blocks: Number(r.blocks), transactions: Number(r.transactions) };
}

/** Records a written window of the range: it resumes at `nextSlot`; `done` once past `to`. */
export async function advanceBackfillRange(q: Queryable, from: number, to: number, nextSlot: number, blocks: number, transactions: number): Promise<void> {
  await q.query(
    `UPDATE backfill_ranges SET next_slot = $3, blocks = blocks + $4, transactions = transactions + $5,
       status = CASE WHEN $3 > to_slot THEN 'done' ELSE 'running' END, finished_at = CASE WHEN $3 > to_slot THEN now() END
      WHERE from_slot = $1 AND to_slot = $2`,
    [from, to, nextSlot, blocks, transactions],
  );
}

/** Whether finished ranges cover every slot of `[0, slot)` (the index then knows everything before `slot`). */
export async function rangesCoverBefore(q: Queryable, slot: number): Promise<boolean> {
  const { rows } = await q.query<{ from_slot: string | number; to_slot: string | number }>(
    `SELECT from_slot, to_slot FROM backfill_ranges WHERE status = 'done' ORDER BY from_slot`,
  );
  let covered = 0; // every slot below `covered` is covered
  for (const r of rows) {
    if (Number(r.from_slot) > covered) break;
    covered = Math.max(covered, Number(r.to_slot) + 1);
  }
  return covered >= slot;
}
