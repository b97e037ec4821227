/**
 * The cluster's current slot, refreshed in the background (`getSlot` once per interval), for freshness checks that
 * must not depend on the ingester keeping up: `getIndexerHealth` and `/ready` compare the indexed slot with it. The
 * poller's own view of the tip stops moving when ingestion stalls (its reader waits for the writer), so it alone
 * would report a stalled indexer as healthy.
 */
import type { Logger } from 'pino';
import { createRpcClient } from './rpc-client.js';

export interface TipWatcher {
  /** The last slot the cluster reported (null before the first answer). */
  readonly tip: number | null;
  /** Refreshes now (also what the timer calls). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

export function createTipWatcher(url: string, opts: { commitment?: 'confirmed' | 'finalized'; intervalMs?: number; logger?: Logger } = {}): TipWatcher {
  const client = createRpcClient({ url, maxRetries: 0, requestTimeoutMs: 5000 });
  let tip: number | null = null;
  let failing = false;
  const refresh = async () => {
    try {
      const s = await client.call<number>('getSlot', [{ commitment: opts.commitment ?? 'confirmed' }]);
      if (Number.isSafeInteger(s) && s >= 0) tip = Math.max(tip ?? 0, s);
      failing = false;
    } catch (err) {
      if (!failing) opts.logger?.warn({ err }, 'tip watcher: getSlot failed (keeping the last known tip)');
      failing = true;
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), opts.intervalMs ?? 1000);
  timer.unref();
  return {
    get tip() {
      return tip;
    },
    refresh,
    async close() {
      clearInterval(timer);
      await client.close();
    },
  };
}
