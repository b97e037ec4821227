/**
 * The read benchmarks' harness (bench/das.ts, bench/zk.ts): starts the gateway and a ceiling server (a benchmark's
 * server script on bench/lib/bench-server.ts) in child processes with pg pools of the same size, checks that every
 * case answers correctly, then drives each case with the same closed-loop load generator (bench/gen/load.ts: N
 * keep-alive connections, fixed duration, random parameters per request): an untimed warm-up, the ceiling before the
 * cases, every gateway case, the ceiling after them. Optionally also the latency of requests sent one at a time
 * ("alone": one connection, no queueing).
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { Db } from '../../src/store/db.js';
import { createApiKey } from '../../src/store/keys.js';
import { runLoad, type LoadResult } from '../gen/load.js';
import { fmt, REPO_ROOT } from './report.js';

/** One kind of request: to the gateway (JSON-RPC `method`) or to the ceiling (the params as the body). */
export interface LoadCase<P> {
  name: string;
  target: 'app' | 'ceiling';
  method?: string;
  /** A ceiling case's route (default `/`; the first ceiling case is the ceiling measured before and after the others). */
  path?: string;
  params: () => P;
  /** Checks one answer (parsed) for the params that produced it; returns a problem or null. */
  check?: (result: unknown, params: P) => string | null;
}

/** The load settings (the benchmarks' --duration, --warmup, --connections, --pool, --min-requests, --max-duration). */
export interface LoadSettings {
  duration: number;
  warmup: number;
  connections: number;
  pool: number;
  minRequests: number;
  maxDuration: number;
}

export type Loaded = LoadResult & { loadAvg: number };

/** A gateway case (or another ceiling route) under load; `aloneP50Ms` when measured (`alone`). */
export type Measured = Loaded & { name: string; aloneP50Ms?: number };

/** An untimed warm-up run of a case. */
export interface WarmUp<P> {
  case: LoadCase<P>;
  seconds: number;
  /** Default: the settings' minRequests. */
  minRequests?: number;
}

export interface CeilingRunOptions<P> {
  /** Prefix of log lines and errors ('das', 'zk'). */
  label: string;
  db: Db;
  /** Path of the server script (argv: app|ceiling). */
  serverScript: string;
  databaseUrl: string;
  /** Started servers are added here (the caller kills them on failure); killed at the end. */
  children: ChildProcess[];
  /** The ceiling case and the gateway cases. */
  cases: LoadCase<P>[];
  settings: LoadSettings;
  warmUps: WarmUp<P>[];
  /** Also measure each case's and the ceiling's latency alone (one request at a time). */
  alone?: boolean;
  /** Appended to "5 requests each" in the log (e.g. ", proofs verified"). */
  checkedNote?: string;
  /** Length the params are clipped to in a wrong-answer error. */
  clipParams?: number;
  /** Write a CPU profile of the gateway's process (`node --cpu-prof`) into this directory when it stops. */
  cpuProfDir?: string;
  log: (s?: string) => void;
}

export interface CeilingRun {
  before: Loaded;
  after: Loaded;
  /** With `alone`. */
  ceilingAloneP50Ms?: number;
  measured: Measured[];
}

/** Checks, warms up and measures `cases` against the ceiling (see the file comment). */
export async function measureAgainstCeiling<P>(o: CeilingRunOptions<P>): Promise<CeilingRun> {
  const { label, cases, settings: opts, log } = o;
  const { key } = await createApiKey(o.db, { name: 'bench' });
  const [app, ceiling] = await Promise.all([
    startBenchServer(label, o.serverScript, 'app', o.databaseUrl, opts.pool, o.children, o.cpuProfDir),
    startBenchServer(label, o.serverScript, 'ceiling', o.databaseUrl, opts.pool, o.children),
  ]);
  const rpcPath = `/?api-key=${encodeURIComponent(key)}`;
  const origin = (port: number) => `http://127.0.0.1:${port}`;
  const body = (c: LoadCase<P>, p: P) => (c.target === 'ceiling' ? JSON.stringify(p) : JSON.stringify({ jsonrpc: '2.0', id: 1, method: c.method, params: p }));

  // Every case answers correctly before it is timed.
  for (const c of cases) {
    for (let i = 0; i < 5; i++) {
      const p = c.params();
      const res = await request(`${origin(c.target === 'app' ? app : ceiling)}${c.target === 'app' ? rpcPath : (c.path ?? '/')}`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: body(c, p),
      });
      const json = (await res.body.json()) as { result?: unknown; error?: unknown };
      const problem = res.statusCode !== 200 ? `HTTP ${res.statusCode}` : json.error ? JSON.stringify(json.error) : (c.check?.(json.result, p) ?? null);
      if (problem) throw new Error(`${label}: ${c.name} answered wrongly for ${JSON.stringify(p).slice(0, o.clipParams)}: ${problem}`);
    }
  }
  log(`${label}: every case answered correctly (5 requests each${o.checkedNote ?? ''}); load: ${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s per case (longer, up to ${opts.maxDuration} s, until ${opts.minRequests} requests), pool ${opts.pool} per server`);

  const target = (c: LoadCase<P>) => ({
    origin: origin(c.target === 'app' ? app : ceiling),
    path: c.target === 'app' ? rpcPath : (c.path ?? '/'),
    next: () => body(c, c.params()),
    okPrefix: c.target === 'app' ? '{"jsonrpc":"2.0","result"' : '{"result"',
  });
  const load = async (c: LoadCase<P>, durationS = opts.duration, minRequests = opts.minRequests): Promise<Loaded> => ({
    ...(await runLoad({
      ...target(c),
      connections: opts.connections,
      durationMs: durationS * 1000,
      warmupMs: opts.warmup * 1000,
      minRequests,
      maxDurationMs: opts.maxDuration * 1000,
    })),
    loadAvg: Number(loadavg()[0].toFixed(2)),
  });
  // One connection, one request at a time: the cost of a request without queueing behind the others.
  const alone = async (c: LoadCase<P>) =>
    (await runLoad({ ...target(c), connections: 1, durationMs: 1000, warmupMs: 0, minRequests: 5, maxDurationMs: 30_000 })).p50Ms;

  const ceilingCase = cases.find((c) => c.target === 'ceiling')!;
  // Untimed warm-up of both servers (JIT, connection pools, caches) before anything is measured.
  for (const w of o.warmUps) await load(w.case, w.seconds, w.minRequests);
  const before = await load(ceilingCase);
  log(`${label}: ceiling (before): ${fmt(before.reqPerSec)} req/s, p50 ${fmt(before.p50Ms)} ms, p99 ${fmt(before.p99Ms)} ms`);
  const measured: Measured[] = [];
  for (const c of cases.filter((x) => x !== ceilingCase)) {
    const r = await load(c);
    const a = o.alone ? await alone(c) : undefined;
    log(`${label}: ${c.name}: ${fmt(r.reqPerSec)} req/s, p50 ${fmt(r.p50Ms)} ms, p99 ${fmt(r.p99Ms)} ms${r.errors ? `, ${r.errors} errors (${r.firstError})` : ''}${a === undefined ? '' : `; alone p50 ${fmt(a)} ms`}`);
    measured.push(a === undefined ? { name: c.name, ...r } : { name: c.name, ...r, aloneP50Ms: a });
  }
  const after = await load(ceilingCase);
  log(`${label}: ceiling (after): ${fmt(after.reqPerSec)} req/s, p50 ${fmt(after.p50Ms)} ms, p99 ${fmt(after.p99Ms)} ms`);
  const ceilingAloneP50Ms = o.alone ? await alone(ceilingCase) : undefined;
  await Promise.all(o.children.map((c) => (c.exitCode === null ? new Promise((r) => (c.once('exit', r), c.kill('SIGTERM'))) : null)));
  return { before, after, ceilingAloneP50Ms, measured };
}

/** The report line of the load settings. */
export function loadSettingsLine(s: LoadSettings): string {
  return `    load: ${s.connections} keep-alive connections, ${s.warmup} s warm-up + ${s.duration} s per case (extended up to ${s.maxDuration} s until ${s.minRequests} requests); both servers in child processes with a pg pool of ${s.pool}`;
}

/** Forks `script` in `mode` (with `cpuProfDir`, under `node --cpu-prof`); resolves with its port. */
export function startBenchServer(label: string, script: string, mode: 'app' | 'ceiling', url: string, pool: number, children: ChildProcess[], cpuProfDir?: string): Promise<number> {
  // The gateway runs from the build, as `solgate serve` does (./bench-server.ts): made current first.
  if (mode === 'app') ensureBuild();
  return new Promise((resolve, reject) => {
    const child = fork(script, [mode], {
      execArgv: [...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : []), '--import', 'tsx'],
      env: { ...process.env, BENCH_DATABASE_URL: url, BENCH_POOL_SIZE: String(pool) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    const timer = setTimeout(() => reject(new Error(`${label}: ${mode} server did not start within 60 s`)), 60_000);
    child.once('message', (m: { port?: number }) => {
      clearTimeout(timer);
      if (m.port) resolve(m.port);
      else reject(new Error(`${label}: ${mode} server sent ${JSON.stringify(m)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label}: ${mode} server exited with ${code}`));
    });
  });
}

let built = false;

/** Runs `scripts/build.mjs --if-stale` once per process (it throws when the build fails). */
function ensureBuild(): void {
  if (built) return;
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('bench: the build (scripts/build.mjs) failed');
  built = true;
}
