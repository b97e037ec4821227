/**
 * The webhook delivery worker: `concurrency` loops per process, each taking one webhook's lease at a time
 * (src/store/webhook-events.ts; the claim also reads the first due events) and POSTing its due events in order over
 * the webhook's own kept-alive connection, up to `pipelining` at once (HTTP/1.1 pipelining: the requests leave and
 * are answered in order), so a webhook's first attempts reach it in chain order. Any number of worker processes may
 * share a database.
 *
 * Per attempt: the body is built from the stored payload (`raw` / `enhanced` arrays of one transaction, `discord`
 * message), sent through the SSRF-guarded connection (kept alive between leases; every connection's resolved address
 * checked; redirects are not followed — a 3xx is a failed attempt) with the Standard Webhooks headers
 * (src/webhooks/signing.ts) and the webhook's authHeader as Authorization; any 2xx within the timeout is a delivery.
 * Outcomes are recorded in bulk with the events' next states and a lease renewal (src/store/webhook-events.ts
 * `recordAttempts`, one statement per chunk of due events, or sooner: after a failure, or before a POST could
 * outlast the lease); failures are retried with exponential backoff and jitter until the retry window closes. After a failure, the webhook's failure rate over the
 * deactivation window is checked and the webhook switched off (reason recorded) when it passes the threshold.
 *
 * The last recording of a lease gives the lease up in the same statement, and the loop claims its next webhook
 * without waiting for it. Stopping finishes the attempts in flight (and records them) before resolving. A killed
 * process leaves leases that expire after `leaseMs`; its events — including those POSTed but not yet recorded — are
 * then delivered by another worker (at least once, same event id); so are pipelined POSTs whose connection broke
 * before their answer (sent again by the HTTP client or a later attempt).
 */
import { sleepUnlessAborted } from '../core/sleep.js';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import {
  WEBHOOK_EVENTS_CHANNEL, claimWebhook, deactivateWebhook, dueEvents, failureStats, pruneDeliveries, recordAttempts, releaseLease,
  type BatchAttempt, type ClaimedWebhook, type DueEvent,
} from '../store/webhook-events.js';
import {
  checkTarget, createGuardedAgent, postOnConnection, type CheckedTarget, type GuardedAgent, type GuardedConnection, type SsrfPolicy,
} from '../net/ssrf.js';
import { pruneAttemptCounts } from '../store/webhook-attempt-counts.js';
import { webhookAttempts, webhookDeactivations, webhookDeliveryLatency } from '../core/metrics.js';
import { retryDelayMs, type RetryPolicy } from './backoff.js';
import { deliveryHeaders } from './signing.js';
import { attemptError, deliveryBody } from './delivery-body.js';

export interface DeactivationPolicy {
  /** Failure share (0..1) over the window at or above which a webhook is switched off; 0 = never. */
  failureRate: number;
  windowMs: number;
  /** Attempts the window must hold before the rate counts. */
  minAttempts: number;
}

export interface DeliveryWorkerOptions {
  db: Db;
  logger?: Logger;
  /** Webhooks delivered at once by this process. */
  concurrency: number;
  /** Deadline of one POST (connect, headers, body). */
  timeoutMs: number;
  retry: RetryPolicy;
  deactivation: DeactivationPolicy;
  /** Target address policy; private/loopback/link-local/metadata targets are refused unless allowed. */
  ssrf: SsrfPolicy;
  /** Idle wait between looks for due events (ms); `wake()` cuts it short. */
  pollMs?: number;
  /** Events taken per lease before the webhook is handed back (fairness between webhooks). */
  batch?: number;
  /**
   * POSTs of one webhook in flight at once on its connection (HTTP/1.1 pipelining, in order; default 8). 1 = one
   * at a time.
   */
  pipelining?: number;
  /** Finished events and their attempts are kept this long (ms); 0 = no clean-up by this worker. */
  retentionMs?: number;
  explorerTxUrl?: string;
  /** Name in the attempt log (default host:pid:random). */
  workerId?: string;
  /** Called once per event at its first attempt (an event costs credits whether or not the receiver accepts it). */
  onFirstAttempt?: (keyId: string) => void;
  /** Tests: the resolver the guarded agent uses. */
  agent?: GuardedAgent;
}

export interface DeliveryWorker {
  readonly id: string;
  /** Resolves once every loop has stopped; attempts in flight finish and are recorded first. */
  stop(): Promise<void>;
  /** New events were queued: look now instead of at the next poll. */
  wake(): void;
  readonly stats: { delivered: number; failedAttempts: number; gaveUp: number; deactivated: number };
}


export function startDeliveryWorker(o: DeliveryWorkerOptions): DeliveryWorker {
  const id = o.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const pollMs = o.pollMs ?? 250;
  const batch = o.batch ?? 500;
  // Outcomes wait at most this long (ms) after the previous recording started before they are recorded.
  const RECORD_MS = 100;
  // Due events read per query (and recorded per statement when every attempt succeeds).
  const chunk = Math.min(batch, 100);
  // A lease outlives any single attempt (the POST, then the statement recording it, which renews the lease).
  const leaseMs = o.timeoutMs * 2 + 5000;
  const agent = o.agent ?? createGuardedAgent(o.ssrf, { connections: Math.max(4, o.concurrency), connectTimeoutMs: o.timeoutMs });
  const pipelining = Math.max(1, Math.floor(o.pipelining ?? 8));
  // Connections of recently served webhooks, kept between leases (least recently used first).
  const idleConnections = new Map<string, { origin: string; conn: GuardedConnection }>();
  const maxIdleConnections = Math.max(16, 2 * o.concurrency);
  // Last recordings of leases (which give the lease up) still running: stop() waits for them.
  const background = new Set<Promise<unknown>>();
  const ctl = new AbortController();
  const stats = { delivered: 0, failedAttempts: 0, gaveUp: 0, deactivated: 0 };
  let idleCtl = new AbortController();
  const log = o.logger?.child({ component: 'webhook-worker', worker: id });

  function wake() {
    idleCtl.abort();
    idleCtl = new AbortController();
  }

  /**
   * POSTs one event on the webhook's connection (`target`: its URL, checked once per lease, or why it is refused);
   * the outcome is recorded later, with others of the webhook (`flush`).
   */
  async function attempt(w: ClaimedWebhook, e: DueEvent, conn: GuardedConnection, target: CheckedTarget | Error): Promise<BatchAttempt> {
    const built = deliveryBody(w, e, o.explorerTxUrl);
    const started = performance.now();
    let ok = false;
    let status: number | null = null;
    let error: string | null = null;
    let final = false;
    if ('error' in built) {
      error = built.error;
      final = true;
    } else if (target instanceof Error) {
      error = attemptError(target);
    } else {
      try {
        status = await postOnConnection(conn, target, {
          // Pipelined behind the webhook's earlier POSTs; a POST whose connection failed before the answer may be
          // sent again by the client (the receiver dedupes on webhook-id, as for any repeated delivery).
          idempotent: true,
          headers: deliveryHeaders({ webhookId: w.id, signature: e.signature, secret: w.secret, body: built.body, authHeader: w.authHeader, nowMs: Date.now() }),
          body: built.body,
          timeoutMs: o.timeoutMs,
          maxBytes: 64 * 1024,
        });
        ok = status >= 200 && status < 300;
        if (!ok) error = `HTTP ${status}`;
      } catch (err) {
        error = attemptError(err);
      }
    }
    const latencyMs = performance.now() - started;
    if (e.attempts === 0) o.onFirstAttempt?.(w.keyId);
    return { eventId: e.id, ok, status, latencyMs, error, final, retryInMs: retryDelayMs(e.attempts + 1, o.retry, Math.random()) };
  }

  /**
   * Records the attempts made since the last flush (one statement, which also renews the lease, or with `release`
   * gives it up). False when the webhook must be handed back: the lease was lost, or the webhook was switched off.
   */
  async function flush(w: ClaimedWebhook, done: BatchAttempt[], release = false): Promise<boolean> {
    if (!done.length && !release) return true;
    const recs = await recordAttempts(o.db, { webhookId: w.id, owner: id, leaseMs, windowMs: o.retry.windowMs, attempts: done, release });
    let failed = false;
    for (const a of done) {
      const rec = recs.get(a.eventId);
      if (!rec) continue;
      if (rec.state === 'delivered') {
        stats.delivered++;
        webhookAttempts.inc({ outcome: 'delivered' });
        if (rec.attempt === 1) webhookDeliveryLatency.observe((Date.now() - rec.queuedAt.getTime()) / 1000);
      } else {
        failed = true;
        stats.failedAttempts++;
        if (rec.state === 'failed') stats.gaveUp++;
        webhookAttempts.inc({ outcome: rec.state === 'failed' ? 'failed' : 'retry' });
        log?.debug({ webhook: w.id, event: a.eventId, attempt: rec.attempt, error: a.error, state: rec.state }, 'webhook delivery failed');
      }
    }
    if (recs.size < done.length) {
      log?.warn({ webhook: w.id, unrecorded: done.length - recs.size }, 'webhook lease lost; another worker continues');
      return false;
    }
    if (failed && (await maybeDeactivate(w))) return false;
    return true;
  }

  /** Switches the webhook off when its failure rate passes the threshold; true when it did. */
  async function maybeDeactivate(w: ClaimedWebhook): Promise<boolean> {
    const p = o.deactivation;
    if (!(p.failureRate > 0)) return false;
    const s = await failureStats(o.db, w.id, p.windowMs);
    if (s.attempts < p.minAttempts || s.failures / s.attempts < p.failureRate) return false;
    const reason = `delivery failure rate ${(100 * s.failures / s.attempts).toFixed(1)}% (${s.failures} of ${s.attempts} attempts in the last ${Math.round(p.windowMs / 1000)} s) reached the threshold of ${(100 * p.failureRate).toFixed(1)}%`;
    if (await deactivateWebhook(o.db, w.id, reason)) {
      stats.deactivated++;
      webhookDeactivations.inc();
      log?.warn({ webhook: w.id, reason }, 'webhook deactivated');
    }
    return true;
  }

  /** The webhook's kept-alive pipelined connection (reused across leases while it stays among the recent ones). */
  function connectionFor(w: ClaimedWebhook): GuardedConnection {
    const origin = new URL(w.url).origin;
    const kept = idleConnections.get(w.id);
    idleConnections.delete(w.id);
    if (kept && kept.origin === origin && !kept.conn.destroyed) return kept.conn;
    if (kept) void kept.conn.close().catch(() => {});
    return agent.connection(origin, pipelining);
  }

  function keepConnection(w: ClaimedWebhook, conn: GuardedConnection): void {
    if (ctl.signal.aborted || conn.destroyed) {
      void conn.close().catch(() => {});
      return;
    }
    idleConnections.set(w.id, { origin: new URL(w.url).origin, conn });
    while (idleConnections.size > maxIdleConnections) {
      const [oldest, c] = idleConnections.entries().next().value as [string, { conn: GuardedConnection }];
      idleConnections.delete(oldest);
      void c.conn.close().catch(() => {});
    }
  }

  /**
   * Delivers up to `batch` due events of `w` (the first chunk read with the claim), in order over the webhook's own
   * connection with up to `pipelining` POSTs in flight (HTTP/1.1 pipelining: they leave, and are answered, in chain
   * order); each next chunk is read while the one before it is POSTed. Outcomes are recorded in bulk: a chunk's
   * outcomes while the next chunk is POSTed (one recording in flight at a time, so the attempt log keeps the
   * order), sooner when the chunk has run for 100 ms, and once the POSTs in flight are answered after a failed
   * attempt (so the failure rate is checked) or before a POST could outlast the lease. The last chunk's recording
   * also gives the lease up; the loop does not wait for it before claiming the next webhook.
   */
  async function serveWebhook(w: ClaimedWebhook, first: DueEvent[]): Promise<void> {
    // The chunk being recorded (its ids are excluded from the next read: they may still be pending meanwhile).
    let recording: Promise<boolean> = Promise.resolve(true);
    let recordingIds: number[] = [];
    let renewedAt = performance.now();
    let released = false;
    const record = async (done: BatchAttempt[], release = false): Promise<boolean> => {
      const go = await recording;
      renewedAt = performance.now();
      recording = go ? flush(w, done, release) : Promise.resolve(false);
      if (go && release) released = true;
      // Handled where it is awaited (an error must not count as unhandled while the next POSTs run).
      recording.catch(() => {});
      recordingIds = done.map((a) => a.eventId);
      return go;
    };
    let conn = connectionFor(w);
    let target: CheckedTarget | Error;
    try {
      target = checkTarget(w.url, agent.policy);
    } catch (e) {
      target = e as Error;
    }
    try {
      let sent = 0;
      let due = first;
      let want = Math.min(batch, chunk);
      while (due.length) {
        // The next chunk is read while this one is POSTed (leaving out this chunk's events and those being recorded,
        // which may still be pending meanwhile), so the connection does not sit idle for that query between chunks.
        const nextWant = Math.min(batch - sent - due.length, chunk);
        const ahead = due.length >= want && nextWant > 0
          ? dueEvents(o.db, w.id, nextWant, [...recordingIds, ...due.map((e) => e.id)], w.webhookType)
          : null;
        // Handled where it is awaited (or dropped with the lease).
        ahead?.catch(() => {});
        let done: BatchAttempt[] = [];
        let failed = false;
        // Attempts in flight, oldest first (answered in this order on the one connection).
        const inflight: Promise<BatchAttempt>[] = [];
        let next = 0;
        const settle = async (): Promise<void> => {
          const a = await inflight.shift()!;
          done.push(a);
          if (!a.ok) failed = true;
        };
        while (next < due.length || inflight.length) {
          const more = !failed && !ctl.signal.aborted && next < due.length;
          if (more && inflight.length < pipelining) {
            if (performance.now() - renewedAt <= o.timeoutMs) {
              sent++;
              // A POST that timed out destroyed the connection (src/net/guarded-request.ts): the rest go on a new one.
              if (conn.destroyed) conn = connectionFor(w);
              inflight.push(attempt(w, due[next++], conn, target));
              continue;
            }
            if (!inflight.length) {
              // The lease (2 × timeout + 5 s from the last renewal) must outlive the next POST and the statement recording it.
              if (!(await record(done)) || !(await recording)) return;
              done = [];
              continue;
            }
          }
          if (!inflight.length) break;
          await settle();
          if (failed) {
            // A failure: the rest of the window is answered, then everything is recorded and the failure rate checked.
            while (inflight.length) await settle();
            if (!(await record(done)) || !(await recording)) return;
            done = [];
            failed = false;
          } else if (performance.now() - renewedAt > RECORD_MS) {
            // A slow receiver: the delivery log (and the lease) is brought up to date while the chunk goes on.
            if (!(await record(done))) return;
            done = [];
          }
        }
        if (ctl.signal.aborted) {
          await record(done);
          return;
        }
        const last = ahead === null;
        if (!(await record(done, last)) || last) return;
        want = nextWant;
        due = await ahead;
      }
    } finally {
      keepConnection(w, conn);
      if (released) {
        // The last recording (which gives the lease up) finishes in the background; stop() waits for it.
        const p: Promise<unknown> = recording
          .catch((err) => log?.warn({ err, webhook: w.id }, 'webhook attempts not recorded'))
          .finally(() => background.delete(p));
        background.add(p);
      } else {
        await recording.catch((err) => log?.warn({ err, webhook: w.id }, 'webhook attempts not recorded'));
        await releaseLease(o.db, w.id, id).catch((err) => log?.warn({ err, webhook: w.id }, 'webhook lease release failed'));
      }
    }
  }

  async function loop(): Promise<void> {
    while (!ctl.signal.aborted) {
      let w: (ClaimedWebhook & { due: DueEvent[] }) | null = null;
      // Taken before the claim: a wake() while the claim query runs then cuts the idle wait short.
      const idle = idleCtl.signal;
      try {
        w = await claimWebhook(o.db, id, leaseMs, Math.min(batch, chunk));
        if (w) await serveWebhook(w, w.due);
      } catch (err) {
        if (ctl.signal.aborted) return;
        log?.error({ err, webhook: w?.id }, 'webhook delivery loop error');
        await sleepUnlessAborted(1000, ctl.signal);
        continue;
      }
      if (!w) await sleepUnlessAborted(pollMs, AbortSignal.any([ctl.signal, idle]));
    }
  }

  async function prune(): Promise<void> {
    const retention = o.retentionMs ?? 0;
    if (!(retention > 0)) return;
    while (!ctl.signal.aborted) {
      try {
        const n = await pruneDeliveries(o.db, retention);
        await pruneAttemptCounts(o.db, o.deactivation.windowMs + 60_000);
        if (n) log?.info({ removed: n }, 'webhook deliveries past retention removed');
      } catch (err) {
        if (!ctl.signal.aborted) log?.warn({ err }, 'webhook retention clean-up failed');
      }
      await sleepUnlessAborted(10 * 60_000, ctl.signal);
    }
  }

  // Ingesters in any process NOTIFY after writing events; polling covers lost notifications.
  const unlisten = o.db.listen(WEBHOOK_EVENTS_CHANNEL, wake).catch((err) => {
    log?.warn({ err }, 'webhook worker: LISTEN failed; relying on polling');
    return null;
  });
  const loops = [...Array.from({ length: Math.max(1, o.concurrency) }, loop), prune()];
  log?.info({ concurrency: o.concurrency }, 'webhook delivery worker started');

  return {
    id,
    stats,
    wake,
    async stop() {
      ctl.abort();
      wake();
      await (await unlisten)?.().catch(() => {});
      await Promise.allSettled(loops);
      while (background.size) await Promise.allSettled([...background]);
      await Promise.allSettled([...idleConnections.values()].map((c) => c.conn.close()));
      idleConnections.clear();
      if (!o.agent) await agent.close();
    },
  };
}
