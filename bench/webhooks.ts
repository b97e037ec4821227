/**
 * Webhook delivery: events/s delivered to a local receiver per `solgate worker` process, and the latency from a
 * block's write to the POST reaching the receiver. A measurement: it never asserts on speed.
 *
 * Setup: a throwaway PostgreSQL database (worker processes need a shared server: DATABASE_URL, default the local
 * postgres://postgres@127.0.0.1:5432/postgres), a receiver in a child process (bench/gen/webhook-receiver.ts: answers
 * 200, records arrival time + `webhook-id`), mainnet-shaped blocks (bench/gen/mainnet-blocks.ts; only the non-vote
 * part of a block is generated — the ingester skips votes), and N webhooks (alternately raw and enhanced/ANY) watching
 * busy wallets of the generated population, chosen from a sample of blocks so that every webhook gets a similar share
 * (the very hottest wallets are skipped: one webhook is delivered serially, so a webhook with a fifth of all events
 * would measure that webhook's serial rate, not the worker's).
 *
 * 1. Throughput. Blocks are ingested with no worker running until the outbox holds ≥ --events events; they are
 *    parked (due tomorrow). Then 1 (and then 2) `solgate worker` processes are started and, once they are up, every
 *    event is made due at once (with the NOTIFY an ingester's write sends); the clock runs from that UPDATE to the
 *    last arrival at the receiver. Between runs
 *    the outbox is reset by UPDATE (+ VACUUM). Same-run baseline: the receiver's ceiling — the same POSTs (same
 *    bodies, same signed headers) sent from this process by undici with the same concurrency, no database
 *    (measured before and after the worker runs). Each run also reports where the cores went, as CPU ms per event of
 *    the senders (worker processes, or this process for the ceiling), PostgreSQL's processes and the receiver.
 * 2. Latency. Blocks are written one at a time every 400 ms (mainnet's slot time) for --seconds, with (a) the
 *    in-process worker (as `solgate serve` runs it: startDeliveryWorker, woken by the ingester) and (b) one
 *    `solgate worker` process (woken by the ingester's NOTIFY, polling every SOLGATE_WEBHOOK_POLL_MS as the
 *    fallback). Latency = arrival at the receiver − the
 *    event's `queued_at` (the DB time at which the block's write transaction started, so it slightly overstates
 *    commit → POST; the figure from the moment the write returned to the ingester, which understates it, is shown
 *    too). Same-run baseline: a direct POST (send → arrival), one at a time.
 *
 *   npm run bench -- webhooks [--events 20000] [--webhooks 20] [--addresses 5] [--concurrency 8] [--seconds 30]
 *                             [--poll-ms 250] [--txs-per-block 390] [--seed 42]
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import type { Block } from '../src/core/model.js';
import { createIngester, type Ingester } from '../src/ingest/pipeline.js';
import { parseJsonLossless } from '../src/sources/json.js';
import { normalizeRpcBlock } from '../src/sources/normalize-rpc.js';
import type { Db } from '../src/store/db.js';
import { createApiKey } from '../src/store/keys.js';
import { WEBHOOK_EVENTS_CHANNEL } from '../src/store/webhook-events.js';
import { createWebhook, type WebhookType } from '../src/store/webhooks.js';
import { watchedAddresses } from '../src/webhooks/match.js';
import { deliveryHeaders, eventId } from '../src/webhooks/signing.js';
import { deliveryBody } from '../src/webhooks/delivery-body.js';
import { startDeliveryWorker, type DeliveryWorker } from '../src/webhooks/worker.js';
import { MainnetBlockGenerator } from './gen/mainnet-blocks.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { DEFAULT_DATABASE_URL, openKeptBenchDb } from './lib/kept-db.js';
import { fmt, machineInfo, machineLine, REPO_ROOT, table, writeResult, type Machine } from './lib/report.js';
import { cpuSeconds, readCpu, type CpuReading } from './lib/proc-cpu.js';
import { percentiles, sleep, stopChild, type Percentiles } from './lib/samples.js';

/** One-line summary for `bench/run.ts --help`. */
export const description = 'webhook delivery: events/s per `solgate worker` process vs the receiver ceiling; block write → POST p50/p99 (in-process and worker process) vs a direct POST';

/** ≈ 6 minutes on the 2-core development machine (block generation alone ≈ 1.5 min). */
export const onlyWhenNamed = true;

const here = dirname(fileURLToPath(import.meta.url));
const SLOT_MS = 400;
const nowMs = () => performance.timeOrigin + performance.now();


export interface ThroughputRun {
  label: string;
  processes: number;
  events: number;
  /** From making the events due (or the first send) to the last arrival. */
  seconds: number;
  eventsPerSec: number;
  eventsPerSecPerProcess: number;
  /** First arrival → last arrival (excludes the idle poll before the first claim). */
  steadyEventsPerSec: number;
  /** Ratio to the mean receiver ceiling. */
  ratio: number;
  duplicates: number;
  /** Deliveries per worker (from the attempt log). */
  perWorker?: number[];
  loadAvg: number;
  /**
   * CPU time per event during the run (Linux `/proc`): the worker processes (for the ceiling: this process, which
   * sends), every PostgreSQL process of the machine, and the receiver. Absent where `/proc` is not readable.
   */
  cpuMsPerEvent?: { sender: number; postgres: number; receiver: number };
}

export interface LatencyRun {
  label: string;
  blocks: number;
  events: number;
  /** Arrival − queued_at (start of the block's write transaction, DB clock). */
  fromQueued: Percentiles;
  /** Arrival − the moment ingestBlocks resolved in the benchmark process (after the commit). */
  fromWriteReturned: Percentiles;
  /** How long the block writes took (handoff to ingestBlocks → resolved). */
  blockWrite: Percentiles;
  /** Blocks whose write started later than its 400 ms tick (the ingester fell behind). */
  lateTicks: number;
  missing: number;
  duplicates: number;
  /** p50/p99 ratio to the direct POST baseline. */
  p50Ratio: number;
  p99Ratio: number;
  loadAvg: number;
}

export interface WebhooksResult {
  config: { events: number; webhooks: number; addresses: number; concurrency: number; seconds: number; pollMs: number; txsPerBlock: number; seed: number };
  database: string;
  workload: { blocks: number; transactions: number; events: number; eventsPerBlock: number; payloads: number; bodyKB: number; perWebhookMin: number; perWebhookMax: number; rawWebhooks: number; enhancedWebhooks: number; skippedHottestWallets: number; fillSeconds: number };
  throughput: { ceiling: ThroughputRun[]; workers: ThroughputRun[] };
  latency: { directPost: Percentiles; runs: LatencyRun[] };
  machine: Machine;
  databaseGB: number;
  loadAvg: number[];
  node: string;
  timestamp: string;
}


// ---------------------------------------------------------------------------------------------------------------
// Child processes.

interface ReceiverHandle {
  child: ChildProcess;
  url: string;
  take(): Promise<{ ids: string[]; at: number[]; bytes: number }>;
  count(): Promise<number>;
}

async function startReceiver(children: ChildProcess[]): Promise<ReceiverHandle> {
  const child = fork(join(here, 'gen', 'webhook-receiver.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('webhooks: receiver did not start within 60 s')), 60_000);
    child.once('message', (m: { port?: number }) => {
      clearTimeout(timer);
      if (m.port) resolve(m.port);
      else reject(new Error(`webhooks: receiver sent ${JSON.stringify(m)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`webhooks: receiver exited with ${code}`));
    });
  });
  child.on('error', () => {}); // a send after the receiver went away is reported through ask()
  let seq = 0;
  const ask = <T>(cmd: string) =>
    new Promise<T>((resolve, reject) => {
      if (!child.connected) return reject(new Error('webhooks: the receiver is gone'));
      const s = ++seq;
      const on = (m: { seq?: number }) => {
        if (m.seq !== s) return;
        off();
        resolve(m as T);
      };
      const gone = () => {
        off();
        reject(new Error('webhooks: the receiver is gone'));
      };
      const off = () => {
        child.off('message', on);
        child.off('disconnect', gone);
      };
      child.on('message', on);
      child.once('disconnect', gone);
      child.send({ cmd, seq: s }, (err) => {
        if (err) gone();
      });
    });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    take: () => ask('take'),
    count: async () => (await ask<{ count: number }>('count')).count,
  };
}

interface WorkerProcess {
  child: ChildProcess;
  ready: Promise<void>;
  output: string[];
}

/** Starts `solgate worker` (bin/solgate.js) against `url`; `ready` resolves once it logs that it delivers. */
function startWorkerProcess(url: string, env: Record<string, string>, children: ChildProcess[]): WorkerProcess {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'solgate.js'), 'worker'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info', SOLANA_RPC_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`webhooks: solgate worker did not start within 60 s\n${output.join('')}`)), 60_000);
    const onData = (d: Buffer) => {
      const s = d.toString();
      output.push(s);
      if (output.length > 50) output.shift();
      if (s.includes('delivering webhooks')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`webhooks: solgate worker exited (${code ?? signal})\n${output.join('')}`));
    });
  });
  ready.catch(() => {});
  return { child, ready, output };
}


// ---------------------------------------------------------------------------------------------------------------
// Workload.

/** Mainnet-shaped blocks, normalised as the RPC source would hand them to the ingester (votes skipped). */
class Blocks {
  private readonly gen: MainnetBlockGenerator;
  generateMs = 0;
  constructor(seed: number, txsPerBlock: number) {
    // Only the non-vote part of a block: the ingester skips votes, so generating them would only cost time.
    this.gen = new MainnetBlockGenerator({ seed, txsPerBlock, voteShare: 0 });
  }
  /** The population's wallets (the generator keeps them private). */
  get wallets(): readonly string[] {
    return (this.gen as unknown as { pop: { wallets: string[] } }).pop.wallets;
  }
  next(): Block {
    const t = performance.now();
    const b = this.gen.next();
    const text = JSON.stringify({ jsonrpc: '2.0', result: b.result, id: b.slot });
    const block = normalizeRpcBlock((parseJsonLossless(text) as { result: unknown }).result, b.slot, { skipVotes: true });
    this.generateMs += performance.now() - t;
    return block;
  }
  take(n: number): Block[] {
    return Array.from({ length: n }, () => this.next());
  }
}

/**
 * Picks `webhooks × addresses` busy wallets from `sample` and deals them to the webhooks so that each gets a similar
 * number of matching transactions: wallets are ranked by the transactions they appear in (watched addresses, as the
 * matcher sees them); the hottest are skipped while one alone would carry more than a webhook's fair share; the rest
 * go, hottest first, to the webhook with the fewest matches so far.
 */
function chooseAddresses(sample: Block[], wallets: readonly string[], webhooks: number, addresses: number): { sets: string[][]; expected: number[]; skipped: number } {
  const isWallet = new Set(wallets);
  const counts = new Map<string, number>();
  for (const b of sample)
    for (const tx of b.transactions) {
      if (tx.isVote) continue;
      for (const a of watchedAddresses(tx)) if (isWallet.has(a)) counts.set(a, (counts.get(a) ?? 0) + 1);
    }
  const ranked = [...counts.entries()].sort((x, y) => y[1] - x[1]);
  const k = webhooks * addresses;
  let start = 0;
  const fair = (s: number) => ranked.slice(s, s + k).reduce((sum, [, n]) => sum + n, 0) / webhooks;
  while (start + k < ranked.length && ranked[start][1] > fair(start)) start++;
  const sets: string[][] = Array.from({ length: webhooks }, () => []);
  const expected = new Array<number>(webhooks).fill(0);
  for (const [addr, n] of ranked.slice(start, start + k)) {
    let best = 0;
    for (let i = 1; i < webhooks; i++) if (sets[i].length < addresses && (expected[i] < expected[best] || sets[best].length >= addresses)) best = i;
    sets[best].push(addr);
    expected[best] += n;
  }
  return { sets, expected, skipped: start };
}

// ---------------------------------------------------------------------------------------------------------------

interface Hook {
  id: string;
  type: WebhookType;
  secret: string;
  path: string;
}

export async function run(argv: string[] = []): Promise<WebhooksResult> {
  const flags = parseFlags(argv);
  const config = {
    events: Math.max(1, numberFlag(flags, 'events', 20_000)),
    webhooks: Math.max(1, numberFlag(flags, 'webhooks', 20)),
    addresses: Math.max(1, numberFlag(flags, 'addresses', 5)),
    concurrency: Math.max(1, numberFlag(flags, 'concurrency', 8)),
    seconds: Math.max(1, numberFlag(flags, 'seconds', 30)),
    pollMs: Math.max(10, numberFlag(flags, 'poll-ms', 250)),
    txsPerBlock: Math.max(10, numberFlag(flags, 'txs-per-block', 390)),
    seed: numberFlag(flags, 'seed', 42),
  };
  const log = (s = '') => process.stdout.write(`${s}\n`);
  if (!process.env.DATABASE_URL) {
    log(`webhooks: DATABASE_URL is unset — using ${DEFAULT_DATABASE_URL} (worker processes need a shared PostgreSQL server; PGlite is in-process only)`);
  }

  const bench = await openKeptBenchDb({ prefix: 'webhooks', stages: [], keep: false, fresh: true, stableName: 'solgate_bench_webhooks', want: {}, poolSize: 10 });
  const db = bench.db;
  const children: ChildProcess[] = [];
  let inProcess: DeliveryWorker | null = null;
  // Once, whoever comes first (the run's end or a signal); later callers wait for the same clean-up.
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await inProcess?.stop().catch(() => {});
      await Promise.all(children.map((c) => stopChild(c).catch(() => {})));
      await bench.close().catch((e: unknown) => log(`webhooks: cleanup: ${String(e)}`));
    })());
  const onSignal = () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const database = `PostgreSQL ${bench.serverVersion} (throwaway database ${bench.name})`;
    log(`webhooks: database ${bench.name} on PostgreSQL ${bench.serverVersion}`);
    const receiver = await startReceiver(children);
    log(`webhooks: receiver (child process) at ${receiver.url}`);

    // --- Webhooks on busy wallets of a sample of blocks.
    const blocks = new Blocks(config.seed, config.txsPerBlock);
    const sample = blocks.take(10);
    const chosen = chooseAddresses(sample, blocks.wallets, config.webhooks, config.addresses);
    const { record } = await createApiKey(db, { name: 'bench-webhooks', plan: 'developer' });
    const hooks: Hook[] = [];
    for (let i = 0; i < config.webhooks; i++) {
      const type: WebhookType = i % 2 ? 'enhanced' : 'raw';
      const path = `/hook-${i}`;
      const r = await createWebhook(db, record.id, {
        url: `${receiver.url}${path}`, webhookType: type, transactionTypes: type === 'raw' ? [] : ['ANY'], accountAddresses: chosen.sets[i],
        txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
      }, config.webhooks);
      if (!r.ok) throw new Error('webhooks: webhook not created');
      hooks.push({ id: r.webhook.id, type, secret: r.webhook.secret, path });
    }
    const hookById = new Map(hooks.map((h) => [h.id, h]));
    log(`webhooks: ${config.webhooks} webhooks (raw / enhanced ANY alternately) × ${config.addresses} wallets; the ${chosen.skipped} hottest wallets skipped; expected matches per webhook in the sample ${Math.min(...chosen.expected)}–${Math.max(...chosen.expected)}`);

    // --- Fill the outbox with no worker running.
    const ingester = createIngester(db);
    let filled = 0;
    let fillBlocks = 0;
    let txs = 0;
    const fillStart = performance.now();
    let pending: Block[] = sample;
    while (filled < config.events) {
      const batch = pending.length ? pending.splice(0, 4) : blocks.take(4);
      await ingester.ingestBlocks(batch);
      fillBlocks += batch.length;
      txs += batch.reduce((s, b) => s + b.transactions.length, 0);
      filled = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events')).rows[0].n;
    }
    await ingester.settle();
    const fillSeconds = (performance.now() - fillStart) / 1000;
    const E = filled;
    const per = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events GROUP BY webhook_id')).rows.map((r) => r.n);
    log(`webhooks: outbox filled: ${fmt(E)} events from ${fillBlocks} blocks (${fmt(txs)} non-vote txs, ${fmt(E / fillBlocks)} events/block, ${Math.min(...per)}–${Math.max(...per)} per webhook) in ${fmt(fillSeconds)} s (generation ${fmt(blocks.generateMs / 1000)} s)`);

    // The bodies as the worker builds them, for the ceiling.
    const events = (await db.query<{ webhook_id: string; signature: string; raw: string | null; enhanced: string | null }>(
      `SELECT e.webhook_id::text AS webhook_id, e.signature, p.raw, p.enhanced FROM webhook_events e JOIN webhook_payloads p ON p.signature = e.signature ORDER BY e.position`,
    )).rows.map((r) => {
      const h = hookById.get(r.webhook_id)!;
      const built = deliveryBody({ webhookType: h.type }, { raw: r.raw, enhanced: r.enhanced });
      if ('error' in built) throw new Error(`webhooks: no body for ${r.signature}: ${built.error}`);
      return { hook: h, signature: r.signature, body: built.body };
    });
    const payloads = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_payloads')).rows[0].n;
    const bodyKB = events.reduce((s, e) => s + e.body.length, 0) / events.length / 1024;
    log(`webhooks: ${fmt(payloads)} payloads, mean body ${fmt(bodyKB)} KB`);

    // Parks every event (not due) and clears what a delivery run leaves behind, so each run starts alike.
    const park = async () => {
      await db.query(`UPDATE webhook_events SET state = 'pending', attempts = 0, last_attempt_at = NULL, last_status = NULL, last_error = NULL,
                        delivered_at = NULL, delivered_latency_ms = NULL, delivered_by = NULL, next_attempt_at = now() + interval '1 day'`);
      await db.query('TRUNCATE webhook_attempts');
      await db.query('DELETE FROM webhook_leases');
      await db.query('VACUUM ANALYZE webhook_events');
      await db.query('VACUUM ANALYZE webhook_attempts');
      await receiver.take();
    };
    await park();

    const arrivalsOf = async (expected: number, timeoutMs: number, label: string) => {
      const deadline = Date.now() + timeoutMs;
      while ((await receiver.count()) < expected) {
        if (Date.now() > deadline) throw new Error(`webhooks: ${label}: only ${await receiver.count()} of ${expected} deliveries arrived within ${timeoutMs / 1000} s`);
        await sleep(100);
      }
      return receiver.take();
    };
    const duplicatesOf = (ids: string[]) => ids.length - new Set(ids).size;

    const cpuPerEvent = (before: CpuReading, senders: readonly number[], events: number): ThroughputRun['cpuMsPerEvent'] => {
      const after = readCpu();
      if (!after.size) return undefined;
      const ms = (o: Parameters<typeof cpuSeconds>[2]) => Number(((cpuSeconds(before, after, o) * 1000) / events).toFixed(3));
      return { sender: ms({ pids: senders }), postgres: ms({ postgres: true }), receiver: ms({ pids: [receiver.child.pid ?? -1] }) };
    };

    // --- Ceiling: the same POSTs straight from this process (undici, same concurrency, no database).
    const ceilingRun = async (label: string): Promise<ThroughputRun> => {
      const pool = new Pool(receiver.url, { connections: config.concurrency, keepAliveTimeout: 10_000 });
      let next = 0;
      const cpu0 = readCpu();
      const t0 = nowMs();
      await Promise.all(Array.from({ length: config.concurrency }, async () => {
        while (next < events.length) {
          const e = events[next++];
          const headers = deliveryHeaders({ webhookId: e.hook.id, signature: e.signature, secret: e.hook.secret, body: e.body, authHeader: null, nowMs: Date.now() });
          const res = await pool.request({ path: e.hook.path, method: 'POST', headers, body: e.body });
          await res.body.dump();
          if (res.statusCode !== 200) throw new Error(`webhooks: receiver answered ${res.statusCode}`);
        }
      }));
      const t1 = nowMs();
      await pool.close();
      const got = await arrivalsOf(events.length, 30_000, label);
      const cpu = cpuPerEvent(cpu0, [process.pid], events.length);
      const seconds = (t1 - t0) / 1000;
      const r: ThroughputRun = {
        label, processes: 1, events: events.length, seconds: Number(seconds.toFixed(2)), eventsPerSec: Math.round(events.length / seconds),
        eventsPerSecPerProcess: Math.round(events.length / seconds), steadyEventsPerSec: Math.round((events.length - 1) / ((Math.max(...got.at) - Math.min(...got.at)) / 1000)),
        ratio: 1, duplicates: duplicatesOf(got.ids), loadAvg: Number(loadavg()[0].toFixed(2)), cpuMsPerEvent: cpu,
      };
      log(`webhooks: ${label}: ${fmt(r.eventsPerSec)} POST/s (${fmt(seconds)} s)`);
      return r;
    };

    const workerEnv = {
      SOLGATE_WEBHOOK_CONCURRENCY: String(config.concurrency),
      SOLGATE_WEBHOOK_POLL_MS: String(config.pollMs),
      SOLGATE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      SOLGATE_WEBHOOK_DEACTIVATE_FAILURE_RATE: '0',
    };

    // --- Worker processes draining the whole outbox.
    const workerRun = async (processes: number): Promise<ThroughputRun> => {
      const label = `${processes} solgate worker process${processes > 1 ? 'es' : ''}`;
      const procs = Array.from({ length: processes }, () => startWorkerProcess(bench.url, workerEnv, children));
      await Promise.all(procs.map((p) => p.ready));
      await sleep(500);
      const cpu0 = readCpu();
      const t0 = nowMs();
      // With the NOTIFY an ingester's write sends (workers wake at the commit, as for newly queued events).
      await db.tx(async (q) => {
        await q.query('UPDATE webhook_events SET next_attempt_at = now()');
        await q.query(`NOTIFY ${WEBHOOK_EVENTS_CHANNEL}`);
      });
      const got = await arrivalsOf(E, Math.max(180_000, E * 20), label).catch((e: unknown) => {
        throw new Error(`${(e as Error).message}\n${procs.map((p) => p.output.join('')).join('\n')}`);
      });
      const cpu = cpuPerEvent(cpu0, procs.map((p) => p.child.pid ?? -1), E);
      const last = Math.max(...got.at);
      const first = Math.min(...got.at);
      // Every delivery recorded before the workers stop.
      const deadline = Date.now() + 30_000;
      while ((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE state = 'delivered'`)).rows[0].n < E) {
        if (Date.now() > deadline) throw new Error(`webhooks: ${label}: deliveries not recorded`);
        await sleep(100);
      }
      const loadAvg = Number(loadavg()[0].toFixed(2));
      await Promise.all(procs.map((p) => stopChild(p.child)));
      // Successful attempts are kept in their event's row (migration 052), failed ones in the attempt log.
      const perWorker = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE delivered_latency_ms IS NOT NULL GROUP BY delivered_by ORDER BY 1 DESC')).rows.map((r) => r.n);
      const seconds = (last - t0) / 1000;
      const r: ThroughputRun = {
        label, processes, events: E, seconds: Number(seconds.toFixed(2)), eventsPerSec: Math.round(E / seconds), eventsPerSecPerProcess: Math.round(E / seconds / processes),
        steadyEventsPerSec: Math.round((E - 1) / ((last - first) / 1000)), ratio: 0, duplicates: duplicatesOf(got.ids), perWorker, loadAvg,
        cpuMsPerEvent: cpu,
      };
      log(`webhooks: ${label}: ${fmt(r.eventsPerSec)} events/s (${fmt(seconds)} s; per worker ${perWorker.join(' / ')})`);
      return r;
    };

    const ceilingBefore = await ceilingRun('receiver ceiling (before)');
    await park();
    const one = await workerRun(1);
    await park();
    const two = await workerRun(2);
    await park();
    const ceilingAfter = await ceilingRun('receiver ceiling (after)');
    const ceilingMean = (ceilingBefore.eventsPerSec + ceilingAfter.eventsPerSec) / 2;
    for (const r of [one, two]) r.ratio = Number((r.eventsPerSec / ceilingMean).toFixed(3));
    // The parked events are not needed any more: mark them delivered so nothing is due during the latency runs.
    await db.query(`UPDATE webhook_events SET state = 'delivered', delivered_at = now()`);

    // --- Latency baseline: a direct POST, one at a time (send → arrival at the receiver).
    const direct: number[] = [];
    {
      const pool = new Pool(receiver.url, { connections: 1 });
      const n = Math.min(500, events.length);
      const sent: number[] = [];
      for (let i = 0; i < n; i++) {
        const e = events[Math.floor((i * events.length) / n)];
        const headers = deliveryHeaders({ webhookId: e.hook.id, signature: e.signature, secret: e.hook.secret, body: e.body, authHeader: null, nowMs: Date.now() });
        sent.push(nowMs());
        const res = await pool.request({ path: e.hook.path, method: 'POST', headers, body: e.body });
        await res.body.dump();
        await sleep(2);
      }
      await pool.close();
      const got = await arrivalsOf(n, 30_000, 'direct POST');
      for (let i = 0; i < n; i++) direct.push(got.at[i] - sent[i]);
    }
    const directPost = percentiles(direct);
    log(`webhooks: direct POST (send → arrival), one at a time: p50 ${fmt(directPost.p50Ms)} ms, p99 ${fmt(directPost.p99Ms)} ms`);

    // --- Latency under live ingestion, one block every 400 ms.
    const ticks = Math.ceil((config.seconds * 1000) / SLOT_MS);
    const livePhase = async (label: string, ing: Ingester, liveBlocks: Block[]): Promise<LatencyRun> => {
      const written = new Map<number, number>();
      const writeMs: number[] = [];
      let late = 0;
      const start = nowMs() + 100;
      for (let k = 0; k < liveBlocks.length; k++) {
        const due = start + k * SLOT_MS;
        const wait = due - nowMs();
        if (wait > 0) await sleep(wait);
        else if (wait < -50) late++;
        const t0 = nowMs();
        await ing.ingestBlocks([liveBlocks[k]]);
        const t1 = nowMs();
        written.set(liveBlocks[k].slot, t1);
        writeMs.push(t1 - t0);
      }
      const loadAvg = Number(loadavg()[0].toFixed(2));
      const lo = liveBlocks[0].slot;
      const hi = liveBlocks[liveBlocks.length - 1].slot;
      const rows = (await db.query<{ webhook_id: string; signature: string; slot: number; q: number }>(
        `SELECT webhook_id::text AS webhook_id, signature, slot, (extract(epoch FROM queued_at) * 1000)::float8 AS q FROM webhook_events WHERE slot BETWEEN $1 AND $2`,
        [lo, hi],
      )).rows;
      const got = await arrivalsOf(rows.length, 120_000, label);
      const firstArrival = new Map<string, number>();
      for (let i = 0; i < got.ids.length; i++) if (!firstArrival.has(got.ids[i])) firstArrival.set(got.ids[i], got.at[i]);
      const fromQueued: number[] = [];
      const fromWritten: number[] = [];
      let missing = 0;
      for (const r of rows) {
        const a = firstArrival.get(eventId(r.webhook_id, r.signature));
        if (a === undefined) {
          missing++;
          continue;
        }
        fromQueued.push(a - r.q);
        fromWritten.push(a - written.get(Number(r.slot))!);
      }
      await ing.settle();
      const run: LatencyRun = {
        label, blocks: liveBlocks.length, events: rows.length, fromQueued: percentiles(fromQueued), fromWriteReturned: percentiles(fromWritten),
        blockWrite: percentiles(writeMs), lateTicks: late, missing, duplicates: duplicatesOf(got.ids), p50Ratio: 0, p99Ratio: 0, loadAvg,
      };
      run.p50Ratio = Number((run.fromQueued.p50Ms / directPost.p50Ms).toFixed(1));
      run.p99Ratio = Number((run.fromQueued.p99Ms / directPost.p99Ms).toFixed(1));
      log(`webhooks: ${label}: ${fmt(run.events)} events from ${run.blocks} blocks; queued_at → arrival p50 ${fmt(run.fromQueued.p50Ms)} ms, p99 ${fmt(run.fromQueued.p99Ms)} ms`);
      return run;
    };

    // (a) In-process worker woken by the ingester (as `solgate serve` delivers).
    let liveBlocks = blocks.take(ticks);
    inProcess = startDeliveryWorker({
      db, concurrency: config.concurrency, timeoutMs: 10_000,
      retry: { baseMs: 60_000, maxMs: 3_600_000, windowMs: 86_400_000 },
      deactivation: { failureRate: 0, windowMs: 3_600_000, minAttempts: 100 },
      ssrf: { allowPrivate: true }, pollMs: config.pollMs,
    });
    const worker = inProcess;
    const inProc = await livePhase('in-process worker (woken by the ingester)', createIngester(db, undefined, { onWebhookEvents: () => worker.wake() }), liveBlocks);
    await inProcess.stop();
    inProcess = null;

    // (b) One `solgate worker` process: woken by the ingester's NOTIFY (src/ingest/webhook-stage.ts), polling as the fallback.
    liveBlocks = blocks.take(ticks);
    const proc = startWorkerProcess(bench.url, workerEnv, children);
    await proc.ready;
    await sleep(500);
    const viaProcess = await livePhase(`solgate worker process (NOTIFY; poll ${config.pollMs} ms)`, createIngester(db), liveBlocks);
    await stopChild(proc.child);

    const sharedBuffers = (await db.query<{ v: string }>("SELECT current_setting('shared_buffers') AS v")).rows[0].v;
    const sizeGB = (await db.query<{ n: number }>('SELECT pg_database_size(current_database())::float8 AS n')).rows[0].n / 1e9;
    const result: WebhooksResult = {
      config,
      database,
      workload: {
        blocks: fillBlocks, transactions: txs, events: E, eventsPerBlock: Number((E / fillBlocks).toFixed(1)), payloads, bodyKB: Number(bodyKB.toFixed(2)),
        perWebhookMin: Math.min(...per), perWebhookMax: Math.max(...per), rawWebhooks: hooks.filter((h) => h.type === 'raw').length,
        enhancedWebhooks: hooks.filter((h) => h.type === 'enhanced').length, skippedHottestWallets: chosen.skipped, fillSeconds: Number(fillSeconds.toFixed(1)),
      },
      throughput: { ceiling: [ceilingBefore, ceilingAfter], workers: [one, two] },
      latency: { directPost, runs: [inProc, viaProcess] },
      machine: machineInfo(bench.serverVersion, sharedBuffers),
      databaseGB: Number(sizeGB.toFixed(3)),
      loadAvg: loadavg().map((x) => Number(x.toFixed(2))),
      node: process.version,
      timestamp: new Date().toISOString(),
    };
    printReport(result);
    log(`\nwebhooks: result written to ${writeResult('webhooks', result)}`);
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

function printReport(r: WebhooksResult): void {
  const log = (s = '') => process.stdout.write(`${s}\n`);
  const c = r.config;
  const w = r.workload;
  const ceiling = (r.throughput.ceiling[0].eventsPerSec + r.throughput.ceiling[1].eventsPerSec) / 2;
  log(`\n=== webhooks: ${fmt(w.events)} events (${w.rawWebhooks} raw + ${w.enhancedWebhooks} enhanced webhooks × ${c.addresses} wallets, ${fmt(w.eventsPerBlock)} events per ${c.txsPerBlock}-tx block, mean body ${fmt(w.bodyKB)} KB); SOLGATE_WEBHOOK_CONCURRENCY ${c.concurrency}, poll ${c.pollMs} ms`);
  log(`    database: ${r.database}`);
  log(machineLine(r.machine, r.databaseGB));
  log(`    load average at the end: ${r.loadAvg.join(' / ')}\n`);
  log('Throughput (all events pending, made due at once; receiver in a child process):');
  const cpuCell = (t: ThroughputRun) => (t.cpuMsPerEvent ? `${t.cpuMsPerEvent.sender.toFixed(3)} / ${t.cpuMsPerEvent.postgres.toFixed(3)} / ${t.cpuMsPerEvent.receiver.toFixed(3)}` : '');
  log(table(['run', 'events/s', 'per process', '× ceiling', 'time', 'first→last events/s', 'duplicates', 'CPU ms/event: sender / PostgreSQL / receiver', 'load avg'], [
    ...r.throughput.workers.map((t) => [t.label, t.eventsPerSec, t.eventsPerSecPerProcess, `${t.ratio.toFixed(3)}×`, `${fmt(t.seconds)} s`, t.steadyEventsPerSec, t.duplicates, cpuCell(t), t.loadAvg]),
    ...r.throughput.ceiling.map((t) => [`baseline: ${t.label}`, t.eventsPerSec, t.eventsPerSecPerProcess, `${(t.eventsPerSec / ceiling).toFixed(3)}×`, `${fmt(t.seconds)} s`, t.steadyEventsPerSec, t.duplicates, cpuCell(t), t.loadAvg]),
  ]));
  log('  CPU (Linux /proc, over each run): the sender is the worker processes (for the ceiling, the bench process); PostgreSQL is every postgres process of the machine');
  log(`  ceiling = undici from this process, ${c.concurrency} connections, same bodies and signed headers, no database; mean of before/after = ${fmt(ceiling)} POST/s`);
  log(`\nLatency (one block every ${SLOT_MS} ms for ${c.seconds} s; arrival at the receiver − queued_at = start of the block's write transaction, so slightly more than commit → POST):`);
  log(table(['run', 'events', 'p50', 'p90', 'p99', 'max', 'p50 × direct', 'p99 × direct', 'p50/p99 from write returned', 'block write p50/p99', 'late ticks', 'load avg'], [
    ...r.latency.runs.map((l) => [l.label, l.events, `${fmt(l.fromQueued.p50Ms)} ms`, `${fmt(l.fromQueued.p90Ms)} ms`, `${fmt(l.fromQueued.p99Ms)} ms`, `${fmt(l.fromQueued.maxMs)} ms`,
      `${fmt(l.p50Ratio)}×`, `${fmt(l.p99Ratio)}×`, `${fmt(l.fromWriteReturned.p50Ms)} / ${fmt(l.fromWriteReturned.p99Ms)} ms`, `${fmt(l.blockWrite.p50Ms)} / ${fmt(l.blockWrite.p99Ms)} ms`, l.lateTicks, l.loadAvg]),
    ['baseline: direct POST (send → arrival)', r.latency.directPost.n, `${fmt(r.latency.directPost.p50Ms)} ms`, `${fmt(r.latency.directPost.p90Ms)} ms`, `${fmt(r.latency.directPost.p99Ms)} ms`, `${fmt(r.latency.directPost.maxMs)} ms`, '1×', '1×', '', '', '', ''],
  ]));
  const odd = r.latency.runs.filter((l) => l.missing || l.duplicates);
  for (const l of odd) log(`  ${l.label}: ${l.missing} events never arrived, ${l.duplicates} duplicate arrivals`);
}
