/**
 * Operations endpoints on the root scope: `/health` (liveness: the process answers), `/ready` (the database
 * answers and, when this process ingests, the indexer is within `readyMaxLagSlots` of the cluster tip) and the
 * Prometheus scrape `/metrics`. Also the HTTP metrics of every request (an `onResponse` hook inherited by every
 * interface) and the gauges read at scrape time: ingest slot, tip and lag (only when this process ingests) and
 * the backlogs (webhook outbox, DAS refresher, off-chain fetch queue), counted with capped queries and cached for
 * a few seconds so scrapes never load the database.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import type { ApiDeps } from './deps.js';
import type { Db } from '../store/db.js';
import { getCheckpoint } from '../store/chain.js';
import { QUEUE_COUNT_CAP, queueDepths, type QueueDepths } from '../store/queue-depths.js';
import { httpRequestDuration, httpRequests, registry } from '../core/metrics.js';

declare module './deps.js' {
  interface ApiDeps {
    /** /ready answers 503 when the indexer is more than this many slots behind the tip (SOLGATE_READY_MAX_LAG_SLOTS). */
    readyMaxLagSlots?: number;
  }
}

export const DEFAULT_READY_MAX_LAG_SLOTS = 150;
/** Backlog counts and the checkpoint are read at most once per this many milliseconds, whatever the scrape rate. */
export const SCRAPE_CACHE_MS = 5000;
export { QUEUE_COUNT_CAP };

/** Route label of requests no route matched (404s), so raw URLs never become label values. */
export const UNMATCHED_ROUTE = 'unmatched';

interface Snapshot {
  /** null when the last attempt to count failed (the gauges read NaN). */
  depths: QueueDepths | null;
  checkpoint: number | null;
}

/** The app whose database and ingest status the scrape-time gauges read (the last one built in this process). */
interface ScrapeSource {
  db: Db;
  ingestStatus?: ApiDeps['ingestStatus'];
  log: FastifyBaseLogger;
  cache?: { at: number; value: Snapshot };
  pending?: Promise<Snapshot>;
}

let source: ScrapeSource | null = null;

/** Backlogs and checkpoint, from the cache when fresh; concurrent scrapes share one query. */
function snapshot(s: ScrapeSource): Promise<Snapshot> {
  if (s.cache && Date.now() - s.cache.at < SCRAPE_CACHE_MS) return Promise.resolve(s.cache.value);
  s.pending ??= (async (): Promise<Snapshot> => {
    try {
      const [depths, checkpoint] = await Promise.all([queueDepths(s.db), getCheckpoint(s.db)]);
      return { depths, checkpoint };
    } catch (err) {
      s.log.warn({ err }, 'metrics: counting the backlogs failed');
      return { depths: null, checkpoint: s.cache?.value.checkpoint ?? null };
    }
  })().then((value) => {
    s.cache = { at: Date.now(), value };
    s.pending = undefined;
    return value;
  });
  return s.pending;
}

/** Indexed slot (in-memory last written slot, else the stored checkpoint), tip and lag; null when not ingesting. */
async function ingestFacts(): Promise<{ slot: number | null; tip: number | null; lag: number | null } | null> {
  const s = source;
  const st = s?.ingestStatus?.();
  if (!s || !st) return null;
  const slot = st.lastSlot ?? (await snapshot(s)).checkpoint;
  const tip = st.tip;
  return { slot, tip, lag: slot !== null && tip !== null ? Math.max(0, tip - slot) : null };
}

const orNaN = (v: number | null | undefined) => (v === null || v === undefined ? Number.NaN : v);

// Registered only while an app with ingestion is open (so the series exist only when this process ingests).
const ingestGauges = [
  new Gauge({
    name: 'solgate_ingest_slot',
    help: 'Last slot written by the ingester (the stored checkpoint before the first block of this run); NaN = nothing indexed yet',
    registers: [],
    async collect() {
      this.set(orNaN((await ingestFacts())?.slot));
    },
  }),
  new Gauge({
    name: 'solgate_ingest_tip_slot',
    help: 'Latest slot of the cluster (tip watcher / poller); NaN = not known yet',
    registers: [],
    async collect() {
      this.set(orNaN((await ingestFacts())?.tip));
    },
  }),
  new Gauge({
    name: 'solgate_ingest_lag_slots',
    help: 'Slots between the cluster tip and the last indexed slot; NaN = unknown',
    registers: [],
    async collect() {
      this.set(orNaN((await ingestFacts())?.lag));
    },
  }),
];

const queueGauge = (name: string, help: string, pick: (d: QueueDepths) => number) =>
  new Gauge({
    name,
    help: `${help} (counted up to ${QUEUE_COUNT_CAP}; ${QUEUE_COUNT_CAP + 1} = more; refreshed at most every ${SCRAPE_CACHE_MS / 1000} s)`,
    registers: [],
    async collect() {
      const d = source ? (await snapshot(source)).depths : null;
      this.set(d ? pick(d) : Number.NaN);
    },
  });

// Registered while an app is open.
const queueGauges = [
  queueGauge('solgate_webhook_events_pending', 'Webhook events waiting for delivery (queued or waiting for a retry)', (d) => d.webhookEventsPending),
  queueGauge('solgate_das_dirty_pending', 'Addresses whose DAS asset rows wait for the refresher', (d) => d.dasDirty),
  queueGauge('solgate_offchain_fetch_due', 'Off-chain metadata documents due for a fetch (first fetch, retry or refresh)', (d) => d.offchainDue),
  queueGauge('solgate_backfill_addresses_pending', 'Addresses whose history backfill is queued or running', (d) => d.backfillPending),
  queueGauge('solgate_webhook_replays_pending', 'Webhook replays reading the cluster that are queued or running', (d) => d.webhookReplaysPending),
];

const gaugeName = (g: Gauge) => (g as unknown as { name: string }).name;

function setRegistered(gauges: Gauge[], on: boolean): void {
  for (const g of gauges) {
    const name = gaugeName(g);
    const present = registry.getSingleMetric(name);
    if (on && !present) registry.registerMetric(g);
    if (!on && present === (g as unknown)) registry.removeSingleMetric(name);
  }
}

/** Mounts /health, /ready and /metrics on the root scope and the HTTP metrics hook (before the interfaces). */
export function opsApi(app: FastifyInstance, deps: ApiDeps): void {
  const maxLag = deps.readyMaxLagSlots ?? DEFAULT_READY_MAX_LAG_SLOTS;

  // Route patterns keep label values bounded; unmatched requests (404s) share one label.
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? UNMATCHED_ROUTE;
    httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    httpRequestDuration.observe({ route, method: req.method }, reply.elapsedTime / 1000);
    done();
  });

  // Graceful shutdown: close() stops accepting and closes idle keep-alive connections; a keep-alive connection whose
  // request is in flight would stay open after its response, so responses sent while closing end their connection.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  const s: ScrapeSource = { db: deps.db, ingestStatus: deps.ingestStatus, log: app.log };
  source = s;
  setRegistered(queueGauges, true);
  setRegistered(ingestGauges, Boolean(deps.ingestStatus));
  app.addHook('onClose', async () => {
    if (source !== s) return;
    source = null;
    setRegistered(queueGauges, false);
    setRegistered(ingestGauges, false);
  });

  // Liveness: the process answers; nothing else is checked (a down database must not get the process restarted).
  app.get('/health', async () => ({ status: 'ok' }));

  // Readiness: the database answers and, when this process ingests, the indexer keeps up with the cluster.
  app.get('/ready', async (_req, reply) => {
    let indexedSlot: number | null;
    try {
      // The index this process answers from: the replica's checkpoint with DATABASE_READ_URL (unreachable: 503).
      indexedSlot = await getCheckpoint(deps.readDb ?? deps.db);
    } catch {
      return reply.status(503).send({ status: 'unavailable', reason: 'database unreachable' });
    }
    const ingest = deps.ingestStatus?.();
    if (!ingest) return { status: 'ready', indexedSlot };
    const { tip } = ingest;
    const lagSlots = tip !== null && indexedSlot !== null ? Math.max(0, tip - indexedSlot) : null;
    if (tip !== null && indexedSlot === null)
      return reply.status(503).send({ status: 'unavailable', reason: 'the indexer has not indexed a slot yet', indexedSlot, tip, lagSlots });
    if (lagSlots !== null && lagSlots > maxLag)
      return reply.status(503).send({
        status: 'unavailable', reason: `the indexer is ${lagSlots} slots behind the tip (more than ${maxLag})`, indexedSlot, tip, lagSlots,
      });
    return { status: 'ready', indexedSlot, tip, lagSlots };
  });

  // Prometheus scrape endpoint.
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
