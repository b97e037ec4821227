/** Latency percentiles of a benchmark's samples, and the child-process and timing helpers several benchmarks use. */
import type { ChildProcess } from 'node:child_process';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Percentiles {
  n: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

/** Nearest-rank percentiles of `values` (milliseconds), rounded to `decimals`. */
export function percentiles(values: number[], decimals = 2): Percentiles {
  const a = [...values].sort((x, y) => x - y);
  const n = a.length;
  const p = (q: number) => (n ? a[Math.min(n - 1, Math.floor(q * n))] : NaN);
  const r = (x: number) => Number(x.toFixed(decimals));
  return { n, p50Ms: r(p(0.5)), p90Ms: r(p(0.9)), p99Ms: r(p(0.99)), maxMs: r(n ? a[n - 1] : NaN), meanMs: r(n ? a.reduce((s, x) => s + x, 0) / n : NaN) };
}

/** SIGTERM (a solgate process shuts down gracefully), SIGKILL after 10 s. */
export async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGTERM');
  const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}
