/**
 * Sender: the latency `POST /fast` adds over posting the same kind of transaction directly to the upstream, measured
 * in the same run. A measurement: it never asserts on speed.
 *
 * Setup (all in child processes, so the measured client and gateway do not share an event loop with the chain):
 * the upstream is `solgate localnet` (LiteSVM, slot time --slot-ms, no Light genesis); a payer and the ten tip
 * accounts are funded from its faucet. Gateways are `solgate sender` processes (SOLGATE_SENDER_RPC_URLS = the
 * localnet, no block engine, rate limit 1,000,000/s so it is never hit, default rebroadcast every 2 s): one with the
 * localnet as its only upstream, one with the localnet listed twice (two URLs → two pools: every transaction is sent
 * twice and the second copy is a duplicate the localnet drops — the fan-out cost, measured on one machine).
 *
 * Workload: --txs distinct valid tipped transactions per run (bench/gen/sender-txs.ts), signed in chunks of 100
 * under a fresh blockhash (signing is outside the timed requests). Each transaction is sent once, by one of three
 * paths, rotating per request (A-B-C, B-C-A, C-A-B, so each path takes each place equally often): directly to the
 * localnet (`sendTransaction`, base64, skipPreflight true, maxRetries 0); through a bare relay, a child process that
 * POSTs the body unchanged to the localnet and answers with its answer (bench/gen/relay-server.ts: the floor of any
 * gateway running as a process of its own); or to the gateway's `/fast` with the same body. `/fast` minus the relay
 * is the gateway's own share of the hop between processes; the relay minus direct is what the extra process costs
 * on this machine whatever runs in it.
 * Requests go over undici keep-alive pools from this process; a request's latency is send → the whole answer read.
 * An answer counts as an error unless it is HTTP 200 with the transaction's signature as its result. Every run starts
 * with an untimed warm-up (--warmup transactions, rotating too; 600 by default: with 40, the processes answered
 * the timed requests before V8 had optimised their request paths, and every path measured slower, docs/benchmarks.md#sender-relay).
 *
 * Runs: sequential (one request in flight) through the 1-upstream gateway and through the 2-upstream gateway, then
 * --concurrency requests in flight (default 8; 1 skips it) through the 1-upstream gateway. After the runs, every
 * measured signature is looked up on the localnet (landed = confirmed without error).
 *
 * Not in the figure: after a gateway accepts a transaction it follows it (getSignatureStatuses every rebroadcast
 * interval, isBlockhashValid per blockhash, and sends it again while unconfirmed) — upstream load the direct path
 * does not cause. The run reports those background calls from the gateway's metrics.
 *
 *   npm run bench -- sender [--txs 750] [--concurrency 8] [--warmup 600] [--slot-ms 400]
 */
import { fork } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { numberFlag, parseFlags } from './lib/args.js';
import { fmt, table, writeResult } from './lib/report.js';
import { startLocalnet as startLocalnetChild, startSolgate, type Child } from './lib/solgate-child.js';
import { percentiles, sleep, stopChild, type Percentiles } from './lib/samples.js';
import { fundPayerAndTips, setupRpc, TippedTxFactory, type SignedTx, type SetupRpc } from './gen/sender-txs.js';

/** One-line summary for `bench/run.ts --help`. */
export const description = 'Sender: added latency p50/p99 of POST /fast (solgate sender, 1 and 2 upstreams) over sendTransaction directly to the upstream (localnet), same run';

const CHUNK = 100;
/** Sender latencies are sub-millisecond differences: three decimals. */
const percentiles3 = (values: number[]) => percentiles(values, 3);


type PathName = 'direct' | 'relay' | 'gateway';
const PATHS: readonly PathName[] = ['direct', 'relay', 'gateway'];

/**
 * What the gateway did besides answering, from its /metrics: deltas from the start of the timed part of a run until
 * its transactions were followed to confirmation (one rebroadcast interval + two slots after the last answer).
 */
export interface GatewayActivity {
  /** `accepted` outcomes. */
  accepted: number;
  /** sendTransaction calls to upstreams (answered), all of them. */
  upstreamSends: number;
  /** upstreamSends − accepted × upstreams: rebroadcasts (and, for rejections, nothing else is sent). */
  rebroadcastSends: number;
  confirmed: number;
  expired: number;
}

export interface SenderRun {
  label: string;
  upstreams: number;
  concurrency: number;
  txs: number;
  seconds: number;
  direct: Percentiles;
  /** Through the bare relay process (bench/gen/relay-server.ts): the floor of any gateway in a process of its own. */
  relay: Percentiles;
  gateway: Percentiles;
  /** relay − direct: what one more process hop costs on this machine, with no gateway work at all. */
  relayAddedP50Ms: number;
  /** gateway − relay: the gateway's own share of the hop between processes. */
  overRelayP50Ms: number;
  overRelayMeanMs: number;
  /** gateway − direct. */
  addedP50Ms: number;
  addedP99Ms: number;
  addedMeanMs: number;
  /** gateway / direct. */
  ratioP50: number;
  ratioP99: number;
  ratioMean: number;
  errors: Record<PathName, number>;
  firstError: Partial<Record<PathName, string>>;
  landed: Record<PathName, number>;
  gatewayActivity: GatewayActivity;
  loadAvg: number;
}

export interface SenderResult {
  config: { txs: number; concurrency: number; warmup: number; slotMs: number; rebroadcastMs: number };
  runs: SenderRun[];
  machine: { cpus: number; cpuModel: string; memGB: number; node: string };
  loadAvg: number[];
  timestamp: string;
}


// ---------------------------------------------------------------------------------------------------------------
// Child processes.

/** `solgate localnet --port 0` (no Light genesis); resolves with its JSON-RPC URL. */
async function startLocalnet(slotMs: number, children: Child[]): Promise<string> {
  return (await startLocalnetChild('sender bench', slotMs, children)).url;
}

/** `solgate sender` on a free port forwarding to `upstreams`; resolves with its origin. */
async function startGateway(upstreams: string[], children: Child[]): Promise<{ origin: string; child: Child }> {
  const { value, child } = await startSolgate('sender bench', 'solgate sender', ['sender'], {
    SOLGATE_SENDER_RPC_URLS: upstreams.join(','),
    SOLGATE_SENDER_BLOCK_ENGINE_URL: '',
    SOLGATE_SENDER_STATUS_RPC_URL: '',
    SOLGATE_SENDER_TIP_ACCOUNTS: '',
    SOLGATE_SENDER_MIN_TIP_LAMPORTS: '',
    SOLGATE_SENDER_RATE_LIMIT: '1000000',
    SOLGATE_SENDER_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  }, children, (line) => {
    if (!line.includes('solgate sender: listening')) return null;
    try {
      return (JSON.parse(line) as { address?: string }).address ?? null;
    } catch {
      return null;
    }
  });
  return { origin: value, child };
}


/** The bare relay (bench/gen/relay-server.ts) in front of `upstream`; resolves with its origin. */
async function startRelay(upstream: string, children: Child[]): Promise<string> {
  const proc = fork(join(dirname(fileURLToPath(import.meta.url)), 'gen', 'relay-server.ts'), [upstream], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push({ proc, output: [] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('sender bench: the relay did not start within 60 s')), 60_000);
    proc.once('message', (m: { port?: number }) => (clearTimeout(timer), m.port ? resolve(m.port) : reject(new Error(`sender bench: relay sent ${JSON.stringify(m)}`))));
    proc.once('exit', (code) => (clearTimeout(timer), reject(new Error(`sender bench: the relay exited with ${code}`))));
  });
  return `http://127.0.0.1:${port}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Gateway metrics.

async function gatewayCounters(origin: string): Promise<{ accepted: number; upstreamSends: number; confirmed: number; expired: number }> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const value = (re: RegExp) => {
    const m = re.exec(text);
    return m ? Number(m[1]) : 0;
  };
  return {
    accepted: value(/^solgate_sender_outcomes_total\{outcome="accepted"\} (\S+)$/m),
    upstreamSends: value(/^solgate_sender_upstream_seconds_count\{upstream="rpc"\} (\S+)$/m),
    confirmed: value(/^solgate_sender_outcomes_total\{outcome="confirmed"\} (\S+)$/m),
    expired: value(/^solgate_sender_outcomes_total\{outcome="expired"\} (\S+)$/m),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Measurement.

/** The path of the i-th request: groups of three, rotated (A-B-C, B-C-A, C-A-B…), so each path takes each place equally often. */
function pathOf(i: number): PathName {
  return PATHS[(Math.floor(i / 3) + (i % 3)) % 3];
}

interface Sent {
  path: PathName;
  ms: number;
  ok: boolean;
  error?: string;
  signature: string;
}

class Paths {
  private readonly pools: Record<PathName, Pool>;
  private readonly directPath: string;
  constructor(upstreamUrl: string, relayOrigin: string, gatewayOrigin: string, connections: number) {
    const u = new URL(upstreamUrl);
    const opts = { connections, pipelining: 1, keepAliveTimeout: 60_000 };
    this.pools = { direct: new Pool(u.origin, opts), relay: new Pool(relayOrigin, opts), gateway: new Pool(gatewayOrigin, opts) };
    this.directPath = `${u.pathname}${u.search}`;
  }

  /** Sends `tx` by `path`; times send → answer read. */
  async send(path: PathName, tx: SignedTx, id: number): Promise<Sent> {
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'sendTransaction', params: [tx.base64, { encoding: 'base64', skipPreflight: true, maxRetries: 0 }] });
    const t0 = performance.now();
    try {
      const res = await this.pools[path].request({
        method: 'POST', path: { direct: this.directPath, relay: '/', gateway: '/fast' }[path], headers: { 'content-type': 'application/json' }, body,
      });
      const text = await res.body.text();
      const ms = performance.now() - t0;
      let result: unknown;
      try {
        result = (JSON.parse(text) as { result?: unknown }).result;
      } catch {
        result = undefined;
      }
      const ok = res.statusCode === 200 && result === tx.signature;
      return { path, ms, ok, signature: tx.signature, ...(ok ? {} : { error: `HTTP ${res.statusCode}: ${text.slice(0, 300)}` }) };
    } catch (e) {
      return { path, ms: performance.now() - t0, ok: false, signature: tx.signature, error: (e as Error).message };
    }
  }

  close(): Promise<unknown> {
    return Promise.all(PATHS.map((p) => this.pools[p].close()));
  }
}

/** Sends `count` fresh transactions, chunk by chunk, `concurrency` at a time, alternating paths. */
async function sendAll(paths: Paths, factory: TippedTxFactory, count: number, concurrency: number): Promise<Sent[]> {
  const out: Sent[] = [];
  for (let base = 0; base < count; base += CHUNK) {
    const txs = await factory.chunk(Math.min(CHUNK, count - base));
    let next = 0;
    const worker = async () => {
      while (next < txs.length) {
        const k = next++;
        out.push(await paths.send(pathOf(base + k), txs[k], base + k));
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
  return out;
}

/** How many of `signatures` landed (confirmed or finalized, no error). */
async function countLanded(rpc: SetupRpc, signatures: string[]): Promise<number> {
  let landed = 0;
  for (let i = 0; i < signatures.length; i += 256) {
    const { value } = await rpc<{ value: ({ err: unknown; confirmationStatus?: string } | null)[] }>('getSignatureStatuses', [signatures.slice(i, i + 256), { searchTransactionHistory: true }]);
    landed += value.filter((s) => s && !s.err && (s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized')).length;
  }
  return landed;
}

// ---------------------------------------------------------------------------------------------------------------

export async function run(argv: string[] = []): Promise<SenderResult> {
  const flags = parseFlags(argv);
  const config = {
    txs: Math.max(3, Math.round(numberFlag(flags, 'txs', 750))),
    concurrency: Math.max(1, Math.round(numberFlag(flags, 'concurrency', 8))),
    warmup: Math.round(numberFlag(flags, 'warmup', 600)),
    slotMs: Math.max(10, numberFlag(flags, 'slot-ms', 400)),
    rebroadcastMs: 2000,
  };
  const log = (s = '') => process.stdout.write(`${s}\n`);

  const children: Child[] = [];
  let cleaning: Promise<void> | null = null;
  const cleanup = () => (cleaning ??= Promise.all(children.map((c) => stopChild(c.proc).catch(() => {}))).then(() => {}));
  const onSignal = () => {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const upstream = await startLocalnet(config.slotMs, children);
    const rpc = setupRpc(upstream);
    const payer = await fundPayerAndTips(rpc);
    log(`sender: localnet (child process) at ${upstream}, slot ${config.slotMs} ms; payer and the 10 tip accounts funded`);
    const second = `${upstream.replace(/\/$/, '')}/?upstream=2`;
    const [gw1, gw2, relay] = await Promise.all([startGateway([upstream], children), startGateway([upstream, second], children), startRelay(upstream, children)]);
    log(`sender: gateways (solgate sender child processes): 1 upstream at ${gw1.origin}, 2 upstreams (the localnet twice) at ${gw2.origin}; bare relay (child process) at ${relay}`);
    const factory = new TippedTxFactory(rpc, payer);

    const runs: SenderRun[] = [];
    // Long enough for a rebroadcast round after the last slot closed: the tracked set is empty again.
    const drain = () => sleep(config.rebroadcastMs + 2 * config.slotMs + 500);
    const measure = async (label: string, gw: { origin: string }, upstreams: number, concurrency: number) => {
      const paths = new Paths(upstream, relay, gw.origin, concurrency);
      try {
        if (config.warmup > 0) {
          const warm = await sendAll(paths, factory, config.warmup, concurrency);
          const bad = warm.find((s) => !s.ok);
          if (bad) throw new Error(`sender bench: warm-up ${bad.path} request failed: ${bad.error}`);
        }
        // The warm-up's transactions are followed to confirmation before the timed part starts.
        await drain();
        const before = await gatewayCounters(gw.origin);
        const t0 = performance.now();
        const sent = await sendAll(paths, factory, config.txs, concurrency);
        const seconds = (performance.now() - t0) / 1000;
        // The gateway's follow-up of this run's transactions (until confirmed), then its counters.
        await drain();
        const after = await gatewayCounters(gw.origin);
        const of = (p: PathName) => sent.filter((s) => s.path === p);
        const direct = percentiles3(of('direct').filter((s) => s.ok).map((s) => s.ms));
        const relayed = percentiles3(of('relay').filter((s) => s.ok).map((s) => s.ms));
        const gateway = percentiles3(of('gateway').filter((s) => s.ok).map((s) => s.ms));
        const accepted = after.accepted - before.accepted;
        const upstreamSends = after.upstreamSends - before.upstreamSends;
        const r3 = (x: number) => Number(x.toFixed(3));
        const firstError: Partial<Record<PathName, string>> = {};
        for (const p of PATHS) {
          const e = of(p).find((s) => !s.ok);
          if (e) firstError[p] = e.error;
        }
        const result: SenderRun = {
          label, upstreams, concurrency, txs: sent.length, seconds: r3(seconds), direct, relay: relayed, gateway,
          relayAddedP50Ms: r3(relayed.p50Ms - direct.p50Ms), overRelayP50Ms: r3(gateway.p50Ms - relayed.p50Ms), overRelayMeanMs: r3(gateway.meanMs - relayed.meanMs),
          addedP50Ms: r3(gateway.p50Ms - direct.p50Ms), addedP99Ms: r3(gateway.p99Ms - direct.p99Ms), addedMeanMs: r3(gateway.meanMs - direct.meanMs),
          ratioP50: r3(gateway.p50Ms / direct.p50Ms), ratioP99: r3(gateway.p99Ms / direct.p99Ms), ratioMean: r3(gateway.meanMs / direct.meanMs),
          errors: { direct: of('direct').filter((s) => !s.ok).length, relay: of('relay').filter((s) => !s.ok).length, gateway: of('gateway').filter((s) => !s.ok).length },
          firstError,
          landed: { direct: 0, relay: 0, gateway: 0 },
          gatewayActivity: {
            accepted, upstreamSends, rebroadcastSends: Math.max(0, upstreamSends - accepted * upstreams),
            confirmed: after.confirmed - before.confirmed, expired: after.expired - before.expired,
          },
          loadAvg: Number(loadavg()[0].toFixed(2)),
        };
        log(`sender: ${label}: direct p50 ${fmt(direct.p50Ms)} / p99 ${fmt(direct.p99Ms)} ms, relay p50 ${fmt(relayed.p50Ms)} ms, /fast p50 ${fmt(gateway.p50Ms)} / p99 ${fmt(gateway.p99Ms)} ms (+${fmt(result.addedP50Ms)} / +${fmt(result.addedP99Ms)} ms), errors ${result.errors.direct}/${result.errors.gateway}, ${fmt(seconds)} s, load ${result.loadAvg}`);
        runs.push(result);
        return sent;
      } finally {
        await paths.close();
      }
    };

    const sentByRun: Sent[][] = [];
    sentByRun.push(await measure('sequential, 1 upstream', gw1, 1, 1));
    sentByRun.push(await measure('sequential, 2 upstreams (the localnet twice)', gw2, 2, 1));
    if (config.concurrency > 1) {
      sentByRun.push(await measure(`${config.concurrency} in flight, 1 upstream`, gw1, 1, config.concurrency));
    }

    // Every measured transaction should have landed (the last run's drain waited a few slots).
    for (let i = 0; i < runs.length; i++)
      for (const p of PATHS)
        runs[i].landed[p] = await countLanded(rpc, sentByRun[i].filter((s) => s.path === p && s.ok).map((s) => s.signature));

    const result: SenderResult = {
      config,
      runs,
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '?', memGB: Math.round(totalmem() / 1e9), node: process.version },
      loadAvg: loadavg().map((x) => Number(x.toFixed(2))),
      timestamp: new Date().toISOString(),
    };
    printReport(result);
    log(`\nsender: result written to ${writeResult('sender', result)}`);
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

function printReport(r: SenderResult): void {
  const log = (s = '') => process.stdout.write(`${s}\n`);
  const c = r.config;
  const ms = (x: number) => `${fmt(x)} ms`;
  log(`\n=== sender: ${fmt(c.txs)} tipped transactions per run (a third per path, rotating), ${c.warmup} warm-up; localnet upstream (slot ${c.slotMs} ms) and solgate sender in child processes; keep-alive undici pools`);
  log(`    machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memGB} GB; node ${r.machine.node}; load average at the end: ${r.loadAvg.join(' / ')}\n`);
  log(table(['run', 'n d/r/g', 'direct p50', 'direct p99', 'relay p50', '/fast p50', '/fast p99', 'added p50', 'added p99', '× p50', '× mean', 'relay added p50', '/fast − relay p50 / mean', 'errors d/r/g', 'landed d/r/g', 'load avg'],
    r.runs.map((x) => [x.label, `${x.direct.n}/${x.relay.n}/${x.gateway.n}`, ms(x.direct.p50Ms), ms(x.direct.p99Ms), ms(x.relay.p50Ms), ms(x.gateway.p50Ms), ms(x.gateway.p99Ms),
      ms(x.addedP50Ms), ms(x.addedP99Ms), `${fmt(x.ratioP50)}×`, `${fmt(x.ratioMean)}×`, ms(x.relayAddedP50Ms), `${ms(x.overRelayP50Ms)} / ${ms(x.overRelayMeanMs)}`,
      PATHS.map((p) => x.errors[p]).join('/'), PATHS.map((p) => x.landed[p]).join('/'), x.loadAvg])));
  log('  relay = a bare node:http process POSTing each body unchanged to the localnet (bench/gen/relay-server.ts): the floor of any gateway in a process of its own');
  log('\nGateway background work for each timed run, until its transactions were confirmed (from its /metrics): after answering, it follows each accepted transaction');
  log(`(getSignatureStatuses every ${c.rebroadcastMs} ms, isBlockhashValid, and sends it again while unconfirmed) — upstream load the direct path does not cause:`);
  log(table(['run', 'accepted', 'upstream sends', 'of which rebroadcasts', 'confirmed (followed)', 'expired', 'timed seconds'],
    r.runs.map((x) => [x.label, x.gatewayActivity.accepted, x.gatewayActivity.upstreamSends, x.gatewayActivity.rebroadcastSends, x.gatewayActivity.confirmed, x.gatewayActivity.expired, `${fmt(x.seconds)} s`])));
  for (const x of r.runs)
    for (const p of PATHS) if (x.firstError[p]) log(`  ${x.label}: first ${p} error: ${x.firstError[p]}`);
}
