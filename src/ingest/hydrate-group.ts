/**
 * Coverage of keys that list assets (docs/coverage.md, "Lists by collection, creator or authority"): the first
 * getAssetsByGroup / getAssetsByCreator / getAssetsByAuthority / searchAssets request about a key the index has not
 * covered reads the key's assets from the cluster (`sources/group-state.ts`, `getProgramAccounts` filters) and
 * writes them through the ingester's guarded account path, in one write: a read that fails part-way writes nothing.
 * `key_coverage` then records the slot and whether the accounts are every asset of the key; live ingestion keeps
 * them current. Concurrent first requests for one key share one read; a failed read is recorded and answered as
 * partial (the next request tries again). Watched keys are read ahead of their first request.
 *
 * Used by the coverage service (`hydrate.ts`), which answers for an index complete from genesis before asking here.
 */
import { createSingleFlight } from '../core/single-flight.js';
import { createWorkLoop } from '../core/work-loop.js';
import type { Logger } from 'pino';
import { keyReadReport as readReport, type CoverageReport, type KeyNeed } from '../core/coverage.js';
import { errorText } from '../core/errors.js';
import type { AccountUpdate } from '../core/model.js';
import type { Db } from '../store/db.js';
import { dueTrackedKeys, getKeyCoverage, markKeyCovered, markKeyFailed, trackKeys } from '../store/key-coverage.js';
import { fetchKeyState, type KeyState } from '../sources/group-state.js';
import type { RpcClient } from '../sources/rpc-client.js';

export interface KeyCoverageOptions {
  db: Db;
  /** Writes account updates and waits for derived data (the DAS list index); needed with `client`. */
  ingester?: { ingestAccounts(updates: AccountUpdate[]): Promise<void>; settle(): Promise<void> };
  client: RpcClient | null;
  commitment: 'confirmed' | 'finalized';
  logger?: Logger;
  /** Where the index's knowledge begins (the coverage service's): null before any live ingestion. */
  indexOrigin: () => Promise<number | null>;
  /** Test seam: the read (default: fetchKeyState). */
  fetchKey?: (client: RpcClient, need: KeyNeed, key: string) => Promise<KeyState>;
}

export interface KeyCoverage {
  /** The coverage of `key`'s list for `need`, reading it from the cluster first when it was never read. */
  ensure(key: string, need: KeyNeed): Promise<CoverageReport>;
  /** Puts keys on the watch list (persisted); the loop reads them ahead of their first request. */
  track(need: KeyNeed, keys: string[]): Promise<void>;
  /** Starts the loop that reads watched keys (needs a cluster client; a no-op without one). */
  start(): void;
  stop(): Promise<void>;
}

/** Watched keys read at once by the loop, and the pause before a failed one is tried again. */
const TRACK_BATCH = 2;
const TRACK_RETRY_MS = 60_000;

const DEADLOCK = '40P01';
const isDeadlock = (e: unknown) => (e as { code?: string } | null)?.code === DEADLOCK;

export function createKeyCoverage(o: KeyCoverageOptions): KeyCoverage {
  if (o.client && !o.ingester) throw new Error('createKeyCoverage: a cluster client needs an ingester to write what it reads');
  const once = createSingleFlight<CoverageReport>();
  const fetchKey = o.fetchKey ?? ((client: RpcClient, need: KeyNeed, key: string) => fetchKeyState(client, need, key, { commitment: o.commitment }));

  async function read(key: string, need: KeyNeed): Promise<CoverageReport> {
    try {
      const state = await fetchKey(o.client!, need, key);
      for (let attempt = 0; ; attempt++) {
        try {
          // One write for everything read: a failure before it leaves nothing half-written.
          await o.ingester!.ingestAccounts(state.updates);
          break;
        } catch (e) {
          // The live ingester writes the same rows in its own order; PostgreSQL picks a victim, which retries.
          if (!isDeadlock(e) || attempt >= 3) throw e;
        }
      }
      // The derived index first, then the mark: a request that sees the mark (outside the single flight,
      // which ends with this read) reads a refreshed index.
      await o.ingester!.settle();
      await markKeyCovered(o.db, need, key, state.slot, state.partial);
      o.logger?.debug({ key, need, slot: state.slot, assets: state.assets, accounts: state.updates.length, calls: state.calls, partial: state.partial }, 'coverage: key read');
      return readReport(state.slot, state.partial);
    } catch (e) {
      const error = errorText(e);
      o.logger?.warn({ key, need, err: e }, 'coverage: reading the key\'s assets from the cluster failed');
      await markKeyFailed(o.db, need, key, error).catch(() => {});
      return { complete: false, basis: 'failed', error };
    }
  }

  async function ensure(key: string, need: KeyNeed): Promise<CoverageReport> {
    const known = await getKeyCoverage(o.db, need, key);
    if (known?.slot != null) return readReport(known.slot, known.partial);
    if (!o.client) {
      // What the index holds is what happened since it began.
      const origin = await o.indexOrigin();
      return origin === null ? { complete: false, basis: 'no-cluster' } : { complete: false, basis: 'since-origin', slot: origin };
    }
    return once(`${need}:${key}`, () => read(key, need));
  }

  // The watch loop: reads watched keys never read, a few at a time.
  const loop = createWorkLoop(async () => {
    try {
      const due = (await o.indexOrigin()) === 0 ? [] : await dueTrackedKeys(o.db, TRACK_BATCH, TRACK_RETRY_MS);
      await Promise.all(due.map((d) => ensure(d.key, d.need)));
      return due.length > 0;
    } catch (e) {
      o.logger?.warn({ err: e }, 'coverage: key tracking round failed');
      return false;
    }
  }, { idleMs: 2000 });

  return {
    ensure,
    async track(need, keys) {
      await trackKeys(o.db, need, [...new Set(keys)]);
      loop.wake();
    },
    start() {
      if (o.client) loop.start();
    },
    async stop() {
      await loop.stop();
    },
  };
}
