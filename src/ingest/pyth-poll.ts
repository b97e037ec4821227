/**
 * Pyth feed polling: every `intervalMs`, the configured PriceUpdateV2 accounts are read from the cluster
 * (`getMultipleAccounts`) and written through the ingester's account path (fold → guarded `pyth_prices` upsert: an
 * update older than the stored one changes nothing). Runs in the process that ingests (serve with a cluster,
 * `solgate ingest`); API-only processes read what it wrote. A failed read is logged and retried at the next tick.
 */
import type { Logger } from 'pino';
import type { AccountUpdate } from '../core/model.js';
import { decodePythAccount } from '../parsers/pyth/price-update.js';
import type { Ingester } from './pipeline.js';

export interface PythPollerOptions {
  /** The PriceUpdateV2 accounts to read. */
  accounts: readonly string[];
  fetchAccounts: (keys: string[]) => Promise<AccountUpdate[]>;
  ingester: Pick<Ingester, 'ingestAccounts'>;
  intervalMs: number;
  logger?: Pick<Logger, 'warn' | 'debug'>;
}

export interface PythPoller {
  /** Reads the accounts once and writes the price updates among them; returns how many were written. */
  pollOnce(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export function createPythPoller(o: PythPollerOptions): PythPoller {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;

  async function pollOnce(): Promise<number> {
    if (!o.accounts.length) return 0;
    const updates = (await o.fetchAccounts([...o.accounts])).filter((u) => decodePythAccount(u) !== null);
    if (updates.length) await o.ingester.ingestAccounts(updates);
    o.logger?.debug({ accounts: o.accounts.length, written: updates.length }, 'prices: Pyth feed accounts read');
    return updates.length;
  }

  const tick = () => {
    timer = null;
    running = pollOnce()
      .catch((err: unknown) => o.logger?.warn({ err }, 'prices: reading the Pyth feed accounts failed; retrying at the next poll'))
      .finally(() => {
        running = null;
        if (!stopped) timer = setTimeout(tick, o.intervalMs);
      });
  };

  return {
    pollOnce,
    start() {
      if (stopped || timer || running || o.intervalMs <= 0 || !o.accounts.length) return;
      tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
