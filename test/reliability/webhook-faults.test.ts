/**
 * Webhook delivery under long-running faults (issue #9), extending test/e2e/webhook-faults.test.ts: the built-in
 * localnet (this process) → `solgate ingest` (a child) → PostgreSQL outbox → `solgate worker` children → a local
 * HTTP receiver (this process).
 *
 * Phase A — faults, while transfers keep coming to four watched wallets (two raw, two enhanced webhooks) and a
 * worker process is SIGKILLed every few seconds and replaced: the receiver answers 500 to half the requests at
 * random, then is down (port closed) for 20 s (long: 3 min), then answers slower than the delivery timeout, then
 * recovers. Phase B — auto-deactivation: a fifth webhook's receiver path answers 500 only, a worker started with
 * SOLGATE_WEBHOOK_DEACTIVATE_* (the phase-A workers have it off) switches the webhook off; while it is off its
 * wallet's transactions make no events (documented: a switched-off webhook gets nothing); it is switched back on
 * (store setWebhookActive, what PATCH /v0/webhooks/:id does) and then delivers everything it had queued and
 * everything after.
 *
 * Asserted: zero events lost (every matching transaction reached its webhook with a 2xx, every outbox event ends
 * delivered), duplicates carry the same event id, nothing unexpected arrived, each webhook's first attempts went
 * out in chain order, ≥ 5 kills, the deactivation fired with its reason and was reversed. Recorded: events sent,
 * delivered, lost, duplicates, kills, deactivations.
 *
 * Several processes share one database: PostgreSQL only (DATABASE_URL, as in CI); skipped without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { setWebhookActive } from '../../src/store/webhooks.js';
import { getCheckpoint } from '../../src/store/chain.js';
import type { Behaviour } from '../webhooks/receiver.js';
import {
  TIMEOUT_MS, WORKER_ENV, deliveredTo, expectEachFault, expectHookInvariants, startFaultHarness, undeliveredCount, undeliveredEvents,
  type FaultHarness, type FaultHook as Hook,
} from '../webhooks/fault-harness.js';
import { LONG, record } from './report.js';
import { sleep } from './helpers.js';

const SOL = 1_000_000_000n;
/** Phase lengths (ms) and the kill period. */
const P = LONG
  ? { random500: 120_000, down: 180_000, slow: 60_000, healthy: 60_000, killEveryMs: 4000 }
  : { random500: 15_000, down: 20_000, slow: 15_000, healthy: 5_000, killEveryMs: 5000 };
const WORKERS = 2;
const DEACT = { rate: '0.9', minAttempts: '5', windowSeconds: '5' };

let h: FaultHarness;
const hooks: Hook[] = [];
let deact: Hook;
const sent: { signature: string; slot: number; to: string; phase: string }[] = [];
let phase = 'A';

/** One transfer from the payer to `to`, in its own slot. */
async function transfer(to: Address): Promise<void> {
  sent.push({ ...(await h.transfer(to, sent.length)), to, phase });
}

/** Transfers round-robin over `wallets` every `gapMs` until stopped. */
function pump(wallets: () => Address[], gapMs = 100): { stop: () => Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      const w = wallets();
      await transfer(w[n % w.length]);
      await sleep(gapMs);
    }
  })();
  return { stop: async () => { stopped = true; await loop; } };
}

const workerEnv = {
  ...WORKER_ENV,
  // info: the start line tells when a worker is up (the kill loop only kills while another one is).
  LOG_LEVEL: 'info',
};
const deactWorkerEnv = {
  ...workerEnv,
  SOLGATE_WEBHOOK_DEACTIVATE_FAILURE_RATE: DEACT.rate,
  SOLGATE_WEBHOOK_DEACTIVATE_MIN_ATTEMPTS: DEACT.minAttempts,
  SOLGATE_WEBHOOK_DEACTIVATE_WINDOW_SECONDS: DEACT.windowSeconds,
};

let behaviour: Behaviour = () => ({ status: 200 });
/** The deactivation webhook's path answers on its own. */
let deactStatus = 200;
const behave: Behaviour = (req) => (req.path === deact?.path ? { status: deactStatus } : behaviour(req));

const until = (what: string, cond: () => boolean | Promise<boolean>, ms = 120_000) => h.until(what, cond, ms, 100);

const deliveredSigs = (hook: Hook) => deliveredTo(h.received, hook);
const sentTo = (hook: Hook) => sent.filter((s) => s.to === hook.wallet);
const ingested = async () => (await getCheckpoint(h.t.db)) ?? -1;
const lastSlot = () => sent.at(-1)?.slot ?? 0;

async function eventSigs(hook: Hook): Promise<Set<string>> {
  const { rows } = await h.t.db.query<{ signature: string }>('SELECT signature FROM webhook_events WHERE webhook_id = $1', [hook.id]);
  return new Set(rows.map((r) => r.signature));
}

const hasPostgres = !!process.env.DATABASE_URL;

beforeAll(async () => {
  if (!hasPostgres) return;
  h = await startFaultHarness({ keyName: 'reliability-faults', airdrop: 1000n * SOL, behave });
  const wallets = await Promise.all([0, 1, 2, 3, 4].map(() => generateKeyPairSigner()));
  for (const [i, w] of wallets.entries()) {
    const hook = await h.createHook(w.address, i < 4 ? `/hook-${i}` : '/deactivating', i % 2 ? 'enhanced' : 'raw');
    if (i < 4) hooks.push(hook);
    else deact = hook;
  }
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

describe.skipIf(!hasPostgres)('webhook delivery under long faults and repeated worker kills (needs DATABASE_URL)', () => {
  it('loses nothing; duplicates keep their event id; first attempts in order; auto-deactivation fires and is reversible', async () => {
    const started = Date.now();
    h.ingest();
    const workers: ChildProcess[] = Array.from({ length: WORKERS }, () => h.solgate(['worker'], workerEnv));

    // ---- phase A: faults, with a worker SIGKILLed and replaced every few seconds ----
    // A worker is killed only while every worker has started, so one always runs on however busy a machine.
    let kills = 0;
    let killing = true;
    const killer = (async () => {
      while (killing) {
        await sleep(P.killEveryMs);
        while (killing && !workers.every((w) => h.started(w))) await sleep(100);
        if (!killing) break;
        const i = kills % workers.length;
        workers[i].kill('SIGKILL');
        kills++;
        workers[i] = h.solgate(['worker'], workerEnv);
      }
    })();
    const traffic = pump(() => hooks.map((h) => h.wallet));
    try {
      await until('first deliveries', () => h.received.some((r) => r.status === 200));
      behaviour = () => ({ status: Math.random() < 0.5 ? 500 : 200 });
      await sleep(P.random500);
      await h.receiverDown();
      await sleep(P.down);
      behaviour = () => ({ status: 200, delayMs: TIMEOUT_MS + 500 });
      await h.receiverUp();
      await sleep(P.slow);
      // The slow phase lasts until an attempt timed out (workers restarting after kills may have missed it).
      await until('a timed-out attempt', async () => (await h.t.db.query(`SELECT 1 FROM webhook_attempts WHERE error LIKE '%timeout%' LIMIT 1`)).rows.length > 0, 60_000);
      behaviour = () => ({ status: 200 });
      await sleep(P.healthy);
    } finally {
      await traffic.stop();
      killing = false;
      await killer;
    }
    const phaseAEnd = lastSlot();
    await until('ingest caught up', async () => (await ingested()) >= phaseAEnd, 60_000);
    const allDelivered = async (hs: Hook[]) => {
      for (const hook of hs) {
        const got = deliveredSigs(hook);
        if (!sentTo(hook).every((s) => got.has(s.signature))) return false;
      }
      return (await undeliveredCount(h.t.db)) === 0;
    };
    try {
      await until('every phase-A event delivered', () => allDelivered(hooks), LONG ? 600_000 : 120_000);
    } catch (e) {
      const rows = await undeliveredEvents(h.t.db);
      throw new Error(`${h.output.join('').slice(-3000)}\n${(e as Error).message}\nmissing per hook ${hooks.map((hook) => sentTo(hook).filter((s) => !deliveredSigs(hook).has(s.signature)).length)}\n${JSON.stringify(rows)}`);
    }
    const phaseAMs = Date.now() - started;

    // ---- phase B: auto-deactivation where configured, and back on ----
    phase = 'B1';
    deactStatus = 500;
    const deactWorker = h.solgate(['worker'], deactWorkerEnv);
    const activeOf = async () => (await h.t.db.query<{ active: boolean; deactivated_reason: string | null }>('SELECT active, deactivated_reason FROM webhooks WHERE id = $1', [deact.id])).rows[0];
    const b1 = pump(() => [deact.wallet, ...hooks.map((h) => h.wallet)], 150);
    try {
      await until('auto-deactivation', async () => !(await activeOf()).active, 120_000);
    } finally {
      await b1.stop();
    }
    const off = await activeOf();
    const deactivations = off.active ? 0 : 1;
    expect(off.deactivated_reason).toMatch(/failure rate .* reached the threshold of 90\.0%/);
    await until('ingest caught up (B1)', async () => (await ingested()) >= lastSlot(), 60_000);
    // While off: its wallet's transactions make no events (the other webhooks keep going).
    phase = 'B2';
    const b2Before = (await eventSigs(deact)).size;
    for (let i = 0; i < 6; i++) await transfer(i % 2 ? deact.wallet : hooks[i % hooks.length].wallet);
    await until('ingest caught up (B2)', async () => (await ingested()) >= lastSlot(), 60_000);
    expect((await eventSigs(deact)).size).toBe(b2Before);
    // Back on: the receiver accepts again, the webhook is switched on and delivers everything queued and new.
    phase = 'B3';
    deactStatus = 200;
    expect((await setWebhookActive(h.t.db, h.keyId, deact.id, true))?.active).toBe(true);
    for (let i = 0; i < 6; i++) await transfer(i % 2 ? deact.wallet : hooks[i % hooks.length].wallet);
    await until('ingest caught up (B3)', async () => (await ingested()) >= lastSlot(), 60_000);
    const deactEvents = await eventSigs(deact);
    await until('deactivating webhook delivered everything', async () => {
      const got = deliveredSigs(deact);
      return [...deactEvents].every((s) => got.has(s)) && allDelivered(hooks);
    }, 120_000);
    deactWorker.kill('SIGTERM');

    // ---- invariants ----
    // The deactivating webhook: every B1 transaction with an event is delivered; those without one were indexed
    // after the switch-off (a suffix of B1 in chain order); no B2 transaction has an event; every B3 one does.
    const b1Sent = sentTo(deact).filter((s) => s.phase === 'B1');
    const withEvent = b1Sent.map((s) => deactEvents.has(s.signature));
    expect(withEvent.indexOf(false) === -1 || withEvent.slice(withEvent.indexOf(false)).every((x) => !x), JSON.stringify(withEvent)).toBe(true);
    expect(withEvent.filter(Boolean).length).toBeGreaterThan(0);
    for (const s of sentTo(deact).filter((x) => x.phase === 'B2')) expect(deactEvents.has(s.signature)).toBe(false);
    for (const s of sentTo(deact).filter((x) => x.phase === 'B3')) expect(deactEvents.has(s.signature)).toBe(true);

    let duplicates = 0;
    let delivered = 0;
    let lost = 0;
    for (const hook of [...hooks, deact]) {
      const want = hook === deact ? deactEvents : new Set(sentTo(hook).map((s) => s.signature));
      const got = deliveredSigs(hook);
      lost += [...want].filter((s) => !got.has(s)).length;
      delivered += [...want].filter((s) => got.has(s)).length;
      // Nothing arrived that does not match the webhook; every request for one transaction carried one event id;
      // first attempts (the attempt log) went out in chain order, one per event.
      const mine = await expectHookInvariants(h.t.db, h.received, hook, want);
      duplicates += mine.filter((r) => r.status === 200).length - got.size;
    }
    const pending = await undeliveredCount(h.t.db);
    const { rows: errs } = await h.t.db.query<{ error: string; n: number }>('SELECT error, count(*)::int AS n FROM webhook_attempts WHERE NOT ok GROUP BY error');
    const failedAttempts = Object.fromEntries(errs.map((e) => [e.error.replace(/\d+ ?ms/g, 'N ms').replace(/127\.0\.0\.1:\d+/g, 'receiver').slice(0, 60), e.n]));
    const figures = {
      variant: LONG ? 'long' : 'short', webhooks: hooks.length + 1, transactionsSent: sent.length,
      eventsExpected: delivered + lost, delivered, lost, duplicates2xx: duplicates, requests: h.received.length,
      workerKills: kills, deactivations, deactivationReason: off.deactivated_reason, reactivated: true, phaseAMs, totalMs: Date.now() - started,
      downMs: P.down, failedAttemptsByError: failedAttempts,
    };
    record('webhook-faults', figures);
    console.log('webhook faults:', JSON.stringify(figures));
    expect(lost).toBe(0);
    expect(pending).toBe(0);
    expect(kills).toBeGreaterThanOrEqual(5);
    expect(deactivations).toBe(1);
    // Each kind of fault happened.
    expectEachFault(errs.map((e) => e.error).join('\n'));
  }, LONG ? 60 * 60_000 : 10 * 60_000);
});
