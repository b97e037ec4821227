/**
 * Coverage on demand: `ensureCovered(address, 'state')` answers whether the index knows `address`'s current state
 * and, when it does not, reads it from the cluster (`sources/wallet-state.ts`) and writes it through the ingester's
 * account path (the same guarded upserts as live data), then follows it live. An index that began at the
 * cluster's first slot knows every address already. Concurrent first requests for one address share one read;
 * a failed read is recorded and answered as partial (the next request tries again).
 */
import type { Logger } from 'pino';
import { isKeyNeed, type CoverageReport, type EnsureCovered, type IndexCoverage, type KeyNeed } from '../core/coverage.js';
import { errorText } from '../core/errors.js';
import type { AccountUpdate } from '../core/model.js';
import type { Db } from '../store/db.js';
import { dueTracked, getIndexOrigin, getStateCoverage, markStateCovered, markStateFailed, trackAddresses } from '../store/coverage.js';
import { fetchWalletState, type WalletState } from '../sources/wallet-state.js';
import { fetchAssetState } from '../sources/asset-state.js';
import type { RpcClient } from '../sources/rpc-client.js';
import { childBackfills, enqueueBackfill, getBackfills, rangesCoverBefore } from '../store/backfill.js';
import type { Backfiller } from './backfill.js';
import { createKeyCoverage } from './hydrate-group.js';
import { getZkHistory } from '../store/zk/history.js';
import { retainedFrom } from '../store/partitions.js';
import { createSingleFlight } from '../core/single-flight.js';
import { createWorkLoop } from '../core/work-loop.js';

export interface CoverageServiceOptions {
  db: Db;
  /** Writes account updates (the ingester's `ingestAccounts`) and waits for derived data (`settle`); needed with `client`. */
  ingester?: { ingestAccounts(updates: AccountUpdate[]): Promise<void>; settle(): Promise<void> };
  /** The cluster RPC; without one, addresses outside the index's own history are answered as partial. */
  client: RpcClient | null;
  commitment: 'confirmed' | 'finalized';
  logger?: Logger;
  /** Test seam: the state read (default: fetchWalletState). */
  fetchState?: (client: RpcClient, address: string) => Promise<WalletState>;
  /** History backfill (`ingest/backfill.ts`); without it, history before the origin is answered as partial. */
  backfill?: Backfiller;
  /** How long a history request waits for its address's backfill before answering partial (default 5 s). */
  historyWaitMs?: number;
}

export interface CoverageService {
  ensureCovered: EnsureCovered;
  /** Complete from genesis, or partial: what happened since the index's origin. */
  indexCoverage: IndexCoverage;
  /**
   * Puts addresses on the watch list (persisted): the tracking loop reads their state ahead of their first request
   * and their history is queued for backfill. Resolves once they are recorded, not once they are read.
   */
  track(addresses: string[]): Promise<void>;
  /** Puts keys that list assets (collections, creators, authorities) on the watch list (`hydrate-group.ts`). */
  trackKeys(need: KeyNeed, keys: string[]): Promise<void>;
  /** Starts the loop that hydrates watched addresses (needs a cluster client; a no-op without one). */
  start(): void;
  stop(): Promise<void>;
}

/** Watched addresses hydrated at once by the tracking loop, and the pause before a failed one is tried again. */
const TRACK_BATCH = 8;
const TRACK_RETRY_MS = 60_000;

/** How often the service looks whether bulk backfills have made the index complete from genesis. */
const RANGES_RECHECK_MS = 10_000;
/**
 * The ZK Compression trees' history state (zk_history) is read at most once per this many ms: every ZK request asks
 * for it, and it changes only when a history read or a rebuild (another process) starts or ends.
 */
const ZK_HISTORY_RECHECK_MS = 1000;

const DEADLOCK = '40P01';
const isDeadlock = (e: unknown) => (e as { code?: string } | null)?.code === DEADLOCK;

export function createCoverageService(o: CoverageServiceOptions): CoverageService {
  if (o.client && !o.ingester) throw new Error('createCoverageService: a cluster client needs an ingester to write what it reads');
  let origin: number | null = null;
  const once = createSingleFlight<CoverageReport>();
  const fetchState = o.fetchState ?? ((client: RpcClient, address: string) => fetchWalletState(client, address, { commitment: o.commitment }));
  // Lists by collection, creator or authority: their own module (reads, persisted rows, watch loop).
  const keys = createKeyCoverage({ db: o.db, ingester: o.ingester, client: o.client, commitment: o.commitment, logger: o.logger, indexOrigin });

  /**
   * Where the index's knowledge begins: the slot live ingestion first started from (read until known), or 0 once
   * bulk backfills (`solgate backfill`) have covered every slot before it.
   */
  let rangesCheckedAt = 0;
  let zkHistory: { at: number; row: Promise<Awaited<ReturnType<typeof getZkHistory>>> } | null = null;
  const zkHistoryNow = () => {
    if (!zkHistory || Date.now() - zkHistory.at > ZK_HISTORY_RECHECK_MS) {
      const row = getZkHistory(o.db);
      zkHistory = { at: Date.now(), row };
      row.catch(() => (zkHistory = null));
    }
    return zkHistory.row;
  };
  async function indexOrigin(): Promise<number | null> {
    if (origin === null) origin = await getIndexOrigin(o.db);
    // Bulk backfills finish rarely: looked at once per RANGES_RECHECK_MS, not on every request.
    if (origin !== null && origin > 0 && Date.now() - rangesCheckedAt > RANGES_RECHECK_MS) {
      rangesCheckedAt = Date.now();
      if (await rangesCoverBefore(o.db, origin)) origin = 0;
    }
    return origin;
  }

  async function hydrate(address: string, need: 'state' | 'asset'): Promise<CoverageReport> {
    const client = o.client!;
    const ingester = o.ingester!;
    try {
      const state = need === 'asset' ? await fetchAssetState(client, address, { commitment: o.commitment }) : await fetchState(client, address);
      for (let attempt = 0; ; attempt++) {
        try {
          await ingester.ingestAccounts(state.updates);
          break;
        } catch (e) {
          // The live ingester writes the same rows in its own order; PostgreSQL picks a victim, which retries.
          if (!isDeadlock(e) || attempt >= 3) throw e;
        }
      }
      // The derived index first, then the mark: a request that sees the mark reads a refreshed index.
      await ingester.settle();
      await markStateCovered(o.db, address, state.slot);
      o.logger?.debug({ address, slot: state.slot, accounts: state.updates.length, calls: state.calls }, 'coverage: hydrated');
      return { complete: true, basis: 'hydrated', slot: state.slot };
    } catch (e) {
      const error = errorText(e);
      o.logger?.warn({ address, err: e }, 'coverage: reading the address from the cluster failed');
      await markStateFailed(o.db, address, error).catch(() => {});
      return { complete: false, basis: 'failed', error };
    }
  }

  /**
   * The history report of `address` once its backfill and those of its token accounts are finished; null while any
   * is queued or running (or was never queued).
   */
  async function historyReport(address: string): Promise<CoverageReport | null> {
    const row = (await getBackfills(o.db, [address])).get(address);
    if (!row || row.status === 'pending' || row.status === 'running') return null;
    if (row.status === 'failed') return { complete: false, basis: 'failed', error: row.lastError ?? 'backfill failed' };
    const kids = await childBackfills(o.db, address);
    if (kids.open > 0) return null;
    if (kids.failed) return { complete: false, basis: 'failed', error: `token account ${kids.failed.address}: ${kids.failed.lastError ?? 'backfill failed'}` };
    const cut = row.status === 'truncated' ? row : kids.truncated;
    if (cut) return { complete: false, basis: 'truncated', slot: cut.oldestSlot ?? undefined, error: cut.lastError ?? undefined };
    return { complete: true, basis: 'backfilled' };
  }

  /** History: complete from genesis, or once the backfills of the address and its token accounts are finished. */
  async function history(address: string): Promise<CoverageReport> {
    const known = await historyReport(address);
    if (known?.complete || known?.basis === 'truncated') return known;
    const origin = await indexOrigin();
    if (!o.client || !o.backfill) return { complete: false, basis: 'no-cluster', slot: origin ?? undefined };
    await enqueueBackfill(o.db, [address]);
    o.backfill.wake();
    const deadline = Date.now() + (o.historyWaitMs ?? 5000);
    for (;;) {
      const r = await historyReport(address);
      if (r) return r;
      const left = deadline - Date.now();
      if (left <= 0) break;
      await o.backfill.nextFinish(Math.min(left, 250));
    }
    const row = (await getBackfills(o.db, [address])).get(address);
    return { complete: false, basis: 'backfilling', slot: row?.oldestSlot ?? origin ?? undefined };
  }

  /**
   * A history that is complete as far as the index goes, unless the retention setting has dropped its older part
   * (src/ingest/retention.ts): then complete only from the slot retention kept everything from.
   */
  async function retained(r: CoverageReport): Promise<CoverageReport> {
    if (!r.complete) return r;
    const from = await retainedFrom(o.db, 'history');
    return from === null ? r : { complete: false, basis: 'retention', slot: from };
  }

  const ensureCovered: EnsureCovered = async (address, need) => {
    if ((await indexOrigin()) === 0) return need === 'history' ? retained({ complete: true, basis: 'genesis' }) : { complete: true, basis: 'genesis' };
    if (need === 'history') return retained(await history(address));
    if (isKeyNeed(need)) return keys.ensure(address, need);
    const known = (await getStateCoverage(o.db, [address])).get(address);
    if (known !== undefined) return { complete: true, basis: 'hydrated', slot: known };
    if (!o.client) return { complete: false, basis: 'no-cluster' };
    // One read per address at a time; an asset id and a wallet are read differently (an address is one or the other).
    return once(`${need}:${address}`, () => hydrate(address, need));
  };

  // The tracking loop: hydrates watched addresses whose state was never read, a few at a time.
  const loop = createWorkLoop(async () => {
    try {
      const due = (await indexOrigin()) === 0 ? [] : await dueTracked(o.db, TRACK_BATCH, TRACK_RETRY_MS);
      await Promise.all(due.map((a) => ensureCovered(a, 'state')));
      return due.length > 0;
    } catch (e) {
      o.logger?.warn({ err: e }, 'coverage: tracking round failed');
      return false;
    }
  }, { idleMs: 2000 });

  return {
    ensureCovered,
    async indexCoverage(family) {
      const origin = await indexOrigin();
      // The trees' history being read again (a rebuild, src/ingest/zk-rebuild.ts) makes the ZK index partial even on
      // an index that began at the first slot.
      const zk = family === 'zk' ? await zkHistoryNow() : null;
      if (origin === 0 && zk?.status !== 'running') return { complete: true, basis: 'genesis' };
      if (origin === null) return { complete: false, basis: 'no-cluster' };
      if (family === 'zk') {
        if (zk?.status === 'done') return { complete: true, basis: 'backfilled' };
        if (zk?.status === 'running') return { complete: false, basis: 'backfilling', slot: Math.max(origin, zk.origin) };
        if (zk?.status === 'truncated') return { complete: false, basis: 'truncated', slot: zk.oldestSlot ?? origin, error: zk.lastError ?? undefined };
        if (zk?.status === 'failed') return { complete: false, basis: 'failed', error: zk.lastError ?? 'reading the trees\' history failed' };
      }
      return { complete: false, basis: 'since-origin', slot: origin };
    },
    async track(addresses) {
      const list = [...new Set(addresses)];
      await trackAddresses(o.db, list);
      if (o.backfill && o.client && (await indexOrigin()) !== 0) {
        await enqueueBackfill(o.db, list);
        o.backfill.wake();
      }
      loop.wake();
    },
    trackKeys: (need, list) => keys.track(need, list),
    start() {
      if (o.client) loop.start();
      keys.start();
    },
    async stop() {
      await loop.stop();
      await keys.stop();
    },
  };
}
