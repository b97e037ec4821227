/**
 * Rate limits under load (issue #8's load check): autocannon on loopback against a `solgate serve` child process
 * (PostgreSQL, optional Redis, no ingestion), reporting what the limiter let through, the status codes (no 5xx
 * allowed: any is printed as a failure), the 429 headers, latency, and the server's memory over the run. A
 * measurement plus invariants it reports; it never asserts on speed.
 *
 * Phases, each --seconds long (default 20):
 *  1. baseline: GET /health (no key, no limiter) at full speed — the same server's ceiling;
 *  2. one key at --times × its plan's DAS limit (default 5× the developer plan's 10/s), JSON-RPC getAsset: the
 *     accepted rate must be the plan's (10/s + a burst of 20 per 10 s);
 *  3. --keys keys (default 20, developer plan: 200 DAS calls per second in all, below what the server can answer, so most answers are 429s once bursts are spent) at full speed, --connections connections (default 100): the limiter's
 *     own throughput and memory with many counters (mostly 429s);
 * then 429 headers are checked on a sample and the resident memory sampled every second from /metrics is reported
 * as a trend (MB/min by least squares over the last two phases).
 *
 *   npm run bench -- limits [--seconds 20] [--times 5] [--keys 20] [--connections 100] [--redis]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { numberFlag, parseFlags } from './lib/args.js';
import { fmt, REPO_ROOT, table, writeResult } from './lib/report.js';
import { openKeptBenchDb } from './lib/kept-db.js';
import { createApiKey } from '../src/store/keys.js';

export const description = 'Rate limits under load: autocannon at several times a key\'s limit and over many keys; accepted rate vs plan, status codes (no 5xx), 429 headers, memory trend; vs /health ceiling';
export const onlyWhenNamed = true;

const ASSET = '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY';
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAsset', params: { id: ASSET } });

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface PhaseResult {
  label: string;
  seconds: number;
  requests: number;
  rps: number;
  statuses: Record<string, number>;
  non2xx4xx: number;
  errors: number;
  timeouts: number;
  p50Ms: number;
  p99Ms: number;
}

async function phase(label: string, o: autocannon.Options): Promise<PhaseResult> {
  const r = await autocannon({ ...o, excludeErrorStats: false });
  const statuses: Record<string, number> = {};
  for (const [k, v] of Object.entries(r.statusCodeStats ?? {})) statuses[k] = (v as { count: number }).count;
  const count = (pred: (s: number) => boolean) => Object.entries(statuses).filter(([k]) => pred(Number(k))).reduce((a, [, v]) => a + v, 0);
  return {
    label,
    seconds: r.duration,
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    statuses,
    non2xx4xx: count((s) => s >= 500 || s < 200),
    errors: r.errors,
    timeouts: r.timeouts,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
  };
}

/** Least-squares slope of (t seconds, MB) in MB per minute. */
function slopePerMin(samples: { t: number; mb: number }[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mt = samples.reduce((a, s) => a + s.t, 0) / n;
  const mm = samples.reduce((a, s) => a + s.mb, 0) / n;
  const num = samples.reduce((a, s) => a + (s.t - mt) * (s.mb - mm), 0);
  const den = samples.reduce((a, s) => a + (s.t - mt) ** 2, 0);
  return den ? (num / den) * 60 : 0;
}

export async function run(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv);
  const seconds = numberFlag(flags, 'seconds', 20);
  const times = numberFlag(flags, 'times', 5);
  const keysN = numberFlag(flags, 'keys', 20);
  const connections = numberFlag(flags, 'connections', 100);
  const redis = flags.redis !== undefined;
  const bench = await openKeptBenchDb({ prefix: 'limits', stages: [], keep: false, fresh: true, stableName: 'solgate_bench_limits', want: {}, poolSize: 4 });
  let child: ChildProcess | null = null;
  const onSignal = () => child?.kill('SIGKILL');
  process.once('SIGINT', onSignal);
  try {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'solgate.js'), 'serve'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env, DATABASE_URL: bench.url, PORT: String(port), HOST: '127.0.0.1', SOLANA_RPC_URL: '', LOG_LEVEL: 'error',
        SOLGATE_WEBHOOK_CONCURRENCY: '0', SOLGATE_OFFCHAIN_FETCH: 'false', REDIS_URL: redis ? (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') : '',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const deadline = Date.now() + 90_000;
    while (!(await fetch(`${base}/health`).then((r) => r.ok, () => false))) {
      if (Date.now() > deadline) throw new Error('serve did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const one = (await createApiKey(bench.db, { name: 'load-one', plan: 'developer' })).key;
    const many: string[] = [];
    for (let i = 0; i < keysN; i++) many.push((await createApiKey(bench.db, { name: `load-${i}`, plan: 'developer' })).key);

    // Memory: the server's resident set size from its own /metrics, once a second.
    const t0 = Date.now();
    const mem: { t: number; mb: number; phase: string }[] = [];
    let current = 'baseline';
    const sampler = setInterval(async () => {
      const text = await fetch(`${base}/metrics`).then((r) => r.text(), () => '');
      const m = /^\S*resident_memory_bytes (\S+)/m.exec(text);
      if (m) mem.push({ t: (Date.now() - t0) / 1000, mb: Number(m[1]) / 2 ** 20, phase: current });
    }, 1000);

    const phases: PhaseResult[] = [];
    phases.push(await phase('GET /health (ceiling)', { url: `${base}/health`, connections: 10, duration: seconds }));
    current = 'one key';
    const rate = 10 * times;
    phases.push(await phase(`1 key, getAsset at ${rate}/s (${times}× developer DAS 10/s)`, {
      url: `${base}/?api-key=${one}`, method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY,
      connections: 10, overallRate: rate, duration: seconds,
    }));
    current = 'many keys';
    let k = 0;
    phases.push(await phase(`${keysN} keys, getAsset at full speed, ${connections} connections`, {
      url: base, connections, duration: seconds,
      requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, setupRequest: (req) => ({ ...req, path: `/?api-key=${many[k++ % many.length]}` }) }],
    }));
    clearInterval(sampler);

    // 429 headers, on a key that is over its limit right now.
    const probe = await fetch(`${base}/?api-key=${one}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
    for (let i = 0; i < 40 && probe.status !== 429; i++) await fetch(`${base}/?api-key=${one}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
    const last = await fetch(`${base}/?api-key=${one}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
    const headers = {
      status: last.status,
      retryAfter: last.headers.get('retry-after'),
      limit: last.headers.get('x-ratelimit-limit'),
      remaining: last.headers.get('x-ratelimit-remaining'),
      reset: last.headers.get('x-ratelimit-reset'),
      body: await last.text(),
    };
    const headersOk = headers.status === 429 && !!headers.retryAfter && headers.limit === '10' && headers.remaining === '0' && Number(headers.reset) > 0 && /-32429/.test(headers.body);

    const oneKey = phases[1];
    const accepted = oneKey.statuses['200'] ?? 0;
    const allowed = 10 * oneKey.seconds + Math.ceil(oneKey.seconds / 10) * 20;
    const loaded = mem.filter((s) => s.phase !== 'baseline');
    const trend = slopePerMin(loaded);
    const fiveXX = phases.reduce((a, p) => a + p.non2xx4xx, 0);

    console.log(table(
      ['phase', 'req/s', '× ceiling', 'statuses', '5xx/other', 'p50 ms', 'p99 ms'],
      phases.map((p) => [p.label, fmt(p.rps), (p.rps / phases[0].rps).toFixed(3), Object.entries(p.statuses).map(([s, n]) => `${s}:${n}`).join(' '), p.non2xx4xx + p.errors, p.p50Ms, p.p99Ms]),
    ));
    console.log(`one key: ${accepted} calls accepted in ${oneKey.seconds} s; the plan allows ≈${allowed} (10/s + a burst of 20 per 10 s): ${(accepted / allowed).toFixed(3)}× the plan`);
    console.log(`429 headers: ${headersOk ? 'ok' : 'WRONG'} ${JSON.stringify({ ...headers, body: headers.body.slice(0, 80) })}`);
    console.log(`memory (RSS): ${loaded.length ? `${loaded[0].mb.toFixed(0)} → ${loaded[loaded.length - 1].mb.toFixed(0)} MB, max ${Math.max(...loaded.map((s) => s.mb)).toFixed(0)} MB, trend ${trend.toFixed(1)} MB/min over the loaded phases` : 'no samples'}`);
    console.log(`5xx or other non-HTTP answers: ${fiveXX}${fiveXX ? ' — FAILURE' : ''}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}; counters in ${redis ? 'Redis' : 'memory'}`);
    const result = { config: { seconds, times, keys: keysN, connections, redis }, phases, oneKey: { accepted, allowed, ratio: accepted / allowed }, headers, headersOk, memory: mem, memoryTrendMbPerMin: trend, fiveXX, loadavg: loadavg(), timestamp: new Date().toISOString() };
    writeResult('limits', result);
    return result;
  } finally {
    process.removeListener('SIGINT', onSignal);
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
    await bench.close();
  }
}
