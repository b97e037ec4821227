/** Table family "webhook replays" (webhook_replays): replay jobs that read a webhook's past from the cluster. */
import type { Queryable } from './db.js';

export type ReplayStatus = 'pending' | 'running' | 'done' | 'truncated' | 'failed';

export interface ReplayRow {
  id: number;
  webhookId: string;
  fromSlot: number;
  toSlot: number;
  status: ReplayStatus;
  addresses: number;
  transactions: number;
  events: number;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

const COLS = 'id, webhook_id::text AS webhook_id, from_slot, to_slot, status, addresses, transactions, events, last_error, created_at, finished_at';

function row(r: Record<string, unknown>): ReplayRow {
  return {
    id: Number(r.id), webhookId: String(r.webhook_id), fromSlot: Number(r.from_slot), toSlot: Number(r.to_slot), status: r.status as ReplayStatus,
    addresses: Number(r.addresses), transactions: Number(r.transactions), events: Number(r.events), lastError: (r.last_error as string | null) ?? null,
    createdAt: new Date(r.created_at as string), finishedAt: r.finished_at ? new Date(r.finished_at as string) : null,
  };
}

export async function createReplay(q: Queryable, webhookId: string, fromSlot: number, toSlot: number): Promise<ReplayRow> {
  const { rows } = await q.query<Record<string, unknown>>(
    `INSERT INTO webhook_replays (webhook_id, from_slot, to_slot) VALUES ($1, $2, $3) RETURNING ${COLS}`,
    [webhookId, fromSlot, toSlot],
  );
  return row(rows[0]);
}

/** Claims the oldest pending job (or one whose lease expired). */
export async function claimReplay(q: Queryable, leaseMs: number): Promise<ReplayRow | null> {
  const { rows } = await q.query<Record<string, unknown>>(
    `UPDATE webhook_replays SET status = 'running', lease_until = now() + ($1::int * interval '1 millisecond')
      WHERE id = (SELECT id FROM webhook_replays WHERE status = 'pending' OR (status = 'running' AND lease_until < now())
                   ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
      RETURNING ${COLS}`,
    [leaseMs],
  );
  return rows.length ? row(rows[0]) : null;
}

/** Counts one address read; extends the lease. */
export async function advanceReplay(q: Queryable, id: number, p: { transactions: number; events: number; leaseMs: number }): Promise<void> {
  await q.query(
    `UPDATE webhook_replays SET addresses = addresses + 1, transactions = transactions + $2, events = events + $3,
       lease_until = now() + ($4::int * interval '1 millisecond') WHERE id = $1`,
    [id, p.transactions, p.events, p.leaseMs],
  );
}

export async function finishReplay(q: Queryable, id: number, status: Exclude<ReplayStatus, 'pending' | 'running'>, error: string | null = null): Promise<void> {
  await q.query(`UPDATE webhook_replays SET status = $2, last_error = $3, finished_at = now(), lease_until = NULL WHERE id = $1`, [id, status, error]);
}

/** A webhook's replay jobs, newest first. */
export async function listReplays(q: Queryable, webhookId: string, limit = 50): Promise<ReplayRow[]> {
  const { rows } = await q.query<Record<string, unknown>>(`SELECT ${COLS} FROM webhook_replays WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2`, [webhookId, limit]);
  return rows.map(row);
}

/** The addresses a webhook watches. */
export async function webhookAddresses(q: Queryable, webhookId: string): Promise<string[]> {
  const { rows } = await q.query<{ address: string }>('SELECT address FROM webhook_addresses WHERE webhook_id = $1 ORDER BY address', [webhookId]);
  return rows.map((r) => r.address);
}
