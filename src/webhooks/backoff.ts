/**
 * When to try a failed delivery again: exponential backoff with full jitter in its upper half
 * (delay = min(max, base * 2^(attempt-1)) * (0.5 + random/2)), so retries of many events spread out. Pure.
 */
export interface RetryPolicy {
  /** Delay before the first retry (ms). */
  baseMs: number;
  /** Largest delay between two attempts (ms). */
  maxMs: number;
  /** How long after being queued an event is still retried (ms); after that it is marked failed. */
  windowMs: number;
}

/** Delay after the `attempt`-th failed attempt (1-based); `random` in [0, 1). */
export function retryDelayMs(attempt: number, p: RetryPolicy, random: number): number {
  const exp = Math.min(p.maxMs, p.baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.round(exp * (0.5 + random / 2));
}

/** Whether another attempt at `nextAt` still falls in the retry window of an event queued at `queuedAt`. */
export function withinWindow(queuedAtMs: number, nextAtMs: number, p: RetryPolicy): boolean {
  return nextAtMs - queuedAtMs <= p.windowMs;
}
