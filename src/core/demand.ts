/**
 * How many live subscriptions need the stream of committed blocks. A process without an ingester reads that stream
 * from the cluster (src/ingest/committed-feed.ts), and only while someone listens: the feed starts on the first
 * acquire and stops after the last release.
 */
export interface Demand {
  /** Counts one more listener; the returned function releases it (once; later calls do nothing). */
  acquire(): () => void;
  readonly active: boolean;
  /** Called with true when the first listener arrives and false when the last one leaves. */
  onChange(cb: (active: boolean) => void): void;
  /**
   * Resolves once the stream has fixed the slot it starts from (at once when it needs no start-up): a reader of the
   * index's past waits for it, so the past it reads reaches at least that slot and nothing falls between the two.
   */
  started(): Promise<void>;
  /** Set by the stream while it starts. */
  starting(p: Promise<void>): void;
}

export function createDemand(): Demand {
  let n = 0;
  const listeners: ((active: boolean) => void)[] = [];
  let start: Promise<void> = Promise.resolve();
  const tell = (active: boolean) => {
    for (const cb of listeners) cb(active);
  };
  return {
    acquire() {
      if (n++ === 0) tell(true);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--n === 0) tell(false);
      };
    },
    get active() {
      return n > 0;
    },
    onChange(cb) {
      listeners.push(cb);
    },
    started: () => start,
    starting(p) {
      start = p.catch(() => {});
    },
  };
}
