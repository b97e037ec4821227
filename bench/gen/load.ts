/**
 * A small closed-loop HTTP load generator (autocannon is not a dependency): `connections` keep-alive connections
 * (undici Pool, no pipelining), each sending the next request as soon as the previous answer's body has been read,
 * for a fixed duration after a warm-up; throughput and latencies are those of the requests completing inside the
 * measured window. Every request body comes from `next()` (random ids/owners per request).
 * A response counts as OK when the status is 200 and the body starts with `okPrefix` (bodies are not parsed, so
 * large answers cost the client little). Latency is from sending to the last body byte.
 */
import { Pool } from 'undici';

export interface LoadOptions {
  origin: string;
  path: string;
  connections: number;
  durationMs: number;
  warmupMs: number;
  /** Slow cases: the window is extended (up to `maxDurationMs`) until this many requests completed in it. */
  minRequests?: number;
  maxDurationMs?: number;
  next: () => string;
  okPrefix: string;
  /** A stricter check of an answer whose status is 200 and body starts with `okPrefix` (e.g. no JSON-RPC error). */
  ok?: (text: string) => boolean;
}

export interface LoadResult {
  requests: number;
  errors: number;
  /** First failing body (truncated), to say what went wrong. */
  firstError: string | null;
  reqPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  /** Mean response body size. */
  bytesPerResponse: number;
  /** Length of the measured window. */
  durationMs: number;
}

/** The q-quantile (0..1) of sorted values (nearest rank). */
export function quantile(sorted: Float64Array, q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(o.origin, { connections: o.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  let lat = new Float64Array(1 << 16);
  let n = 0;
  let errors = 0;
  let bytes = 0;
  let firstError: string | null = null;
  const start = performance.now();
  const measureFrom = start + o.warmupMs;
  const end = measureFrom + o.durationMs;
  const hardEnd = measureFrom + Math.max(o.durationMs, o.maxDurationMs ?? 0);
  const minRequests = o.minRequests ?? 0;
  // The measured window closes at the first completion after `end` once `minRequests` are in (or at `hardEnd`).
  let stopAt = Infinity;

  const worker = async () => {
    while (true) {
      const t0 = performance.now();
      if (t0 >= stopAt) return;
      let ok = false;
      let text = '';
      try {
        const res = await pool.request({ path: o.path, method: 'POST', headers: { 'content-type': 'application/json' }, body: o.next() });
        text = await res.body.text();
        ok = res.statusCode === 200 && text.startsWith(o.okPrefix) && (!o.ok || o.ok(text));
        if (!ok) text = `HTTP ${res.statusCode}: ${text}`;
      } catch (e) {
        text = e instanceof Error ? e.message : String(e);
      }
      const t1 = performance.now();
      if (t1 < measureFrom || t1 > stopAt) continue; // completions inside the measured window
      if (t1 >= hardEnd || (t1 >= end && n + errors + 1 >= minRequests)) stopAt = t1;
      if (!ok) {
        errors++;
        firstError ??= text.slice(0, 300);
        continue;
      }
      if (n === lat.length) {
        const bigger = new Float64Array(lat.length * 2);
        bigger.set(lat);
        lat = bigger;
      }
      lat[n++] = t1 - t0;
      bytes += text.length;
    }
  };
  await Promise.all(Array.from({ length: o.connections }, worker));
  await pool.close();
  const windowMs = stopAt - measureFrom;
  const sorted = lat.slice(0, n).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    requests: n,
    errors,
    firstError,
    reqPerSec: n / (windowMs / 1000),
    p50Ms: quantile(sorted, 0.5),
    p90Ms: quantile(sorted, 0.9),
    p99Ms: quantile(sorted, 0.99),
    maxMs: n ? sorted[n - 1] : NaN,
    meanMs: n ? sum / n : NaN,
    bytesPerResponse: n ? Math.round(bytes / n) : 0,
    durationMs: Math.round(windowMs),
  };
}
