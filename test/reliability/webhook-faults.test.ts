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
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { buildWireTransaction } from '../../src/sources/localnet/demo.js';
import { createApiKey } from '../../src/store/keys.js';
import { createWebhook, setWebhookActive, type WebhookSettings } from '../../src/store/webhooks.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { eventId } from '../../src/webhooks/signing.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { startReceiver, type Behaviour, type Received, type Receiver } from '../webhooks/receiver.js';
import { LONG, record } from './report.js';
import { sleep, until as waitUntil } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SOL = 1_000_000_000n;
const TIMEOUT_MS = 1000;
/** Phase lengths (ms) and the kill period. */
const P = LONG
  ? { random500: 120_000, down: 180_000, slow: 60_000, healthy: 60_000, killEveryMs: 4000 }
  : { random500: 15_000, down: 20_000, slow: 15_000, healthy: 5_000, killEveryMs: 5000 };
const WORKERS = 2;
const DEACT = { rate: '0.9', minAttempts: '5', windowSeconds: '5' };

let net: Localnet;
let t: TestDb;
let rcv: Receiver;
const received: Received[] = [];
let payer: KeyPairSigner;
let keyId: string;
type Hook = { id: string; wallet: string; path: string };
const hooks: Hook[] = [];
let deact: Hook;
const sent: { signature: string; slot: number; to: string; phase: string }[] = [];
const children: ChildProcess[] = [];
const output: string[] = [];
let phase = 'A';

async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const r = await fetch(net.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** One transfer from the payer to `to`, in its own slot. */
async function transfer(to: string): Promise<void> {
  const { value } = await rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>('getLatestBlockhash', []);
  const wire = await buildWireTransaction({
    feePayer: payer, instructions: [getTransferSolInstruction({ source: payer, destination: to as never, amount: 10_000_000n + BigInt(sent.length) })],
    blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight,
  });
  const signature = await rpc<string>('sendTransaction', [Buffer.from(wire).toString('base64'), { encoding: 'base64', skipPreflight: true }]);
  sent.push({ signature, slot: net.chain.produceSlot()!.slot, to, phase });
}


/** Transfers round-robin over `wallets` every `gapMs` until stopped. */
function pump(wallets: () => string[], gapMs = 100): { stop: () => Promise<void> } {
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

/** Worker processes that logged their start (a busy machine takes seconds to start one). */
const ready = new WeakSet<ChildProcess>();

function solgate(args: string[], env: Record<string, string>): ChildProcess {
  const c = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: t.url!, LOG_LEVEL: 'warn', SOLANA_RPC_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  c.stdout!.on('data', (d: Buffer) => {
    if (String(d).includes('webhook delivery worker started')) ready.add(c);
    if (!String(d).includes('"level":30')) output.push(`[${args[0]} ${c.pid}] ${d}`);
  });
  c.stderr!.on('data', (d: Buffer) => output.push(`[${args[0]} ${c.pid}] ${d}`));
  children.push(c);
  return c;
}

const workerEnv = {
  // info: the start line tells when a worker is up (the kill loop only kills while another one is).
  LOG_LEVEL: 'info',
  SOLGATE_WEBHOOK_CONCURRENCY: '4',
  SOLGATE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  SOLGATE_WEBHOOK_RETRY_BASE_MS: '100',
  SOLGATE_WEBHOOK_RETRY_MAX_MS: '400',
  SOLGATE_WEBHOOK_POLL_MS: '50',
  SOLGATE_WEBHOOK_DEACTIVATE_FAILURE_RATE: '0',
  SOLGATE_WEBHOOKS_ALLOW_PRIVATE: 'true',
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
async function openReceiver(port = 0): Promise<Receiver> {
  const r = await startReceiver((req) => (req.path === deact?.path ? { status: deactStatus } : behaviour(req)), port);
  r.received = received;
  return r;
}

const until = (what: string, cond: () => boolean | Promise<boolean>, ms = 120_000) => waitUntil(what, cond, ms, { output, everyMs: 100 });

const sigOf = (r: Received) => {
  const x = JSON.parse(r.body)[0];
  return (x.transaction?.signatures?.[0] ?? x.signature) as string;
};
const deliveredSigs = (h: Hook) => new Set(received.filter((r) => r.path === h.path && r.status === 200).map(sigOf));
const sentTo = (h: Hook) => sent.filter((s) => s.to === h.wallet);
const ingested = async () => (await getCheckpoint(t.db)) ?? -1;
const lastSlot = () => sent.at(-1)?.slot ?? 0;

async function eventSigs(h: Hook): Promise<Set<string>> {
  const { rows } = await t.db.query<{ signature: string }>('SELECT signature FROM webhook_events WHERE webhook_id = $1', [h.id]);
  return new Set(rows.map((r) => r.signature));
}

const hasPostgres = !!process.env.DATABASE_URL;

beforeAll(async () => {
  if (!hasPostgres) return;
  t = await createTestDb();
  net = await createLocalnet({ port: 0, slotMs: 0 });
  rcv = await openReceiver();
  payer = await generateKeyPairSigner();
  const wallets = await Promise.all([0, 1, 2, 3, 4].map(() => generateKeyPairSigner()));
  await rpc('requestAirdrop', [payer.address, Number(1000n * SOL)]);
  net.chain.produceSlot();
  const { record: key } = await createApiKey(t.db, { name: 'reliability-faults', plan: 'developer' });
  keyId = key.id;
  for (const [i, w] of wallets.entries()) {
    const path = i < 4 ? `/hook-${i}` : '/deactivating';
    const settings: WebhookSettings = {
      url: `${rcv.url}${path}`, webhookType: i % 2 ? 'enhanced' : 'raw', transactionTypes: i % 2 ? ['ANY'] : [], accountAddresses: [w.address],
      txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
    };
    const r = await createWebhook(t.db, key.id, settings, 50);
    if (!r.ok) throw new Error('webhook not created');
    const h = { id: r.webhook.id, wallet: w.address, path };
    if (i < 4) hooks.push(h);
    else deact = h;
  }
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await rcv?.close();
  await net?.close();
  await t?.drop();
});

describe.skipIf(!hasPostgres)('webhook delivery under long faults and repeated worker kills (needs DATABASE_URL)', () => {
  it('loses nothing; duplicates keep their event id; first attempts in order; auto-deactivation fires and is reversible', async () => {
    const started = Date.now();
    solgate(['ingest', '--rpc', net.url], { SOLGATE_START_SLOT: '0', SOLGATE_POLL_INTERVAL_MS: '20', SOLGATE_INGEST_FETCH_ACCOUNTS: 'false', SOLGATE_OFFCHAIN_FETCH: 'false' });
    const workers: ChildProcess[] = Array.from({ length: WORKERS }, () => solgate(['worker'], workerEnv));

    // ---- phase A: faults, with a worker SIGKILLed and replaced every few seconds ----
    // A worker is killed only while every worker has started, so one always runs on however busy a machine.
    let kills = 0;
    let killing = true;
    const killer = (async () => {
      while (killing) {
        await sleep(P.killEveryMs);
        while (killing && !workers.every((w) => ready.has(w))) await sleep(100);
        if (!killing) break;
        const i = kills % workers.length;
        workers[i].kill('SIGKILL');
        kills++;
        workers[i] = solgate(['worker'], workerEnv);
      }
    })();
    const traffic = pump(() => hooks.map((h) => h.wallet));
    try {
      await until('first deliveries', () => received.some((r) => r.status === 200));
      behaviour = () => ({ status: Math.random() < 0.5 ? 500 : 200 });
      await sleep(P.random500);
      const port = rcv.port;
      await rcv.close();
      await sleep(P.down);
      behaviour = () => ({ status: 200, delayMs: TIMEOUT_MS + 500 });
      rcv = await openReceiver(port);
      await sleep(P.slow);
      // The slow phase lasts until an attempt timed out (workers restarting after kills may have missed it).
      await until('a timed-out attempt', async () => (await t.db.query(`SELECT 1 FROM webhook_attempts WHERE error LIKE '%timeout%' LIMIT 1`)).rows.length > 0, 60_000);
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
      for (const h of hs) {
        const got = deliveredSigs(h);
        if (!sentTo(h).every((s) => got.has(s.signature))) return false;
      }
      const { rows } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE state <> 'delivered'`);
      return rows[0].n === 0;
    };
    try {
      await until('every phase-A event delivered', () => allDelivered(hooks), LONG ? 600_000 : 120_000);
    } catch (e) {
      const { rows } = await t.db.query('SELECT webhook_id, state, attempts, last_error, next_attempt_at, slot FROM webhook_events WHERE state <> $1 ORDER BY position', ['delivered']);
      throw new Error(`${output.join('').slice(-3000)}\n${(e as Error).message}\nmissing per hook ${hooks.map((h) => sentTo(h).filter((s) => !deliveredSigs(h).has(s.signature)).length)}\n${JSON.stringify(rows.slice(0, 10))}`);
    }
    const phaseAMs = Date.now() - started;

    // ---- phase B: auto-deactivation where configured, and back on ----
    phase = 'B1';
    deactStatus = 500;
    const deactWorker = solgate(['worker'], deactWorkerEnv);
    const activeOf = async () => (await t.db.query<{ active: boolean; deactivated_reason: string | null }>('SELECT active, deactivated_reason FROM webhooks WHERE id = $1', [deact.id])).rows[0];
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
    expect((await setWebhookActive(t.db, keyId, deact.id, true))?.active).toBe(true);
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
    for (const h of [...hooks, deact]) {
      const mine = received.filter((r) => r.path === h.path);
      const want = h === deact ? deactEvents : new Set(sentTo(h).map((s) => s.signature));
      const got = deliveredSigs(h);
      lost += [...want].filter((s) => !got.has(s)).length;
      delivered += [...want].filter((s) => got.has(s)).length;
      // Nothing arrived that does not match the webhook; every request for one transaction carried one event id.
      const ids = new Map<string, Set<string>>();
      for (const r of mine) {
        const sig = sigOf(r);
        expect(want.has(sig), `${h.path}: unexpected ${sig}`).toBe(true);
        ids.set(sig, (ids.get(sig) ?? new Set()).add(String(r.headers['webhook-id'])));
      }
      for (const [sig, set] of ids) expect([...set]).toEqual([eventId(h.id, sig)]);
      duplicates += mine.filter((r) => r.status === 200).length - got.size;
      // First attempts (the attempt log) went out in chain order, one per event.
      const { rows } = await t.db.query<{ position: number }>(
        `SELECT e.position FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id WHERE a.webhook_id = $1 AND a.attempt = 1 ORDER BY a.id`,
        [h.id],
      );
      const positions = rows.map((r) => Number(r.position));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(new Set(positions).size).toBe(want.size);
    }
    const { rows: pend } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE state <> 'delivered'`);
    const { rows: errs } = await t.db.query<{ error: string; n: number }>('SELECT error, count(*)::int AS n FROM webhook_attempts WHERE NOT ok GROUP BY error');
    const failedAttempts = Object.fromEntries(errs.map((e) => [e.error.replace(/\d+ ?ms/g, 'N ms').replace(/127\.0\.0\.1:\d+/g, 'receiver').slice(0, 60), e.n]));
    const figures = {
      variant: LONG ? 'long' : 'short', webhooks: hooks.length + 1, transactionsSent: sent.length,
      eventsExpected: delivered + lost, delivered, lost, duplicates2xx: duplicates, requests: received.length,
      workerKills: kills, deactivations, deactivationReason: off.deactivated_reason, reactivated: true, phaseAMs, totalMs: Date.now() - started,
      downMs: P.down, failedAttemptsByError: failedAttempts,
    };
    record('webhook-faults', figures);
    console.log('webhook faults:', JSON.stringify(figures));
    expect(lost).toBe(0);
    expect(pend[0].n).toBe(0);
    expect(kills).toBeGreaterThanOrEqual(5);
    expect(deactivations).toBe(1);
    // Each kind of fault happened.
    const errors = errs.map((e) => e.error).join('\n');
    expect(errors).toMatch(/HTTP 500/);
    expect(errors).toMatch(/ECONNREFUSED/);
    expect(errors).toMatch(/timeout/);
  }, LONG ? 60 * 60_000 : 10 * 60_000);
});
