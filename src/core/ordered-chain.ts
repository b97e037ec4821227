/**
 * An ordered chain of async steps with a bounded backlog: each item added starts at once and its step runs after
 * the steps of every earlier item have finished, so the items' effects come out in the order they were added
 * whatever the time each takes. More than `max` items waiting ends the chain (through `fail`, with `overflow()`'s
 * error) rather than letting the backlog grow; so may a step (`end`). Once ended, adding does nothing and steps
 * still waiting see `ended`. (A subscription's sender whose notifications wait on something: the cluster's parse
 * of each transaction, the cluster finalizing each one's slot.)
 */
export interface OrderedChain {
  /** Whether the chain has ended (over its backlog bound, or through `end`). */
  readonly ended: boolean;
  /**
   * Adds an item: unless the chain has ended or the item takes it over its bound, `start` runs now and returns the
   * item's step, which runs once the earlier steps have finished. The item waits (counts toward the bound) until its
   * step has finished.
   */
  add(start: () => () => Promise<void>): void;
  /** Ends the chain through `fail` (only the first end calls it). */
  end(e: Error): void;
}

export function orderedChain(max: number, overflow: () => Error, fail: (e: Error) => void): OrderedChain {
  let chain: Promise<void> = Promise.resolve();
  let backlog = 0;
  let ended = false;
  const end = (e: Error): void => {
    if (ended) return;
    ended = true;
    fail(e);
  };
  return {
    get ended() {
      return ended;
    },
    end,
    add(start) {
      if (ended) return;
      if (++backlog > max) return end(overflow());
      const step = start();
      chain = chain.then(async () => {
        try {
          await step();
        } finally {
          backlog--;
        }
      });
    },
  };
}
