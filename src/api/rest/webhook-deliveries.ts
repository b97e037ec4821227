/**
 * The delivery log and replay of a webhook (issue #6), beside the management routes of `/v0/webhooks` and under
 * the same key scope (another key's webhook is 404):
 *  - `GET /v0/webhooks/{id}/deliveries?limit&state&before` — the webhook's events, newest first (chain order),
 *    each with its attempts; `paginationToken` continues the list; `counts` by state;
 *  - `GET /v0/webhooks/{id}/deliveries/{deliveryId}` — one event with every attempt;
 *  - `POST /v0/webhooks/{id}/replay` `{fromSlot, toSlot?}` — queues the webhook's events of those slots again
 *    (delivered and failed ones too), due at once, in chain order, with their original event ids; with a cluster
 *    RPC it also queues a job that reads the webhook's addresses' transactions of the range from the cluster
 *    (src/ingest/webhook-replay.ts), so the replay reaches before the webhook existed or the index began;
 *  - `GET /v0/webhooks/{id}/replays` — those jobs, newest first, with their progress.
 * Stored events are kept for the retention period (SOLGATE_WEBHOOK_RETENTION_DAYS).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SolgateError, invalidParams } from '../../core/errors.js';
import type { ApiKeyRecord } from '../../store/keys.js';
import { getWebhook } from '../../store/webhooks.js';
import {
  attemptsOf, deliveryCounts, getDelivery, listDeliveries, replayEvents,
  type AttemptRow, type DeliveryRow, type DeliveryState,
} from '../../store/webhook-deliveries.js';
import { eventId } from '../../webhooks/signing.js';
import type { Db } from '../../store/db.js';
import { getCheckpoint } from '../../store/chain.js';
import { createReplay, listReplays, type ReplayRow } from '../../store/webhook-replays.js';

const STATES: DeliveryState[] = ['pending', 'delivered', 'failed'];

/** Query of a delivery log page (this API and the admin API): page size, state filter, cursor. */
export const DELIVERIES_QUERY = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    state: { type: 'string', enum: STATES },
    before: { type: 'string', maxLength: 64 },
  },
} as const;

const idParams = { type: 'object', properties: { webhookID: { type: 'string' } }, required: ['webhookID'] } as const;

/** The paginationToken after `d` (shared with the admin API's delivery log). */
export function cursorOf(d: DeliveryRow): string {
  return Buffer.from(`${d.position}:${d.id}`).toString('base64url');
}

export function parseCursor(s: string): { position: number; id: number } {
  const m = /^(\d{1,17}):(\d{1,17})$/.exec(Buffer.from(s, 'base64url').toString('utf8'));
  if (!m) throw invalidParams('Invalid pagination token', 'pass back the paginationToken of a previous page');
  return { position: Number(m[1]), id: Number(m[2]) };
}

function attemptWire(a: AttemptRow) {
  return { attempt: a.attempt, at: a.at.toISOString(), ok: a.ok, status: a.status, latencyMs: a.latencyMs, error: a.error, worker: a.worker };
}

/** One delivery with its attempts in the wire shape (also the admin API's). */
export function deliveryWire(webhookId: string, d: DeliveryRow, attempts: AttemptRow[]) {
  return {
    deliveryId: String(d.id),
    eventId: eventId(webhookId, d.signature),
    signature: d.signature,
    slot: d.slot,
    state: d.state,
    attempts: d.attempts,
    queuedAt: d.queuedAt.toISOString(),
    nextAttemptAt: d.state === 'pending' ? d.nextAttemptAt.toISOString() : null,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    attemptLog: attempts.map(attemptWire),
  };
}

/** The query of a delivery log page, as {@link DELIVERIES_QUERY} validates it. */
export type DeliveriesQuery = { limit: number; state?: DeliveryState; before?: string };

/** One page of a webhook's delivery log, newest first, each delivery with its attempts, and the next page's cursor. */
export async function deliveryPage(db: Db, webhookId: string, q: DeliveriesQuery) {
  const rows = await listDeliveries(db, webhookId, { limit: q.limit, state: q.state, before: q.before ? parseCursor(q.before) : undefined });
  const attempts = await attemptsOf(db, rows.map((r) => r.id));
  const byEvent = new Map<number, AttemptRow[]>();
  for (const a of attempts) {
    const list = byEvent.get(a.eventId);
    if (list) list.push(a);
    else byEvent.set(a.eventId, [a]);
  }
  return {
    deliveries: rows.map((r) => deliveryWire(webhookId, r, byEvent.get(r.id) ?? [])),
    paginationToken: rows.length === q.limit ? cursorOf(rows[rows.length - 1]) : null,
  };
}

function replayWire(r: ReplayRow) {
  return {
    replayID: String(r.id), fromSlot: r.fromSlot, toSlot: r.toSlot, status: r.status, addressesRead: r.addresses, transactionsRead: r.transactions,
    eventsMatched: r.events, error: r.lastError, createdAt: r.createdAt.toISOString(), finishedAt: r.finishedAt?.toISOString() ?? null,
  };
}

export function registerDeliveryRoutes(app: FastifyInstance, db: Db, notFound: (id: string) => SolgateError, replays?: { wake(): void }): void {
  const keyOf = (req: FastifyRequest): ApiKeyRecord => req.apiKey!;
  const idOf = (req: FastifyRequest): string => (req.params as { webhookID: string }).webhookID;
  async function ownWebhook(req: FastifyRequest) {
    const w = await getWebhook(db, keyOf(req).id, idOf(req));
    if (!w) throw notFound(idOf(req));
    return w;
  }

  app.get(
    '/v0/webhooks/:webhookID/deliveries',
    {
      schema: {
        params: idParams,
        querystring: DELIVERIES_QUERY,
      },
    },
    async (req) => {
      const w = await ownWebhook(req);
      return {
        webhookID: w.id,
        active: w.active,
        deactivatedReason: w.deactivatedReason,
        counts: await deliveryCounts(db, w.id),
        ...(await deliveryPage(db, w.id, req.query as DeliveriesQuery)),
      };
    },
  );

  app.get(
    '/v0/webhooks/:webhookID/deliveries/:deliveryId',
    { schema: { params: { type: 'object', properties: { webhookID: { type: 'string' }, deliveryId: { type: 'string' } }, required: ['webhookID', 'deliveryId'] } } },
    async (req) => {
      const w = await ownWebhook(req);
      const raw = (req.params as { deliveryId: string }).deliveryId;
      const d = /^\d{1,15}$/.test(raw) ? await getDelivery(db, w.id, Number(raw)) : null;
      if (!d) throw new SolgateError('NOT_FOUND', 'Delivery not found', { details: `no delivery ${raw} for webhook ${w.id}` });
      return deliveryWire(w.id, d, await attemptsOf(db, [d.id]));
    },
  );

  app.post(
    '/v0/webhooks/:webhookID/replay',
    {
      schema: {
        params: idParams,
        body: {
          type: 'object',
          properties: { fromSlot: { type: 'integer', minimum: 0 }, toSlot: { type: 'integer', minimum: 0 } },
          required: ['fromSlot'],
        },
      },
    },
    async (req) => {
      const w = await ownWebhook(req);
      const { fromSlot, toSlot } = req.body as { fromSlot: number; toSlot?: number };
      if (toSlot !== undefined && toSlot < fromSlot) throw invalidParams('toSlot must not be below fromSlot', `fromSlot ${fromSlot}, toSlot ${toSlot}`);
      const replayed = await replayEvents(db, w.id, fromSlot, toSlot ?? null);
      let history: ReturnType<typeof replayWire> | null = null;
      if (replays) {
        // The cluster is read up to the indexed slot; later blocks make their events live.
        const to = Math.min(toSlot ?? Number.MAX_SAFE_INTEGER, (await getCheckpoint(db)) ?? 0);
        if (to >= fromSlot) {
          history = replayWire(await createReplay(db, w.id, fromSlot, to));
          replays.wake();
        }
      }
      return { webhookID: w.id, fromSlot, toSlot: toSlot ?? null, replayed, active: w.active, history };
    },
  );

  app.get('/v0/webhooks/:webhookID/replays', { schema: { params: idParams } }, async (req) => {
    const w = await ownWebhook(req);
    return { webhookID: w.id, replays: (await listReplays(db, w.id)).map(replayWire) };
  });
}
