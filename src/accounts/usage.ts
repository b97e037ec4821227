/**
 * The usage recorder: counts calls and credits per (key, UTC day, method) in memory and writes them to PostgreSQL
 * (src/store/usage.ts) with one statement every `flushMs`, and on `close()` — so a request never waits for a
 * database write. A flush that fails keeps its counts for the next one (nothing is dropped while the process
 * lives; a crash loses at most one interval of counts).
 */
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { addUsage, type UsageDelta } from '../store/usage.js';

export interface UsageRecorder {
  /** Counts one call of `method` by `keyId` costing `credits`. */
  record(keyId: string, method: string, credits: number, at?: Date): void;
  /** Writes what was counted so far. */
  flush(): Promise<void>;
  /** Flushes and stops the timer. */
  close(): Promise<void>;
}

export const utcDay = (d: Date): string => d.toISOString().slice(0, 10);

export function createUsageRecorder(db: Db, o: { flushMs?: number; logger?: Logger } = {}): UsageRecorder {
  // The current UTC day, formatted once per day (a delivery worker records thousands of events per second).
  let dayNumber = -1;
  let dayText = '';
  const today = (): string => {
    const now = Date.now();
    const n = Math.floor(now / 86_400_000);
    if (n !== dayNumber) [dayNumber, dayText] = [n, utcDay(new Date(now))];
    return dayText;
  };
  let pending = new Map<string, UsageDelta>();
  let flushing: Promise<void> | null = null;
  const timer = setInterval(() => {
    recorder.flush().catch(() => {});
  }, o.flushMs ?? 5000);
  timer.unref();

  const recorder: UsageRecorder = {
    record(keyId, method, credits, at) {
      const day = at ? utcDay(at) : today();
      const k = `${keyId}\u0000${day}\u0000${method}`;
      const cur = pending.get(k);
      if (cur) {
        cur.calls++;
        cur.credits += credits;
      } else pending.set(k, { keyId, day, method, calls: 1, credits });
    },
    async flush() {
      if (flushing) await flushing;
      if (!pending.size) return;
      const batch = pending;
      pending = new Map();
      flushing = (async () => {
        try {
          await addUsage(db, [...batch.values()]);
        } catch (err) {
          // Put the counts back (merged with what arrived meanwhile) for the next flush.
          for (const [k, d] of batch) {
            const cur = pending.get(k);
            if (cur) {
              cur.calls += d.calls;
              cur.credits += d.credits;
            } else pending.set(k, d);
          }
          o.logger?.warn({ err }, 'usage: flush failed; kept for the next one');
          throw err;
        } finally {
          flushing = null;
        }
      })();
      await flushing;
    },
    async close() {
      clearInterval(timer);
      await recorder.flush().catch(() => {});
    },
  };
  return recorder;
}
