/** Concurrent calls for one key share one run: the first starts `fn`, the others get its promise until it settles. */
export function createSingleFlight<T>(): (key: string, fn: () => Promise<T>) => Promise<T> {
  const inflight = new Map<string, Promise<T>>();
  return (key, fn) => {
    let p = inflight.get(key);
    if (!p) {
      p = fn().finally(() => inflight.delete(key));
      inflight.set(key, p);
    }
    return p;
  };
}
