/**
 * WebSocket fan-out of the enhanced `transactionSubscribe`: notifications/s delivered to --clients subscribers
 * (default 1,000) of one solgate, and the latency from a block's commit — the moment the transaction hub's `publish`
 * is called, as the ingester calls it after writing a block — to a client reading the notification. A measurement:
 * it never asserts on speed.
 *
 * Gateway: buildApp in this process with the WebSocket endpoint (`pubsub`) and a transaction hub
 * (createTransactionHub) that this process publishes to directly — no ingester, no database write, no cluster: the
 * figure is the gateway's matching, encoding and sending, not block production. The endpoint's bridge to the
 * cluster's PubSub gets a stub socket (nothing here is bridged). Keys: the clients are spread over
 * ceil(clients / 100) API keys of the benchmarks' plan (bench/lib/bench-plan.ts: subscribes metered but never
 * refused), so the default SOLGATE_WS_MAX_CONNECTIONS_PER_KEY of 100 stays in force.
 *
 * Workload: mainnet-shaped blocks (bench/gen/mainnet-blocks.ts, non-vote part), normalised as the RPC source hands
 * them to the ingester; --blocks blocks of --txs-per-block transactions, each kept transaction holding an account
 * no other workload transaction holds (its "own" account; the generator's transactions without one are dropped).
 * Variants: `all` — every subscriber's accountInclude lists every transaction's own account, so each gets every
 * transaction; `1/10` — subscriber i lists the own accounts of the transactions of group i mod 10 (transaction k is
 * in group k mod 10), so each gets a tenth. Options: base64, transactionDetails full, failed included.
 *
 * Subscribers: a child process (bench/gen/ws-clients.ts) with one `ws` connection per subscriber, which reads the
 * slot and signature from each notification's bytes and timestamps it with the system-wide monotonic clock (the one
 * this process stamps `publish` with). Each client's notifications are checked: its subscription id, only its
 * group's signatures, none twice, none missing, none beyond.
 *
 * Phases, per variant and target: burst — every block published at once (one per event-loop turn), notifications/s
 * = notifications ÷ (last arrival − first publish); paced — one block every --slot-ms (400, mainnet's slot time), or
 * later if the previous block's notifications have not all arrived yet (the report says how many blocks were late),
 * latency = arrival − its block's publish, p50/p99/max.
 *
 * Same-run ceiling: the same subscribers on a bare `ws` server in this process that, for each published block, sends
 * each subscriber the very bytes solgate sends (serialised once per transaction beforehand; no matching, no
 * encoding). Each variant runs both targets, the ceiling first for `all` and second for `1/10`.
 *
 *   npm run bench -- ws [--clients 1000] [--blocks 5] [--txs-per-block 8] [--slot-ms 400] [--variants all,tenth] [--seed 42] [--profile]
 *
 * --profile writes this process's CPU profile to .bench-out/prof/ (the gateway runs here; summarise it with
 * bench/tools/cpuprofile-top.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { buildApp } from '../src/api/app.js';
import { createTransactionHub, transactionNotification, type TransactionOptions } from '../src/api/ws/transactions.js';
import { createMeter } from '../src/accounts/meter.js';
import { createUsageRecorder, type UsageRecorder } from '../src/accounts/usage.js';
import type { UpstreamSocket } from '../src/core/upstream.js';
import type { Block, NormalizedTx } from '../src/core/model.js';
import { createFileTokenRegistry } from '../src/pricing/token-registry.js';
import { parseJsonLossless } from '../src/sources/json.js';
import { normalizeRpcBlock } from '../src/sources/normalize-rpc.js';
import { createApiKey } from '../src/store/keys.js';
import { MainnetBlockGenerator } from './gen/mainnet-blocks.js';
import type { ClientsConfig, PhaseDone } from './gen/ws-clients.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { BENCH_PLAN, benchPlanTable } from './lib/bench-plan.js';
import { openKeptBenchDb } from './lib/kept-db.js';
import { fmt, REPO_ROOT, table, writeResult } from './lib/report.js';
import { percentiles, sleep, type Percentiles } from './lib/samples.js';

/** One-line summary for `bench/run.ts --help`. */
export const description = 'WebSocket transactionSubscribe fan-out to 1,000 subscribers (all match / 1 in 10 match): notifications/s and publish → client p50/p99/max vs a bare ws server sending the same bytes';

/** Not part of a bare `npm run bench` (1,000 connections, ≈2 min, needs a PostgreSQL server); run it by name. */
export const onlyWhenNamed = true;

const here = dirname(fileURLToPath(import.meta.url));
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
/** The default per-key connection limit of the WebSocket endpoint (SOLGATE_WS_MAX_CONNECTIONS_PER_KEY). */
const CONNECTIONS_PER_KEY = 100;
/** The ceiling's subscription id: as long as solgate's (which start at 1,000,000,000). */
const CEILING_SUB_ID = 1_000_000_000;
const OPTIONS: TransactionOptions = { encoding: 'base64', transactionDetails: 'full', showRewards: false };
const WIRE_OPTIONS = { encoding: 'base64', transactionDetails: 'full', maxSupportedTransactionVersion: 0, commitment: 'confirmed' };

type Variant = 'all' | 'tenth';
type Target = 'solgate' | 'ceiling';

export interface PhaseResult {
  notifications: number;
  expected: number;
  seconds: number;
  notificationsPerSec: number;
  mbPerSec: number;
  latency: Percentiles;
  /** Paced only: blocks published later than their slot because the previous block was still being delivered. */
  lateBlocks?: number;
  wrong: number;
  shortClients: number;
  timedOut: boolean;
  firstWrong: string | null;
}

export interface WsRun {
  variant: Variant;
  target: Target;
  clients: number;
  keys: number;
  connectMs: number;
  burst: PhaseResult;
  paced: PhaseResult;
  /** Notifications beyond the expected ones (after a phase had them all). */
  extras: number;
  loadAvg: number;
}

export interface WsResult {
  config: { clients: number; blocks: number; txsPerBlock: number; slotMs: number; seed: number; variants: Variant[] };
  workload: { transactions: number; dropped: number; bytesPerNotification: number; failed: number };
  machine: { cpus: number; cpuModel: string; memGB: number; node: string };
  runs: WsRun[];
  /** solgate ÷ ceiling per variant. */
  ratios: { variant: Variant; burstRate: number; pacedP50: number; pacedP99: number }[];
  timestamp: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Workload.

interface Workload {
  blocks: Block[];
  txs: NormalizedTx[];
  /** Each transaction's own account (no other workload transaction holds it). */
  own: Map<string, string>;
  dropped: number;
}

function buildWorkload(seed: number, blocks: number, txsPerBlock: number): Workload {
  // 1.5× the transactions wanted, so enough remain with an account of their own.
  const gen = new MainnetBlockGenerator({ seed, txsPerBlock: Math.ceil(txsPerBlock * 1.5), voteShare: 0 });
  const raw: Block[] = [];
  for (let i = 0; i < blocks; i++) {
    const b = gen.next();
    const text = JSON.stringify({ jsonrpc: '2.0', result: b.result, id: b.slot });
    raw.push(normalizeRpcBlock((parseJsonLossless(text) as { result: unknown }).result, b.slot, { skipVotes: true }));
  }
  const holders = new Map<string, number>();
  for (const b of raw) for (const tx of b.transactions) for (const k of new Set(tx.accountKeys)) holders.set(k, (holders.get(k) ?? 0) + 1);
  const own = new Map<string, string>();
  let dropped = 0;
  const kept = raw.map((b) => {
    const txs: NormalizedTx[] = [];
    for (const tx of b.transactions) {
      const k = tx.accountKeys.find((a) => holders.get(a) === 1);
      if (k && txs.length < txsPerBlock) {
        own.set(tx.signature, k);
        txs.push(tx);
      } else dropped++;
    }
    return { ...b, transactions: txs };
  });
  return { blocks: kept, txs: kept.flatMap((b) => b.transactions), own, dropped };
}

/** Per group (1 for `all`, 10 for `1/10`): the transactionSubscribe params and the signatures it gets. */
function groupsOf(w: Workload, variant: Variant): { params: unknown[]; signatures: string[] }[] {
  const n = variant === 'all' ? 1 : 10;
  return Array.from({ length: n }, (_, g) => {
    const txs = w.txs.filter((_tx, k) => k % n === g);
    return { params: [{ accountInclude: txs.map((tx) => w.own.get(tx.signature)!), failed: true }, WIRE_OPTIONS], signatures: txs.map((tx) => tx.signature) };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Servers.

interface Server {
  url: string;
  /** The moment a block is committed: solgate's hub.publish, or the ceiling's sends. */
  publish(block: Block): void;
  close(): Promise<void>;
}

/** A bridge socket that never reaches a cluster (nothing in this benchmark is bridged). */
function stubUpstream(): UpstreamSocket {
  return { ready: Promise.resolve(), send() {}, onMessage() {}, onClose() {}, close() {} };
}

/** buildApp with the WebSocket endpoint and a transaction hub of its own, on 127.0.0.1:0. */
async function startGateway(db: Awaited<ReturnType<typeof openKeptBenchDb>>['db'], usage: UsageRecorder): Promise<Server> {
  const hub = createTransactionHub();
  const app = await buildApp({
    db,
    logger: pino({ level: 'warn' }),
    tokens: createFileTokenRegistry('/nonexistent/tokens.json'),
    explorerTxUrl: 'https://orbmarkets.io/tx/',
    meter: createMeter({ db, plans: benchPlanTable(), usage }),
    pubsub: { upstream: stubUpstream, transactions: hub },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { url: `ws://127.0.0.1:${port}/`, publish: (b) => hub.publish([b]), close: () => app.close() };
}

/** The ceiling: a bare `ws` server sending each subscriber of a transaction's audience its prepared notification. */
async function startCeiling(w: Workload, variant: Variant): Promise<Server> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: 1024 * 1024 });
  await once(wss, 'listening');
  const n = variant === 'all' ? 1 : 10;
  const byGroup: WebSocket[][] = Array.from({ length: n }, () => []);
  wss.on('connection', (ws, req) => {
    const g = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('g') ?? 0);
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { id?: unknown };
      ws.send(JSON.stringify({ jsonrpc: '2.0', result: CEILING_SUB_ID, id: m.id }));
      byGroup[g].push(ws);
    });
  });
  const prepared = new Map<string, { text: string; group: number }>();
  w.txs.forEach((tx, k) => prepared.set(tx.signature, { text: notificationText(tx, CEILING_SUB_ID), group: k % n }));
  const { port } = wss.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/`,
    publish(block) {
      for (const tx of block.transactions) {
        const p = prepared.get(tx.signature)!;
        for (const ws of byGroup[p.group]) ws.send(p.text);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}

/**
 * The text solgate sends for `tx` on subscription `id` (src/api/ws/pubsub.ts; each solgate run checks a notification
 * it received against this, see {@link sameBytes}).
 */
function notificationText(tx: NormalizedTx, id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'transactionNotification', params: { result: transactionNotification(tx, OPTIONS), subscription: id } });
}

/** Whether a notification solgate sent is the text the ceiling prepares for its transaction (null) or how it differs. */
function sameBytes(w: Workload, sample: string | null): string | null {
  if (!sample) return 'no notification received';
  const m = JSON.parse(sample) as { params?: { subscription?: number; result?: { signature?: string } } };
  const tx = w.txs.find((t) => t.signature === m.params?.result?.signature);
  if (!tx) return `a notification of an unknown transaction: ${sample.slice(0, 200)}`;
  const want = notificationText(tx, m.params!.subscription!);
  if (want === sample) return null;
  let i = 0;
  while (i < want.length && want[i] === sample[i]) i++;
  return `differs at byte ${i} (${sample.length} B received, ${want.length} B prepared): received …${sample.slice(Math.max(0, i - 40), i + 60)}…, prepared …${want.slice(Math.max(0, i - 40), i + 60)}…`;
}

// ---------------------------------------------------------------------------------------------------------------
// Subscribers.

class Subscribers {
  private readonly child: ChildProcess;
  private readonly listeners = new Set<(m: { type: string } & Record<string, unknown>) => void>();
  private exited: Error | null = null;

  constructor() {
    this.child = fork(join(here, 'gen', 'ws-clients.ts'), [], {
      execArgv: ['--import', 'tsx'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: { type: string } & Record<string, unknown>) => {
      for (const l of [...this.listeners]) l(m);
    });
    this.child.once('exit', (code) => {
      this.exited = new Error(`ws bench: the subscribers' process exited (${code})`);
      for (const l of [...this.listeners]) l({ type: 'exit' });
    });
  }

  /** Resolves with the first message of `type` (rejects on an `error` message or the child's exit). */
  next<T>(type: string, timeoutMs = 600_000): Promise<T> {
    return new Promise((resolve, reject) => {
      if (this.exited) return reject(this.exited);
      const timer = setTimeout(() => {
        this.listeners.delete(l);
        reject(new Error(`ws bench: no ${type} message from the subscribers within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const l = (m: { type: string } & Record<string, unknown>) => {
        if (m.type !== type && m.type !== 'error' && m.type !== 'exit') return;
        this.listeners.delete(l);
        clearTimeout(timer);
        if (m.type === type) resolve(m as T);
        else reject(m.type === 'exit' ? this.exited : new Error(`ws bench: subscribers: ${String(m.message)}`));
      };
      this.listeners.add(l);
    });
  }

  on(type: string, fn: (m: Record<string, unknown>) => void): () => void {
    const l = (m: { type: string } & Record<string, unknown>) => {
      if (m.type === type) fn(m);
    };
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  send(m: unknown): void {
    this.child.send(m as never);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.exited) return;
    const gone = once(this.child, 'exit');
    this.send({ type: 'close' });
    const t = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(t);
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Phases.

function expectedPerSlot(w: Workload, groups: { signatures: string[] }[], groupOf: number[]): Record<number, number> {
  const clientsPerGroup = groups.map((_, g) => groupOf.filter((x) => x === g).length);
  const groupOfSig = new Map<string, number>();
  groups.forEach((g, i) => g.signatures.forEach((s) => groupOfSig.set(s, i)));
  const out: Record<number, number> = {};
  for (const b of w.blocks) out[b.slot] = b.transactions.reduce((a, tx) => a + clientsPerGroup[groupOfSig.get(tx.signature)!], 0);
  return out;
}

function phaseResult(done: PhaseDone, expected: number, publishedAt: Map<number, number>, lateBlocks?: number): PhaseResult {
  const lat = new Array<number>(done.received);
  let last = 0;
  for (let i = 0; i < done.received; i++) {
    lat[i] = done.arrivals[i] - publishedAt.get(done.slots[i])!;
    if (done.arrivals[i] > last) last = done.arrivals[i];
  }
  const first = Math.min(...publishedAt.values());
  const seconds = (last - first) / 1000;
  return {
    notifications: done.received, expected, seconds: Number(seconds.toFixed(3)),
    notificationsPerSec: Math.round(done.received / seconds), mbPerSec: Number((done.bytes / 1e6 / seconds).toFixed(1)),
    latency: percentiles(lat, 1), ...(lateBlocks !== undefined ? { lateBlocks } : {}),
    wrong: done.wrong, shortClients: done.shortClients, timedOut: done.timedOut, firstWrong: done.firstWrong,
  };
}

async function runTarget(o: {
  target: Target; variant: Variant; w: Workload; clients: number; keys: string[]; slotMs: number;
  solgate: () => Promise<Server>; log: (s?: string) => void;
}): Promise<WsRun> {
  const { w, variant } = o;
  const server = o.target === 'solgate' ? await o.solgate() : await startCeiling(w, variant);
  const subs = new Subscribers();
  try {
    const groups = groupsOf(w, variant);
    const groupOf = Array.from({ length: o.clients }, (_, i) => i % groups.length);
    const urls = groupOf.map((g, i) => `${server.url}?api-key=${o.keys[Math.floor(i / CONNECTIONS_PER_KEY)]}&g=${g}`);
    const cfg: ClientsConfig = { type: 'config', urls, groupOf, groups, connectBatch: 50, idleTimeoutMs: 60_000 };
    subs.send(cfg);
    const { connectMs } = await subs.next<{ connectMs: number }>('ready');
    const perSlot = expectedPerSlot(w, groups, groupOf);
    const expected = Object.values(perSlot).reduce((a, b) => a + b, 0);
    const label = `${variant === 'all' ? 'all match' : '1/10 match'}, ${o.target}`;
    o.log(`ws: ${label}: ${fmt(o.clients)} subscribers connected and subscribed in ${fmt(connectMs)} ms; ${fmt(expected)} notifications per phase`);

    // Burst: every block at once, one per event-loop turn.
    subs.send({ type: 'phase', perSlot });
    await subs.next('armed');
    let publishedAt = new Map<number, number>();
    const burstDone = subs.next<PhaseDone>('phase-done');
    for (const b of w.blocks) {
      publishedAt.set(b.slot, nowMs());
      server.publish(b);
      await new Promise((r) => setImmediate(r));
    }
    const burstRecords = await burstDone;
    const burst = phaseResult(burstRecords, expected, publishedAt);
    if (o.target === 'solgate') {
      const differs = sameBytes(w, burstRecords.sample);
      o.log(differs ? `ws: ${label}: WARNING: the ceiling does not send solgate's bytes: ${differs}` : `ws: ${label}: a received notification is byte for byte the ceiling's prepared text`);
    }
    o.log(`ws: ${label}: burst ${fmt(burst.notificationsPerSec)} notifications/s (${fmt(burst.notifications)} in ${fmt(burst.seconds)} s, ${fmt(burst.mbPerSec)} MB/s), publish → client p50 ${fmt(burst.latency.p50Ms)} / p99 ${fmt(burst.latency.p99Ms)} / max ${fmt(burst.latency.maxMs)} ms`);

    // Paced: a block every slot, or once the previous one is delivered.
    await sleep(200);
    subs.send({ type: 'phase', perSlot });
    await subs.next('armed');
    publishedAt = new Map();
    const delivered = new Set<number>();
    let wake: (() => void) | null = null;
    const off = subs.on('slot', (m) => {
      delivered.add(m.slot as number);
      wake?.();
    });
    const finished = subs.next<PhaseDone>('phase-done');
    // The phase may end early (no notification for a minute): stop publishing then.
    let over = false;
    const ended = () => {
      over = true;
      wake?.();
    };
    finished.then(ended, ended);
    let late = 0;
    let due = nowMs();
    for (let i = 0; i < w.blocks.length && !over; i++) {
      const b = w.blocks[i];
      if (i > 0) {
        const prev = w.blocks[i - 1].slot;
        while (!delivered.has(prev) && !over) await new Promise<void>((r) => (wake = r));
        wake = null;
        if (over) break;
        if (nowMs() > due) late++;
      }
      const wait = due - nowMs();
      if (wait > 0) await sleep(wait);
      publishedAt.set(b.slot, nowMs());
      server.publish(b);
      due = Math.max(due, publishedAt.get(b.slot)!) + o.slotMs;
    }
    const paced = phaseResult(await finished, expected, publishedAt, late);
    off();
    o.log(`ws: ${label}: paced (${o.slotMs} ms slots, ${late} of ${w.blocks.length - 1} blocks late) publish → client p50 ${fmt(paced.latency.p50Ms)} / p99 ${fmt(paced.latency.p99Ms)} / max ${fmt(paced.latency.maxMs)} ms`);
    // Nothing more may come once every expected notification has.
    await sleep(500);
    subs.send({ type: 'extras' });
    const { count: extras } = await subs.next<{ count: number }>('extras');
    if (extras) o.log(`ws: ${label}: CHECK FAILED: ${extras} notifications beyond the expected ones`);
    for (const [name, p] of [['burst', burst], ['paced', paced]] as const)
      if (p.wrong || p.shortClients || p.timedOut || p.notifications !== p.expected)
        o.log(`ws: ${label}: ${name}: CHECK FAILED: ${fmt(p.notifications)} of ${fmt(p.expected)} notifications, ${p.wrong} wrong${p.firstWrong ? ` (first: ${p.firstWrong})` : ''}, ${p.shortClients} clients short${p.timedOut ? ', timed out' : ''}`);
    return { variant, target: o.target, clients: o.clients, keys: o.target === 'solgate' ? o.keys.length : 0, connectMs: Math.round(connectMs), burst, paced, extras, loadAvg: Number(loadavg()[0].toFixed(2)) };
  } finally {
    await subs.close().catch(() => subs.kill());
    await server.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------

export async function run(argv: string[] = []): Promise<WsResult> {
  const flags = parseFlags(argv);
  const config = {
    clients: Math.max(1, Math.round(numberFlag(flags, 'clients', 1000))),
    blocks: Math.max(2, Math.round(numberFlag(flags, 'blocks', 5))),
    txsPerBlock: Math.max(1, Math.round(numberFlag(flags, 'txs-per-block', 8))),
    slotMs: numberFlag(flags, 'slot-ms', 400),
    seed: Math.round(numberFlag(flags, 'seed', 42)),
    variants: (typeof flags.variants === 'string' ? flags.variants.split(',') : ['all', 'tenth']).map((v) => v.trim()).filter((v): v is Variant => v === 'all' || v === 'tenth'),
  };
  const log = (s = '') => process.stdout.write(`${s}\n`);

  const t0 = performance.now();
  const w = buildWorkload(config.seed, config.blocks, config.txsPerBlock);
  // An empty accountInclude has no constraint: every group of the 1/10 variant needs a transaction of its own.
  if (config.variants.includes('tenth') && w.txs.length < 10)
    throw new Error(`ws bench: the 1/10 variant needs at least 10 transactions (--blocks × --txs-per-block); the workload has ${w.txs.length}`);
  const sizes = w.txs.map((tx) => notificationText(tx, CEILING_SUB_ID).length);
  const bytesPerNotification = Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length);
  log(`ws: workload: ${w.blocks.length} mainnet-shaped blocks × ${config.txsPerBlock} transactions (${w.txs.filter((t) => t.meta?.err).length} failed; ${w.dropped} generated ones without an account of their own dropped), notifications of ${fmt(bytesPerNotification)} bytes on average (base64, full); built in ${fmt((performance.now() - t0) / 1000)} s`);
  log('ws: blocks are published to the transaction hub directly (no ingester, no database write): the figures are the gateway\'s fan-out, not block production');

  const bench = await openKeptBenchDb({ prefix: 'ws', stages: [], keep: false, fresh: true, stableName: 'solgate_bench_ws', want: {}, poolSize: 4 });
  const usage = createUsageRecorder(bench.db, {});
  const keyCount = Math.ceil(config.clients / CONNECTIONS_PER_KEY);
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i++) keys.push((await createApiKey(bench.db, { name: `ws-bench-${i}`, plan: BENCH_PLAN })).key);
  log(`ws: ${fmt(config.clients)} subscribers over ${keyCount} API keys (plan ${BENCH_PLAN}), ${CONNECTIONS_PER_KEY} connections each: the default per-key limit (SOLGATE_WS_MAX_CONNECTIONS_PER_KEY) unchanged`);

  const profile = flags.profile === true ? new Session() : null;
  if (profile) {
    profile.connect();
    await profile.post('Profiler.enable');
    await profile.post('Profiler.start');
  }
  try {
    const runs: WsRun[] = [];
    const solgate = () => startGateway(bench.db, usage);
    for (const variant of config.variants) {
      const order: Target[] = variant === 'all' ? ['ceiling', 'solgate'] : ['solgate', 'ceiling'];
      for (const target of order) runs.push(await runTarget({ target, variant, w, clients: config.clients, keys, slotMs: config.slotMs, solgate, log }));
    }
    const ratios = config.variants.map((variant) => {
      const s = runs.find((r) => r.variant === variant && r.target === 'solgate')!;
      const c = runs.find((r) => r.variant === variant && r.target === 'ceiling')!;
      return {
        variant,
        burstRate: Number((s.burst.notificationsPerSec / c.burst.notificationsPerSec).toFixed(3)),
        pacedP50: Number((s.paced.latency.p50Ms / c.paced.latency.p50Ms).toFixed(1)),
        pacedP99: Number((s.paced.latency.p99Ms / c.paced.latency.p99Ms).toFixed(1)),
      };
    });
    const result: WsResult = {
      config,
      workload: { transactions: w.txs.length, dropped: w.dropped, bytesPerNotification, failed: w.txs.filter((t) => t.meta?.err).length },
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '?', memGB: Math.round(totalmem() / 1e9), node: process.version },
      runs,
      ratios,
      timestamp: new Date().toISOString(),
    };
    printReport(result, keyCount, log);
    log(`\nws: result written to ${writeResult('ws', result)}`);
    return result;
  } finally {
    if (profile) {
      const { profile: p } = await profile.post('Profiler.stop');
      const dir = join(REPO_ROOT, '.bench-out', 'prof');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `ws-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(p));
      profile.disconnect();
      log(`ws: CPU profile of the gateway's process written to ${file}`);
    }
    await usage.close().catch(() => {});
    await bench.close().catch(() => {});
  }
}

function printReport(r: WsResult, keys: number, log: (s?: string) => void): void {
  const c = r.config;
  log(`\n=== ws: transactionSubscribe fan-out, ${fmt(c.clients)} subscribers (${keys} keys × ≤ ${CONNECTIONS_PER_KEY}) in a child process; ${r.workload.transactions} transactions in ${c.blocks} blocks published to the hub directly; notifications ${fmt(r.workload.bytesPerNotification)} B (base64, full)`);
  log(`    machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memGB} GB; node ${r.machine.node}; server and subscribers on the same cores. Ceiling: a bare ws server sending the same bytes (prepared once per transaction)\n`);
  log(table(['variant', 'target', 'notifications', 'burst notif/s', 'burst MB/s', 'burst p50', 'burst p99', 'paced p50', 'paced p99', 'paced max', 'late blocks', 'checks', 'load avg'],
    r.runs.map((x) => [x.variant === 'all' ? 'all match' : '1/10 match', x.target, x.burst.notifications, x.burst.notificationsPerSec, x.burst.mbPerSec,
      `${fmt(x.burst.latency.p50Ms)} ms`, `${fmt(x.burst.latency.p99Ms)} ms`, `${fmt(x.paced.latency.p50Ms)} ms`, `${fmt(x.paced.latency.p99Ms)} ms`, `${fmt(x.paced.latency.maxMs)} ms`,
      `${x.paced.lateBlocks}/${c.blocks - 1}`,
      !x.extras && [x.burst, x.paced].every((p) => !p.wrong && !p.shortClients && !p.timedOut && p.notifications === p.expected) ? 'ok' : 'FAILED', x.loadAvg])));
  log('');
  for (const x of r.ratios)
    log(`    ${x.variant === 'all' ? 'all match' : '1/10 match'}: solgate delivers ${x.burstRate.toFixed(3)}× the ceiling's notifications/s; paced latency p50 ${fmt(x.pacedP50)}× and p99 ${fmt(x.pacedP99)}× the ceiling's`);
}
