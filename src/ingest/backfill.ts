/**
 * Per-address history backfill worker: claims queued addresses (`store/backfill.ts`, shared by every process through
 * `SKIP LOCKED` leases), reads each one's signatures from the cluster back to its first transaction
 * (`sources/address-history.ts`), fetches the transactions older than the index's origin (newer ones are live
 * ingestion's) and writes them through the ingester's history path — the same parse → fold → guarded writes as live
 * blocks, so a backfill run twice, or beside live ingestion, changes nothing. The cursor advances after each written
 * page: a killed backfill resumes from its last page without gaps or duplicates.
 */
import type { Logger } from 'pino';
import type { NormalizedTx } from '../core/model.js';
import { errorText } from '../core/errors.js';
import { createWorkLoop } from '../core/work-loop.js';
import type { Db } from '../store/db.js';
import { getIndexOrigin } from '../store/coverage.js';
import { getCheckpoint } from '../store/chain.js';
import { advanceBackfill, claimBackfill, enqueueBackfill, finishBackfill, getBackfills, indexedSignatures, ownedTokenAccounts, releaseRunningBackfills, type BackfillRow } from '../store/backfill.js';
import { fetchSignaturePage, fetchTransactions, MAX_SIGNATURES_PER_PAGE, placeInBlocks } from '../sources/address-history.js';
import type { RpcClient } from '../sources/rpc-client.js';

export interface BackfillerOptions {
  db: Db;
  ingester: { ingestHistory(txs: NormalizedTx[]): Promise<void> };
  client: RpcClient;
  commitment: 'confirmed' | 'finalized';
  logger?: Logger;
  /** `getTransaction` calls in flight per address (default 8). */
  concurrency?: number;
  /** Lease of a claimed address, renewed with every page (default 60 s). */
  leaseMs?: number;
  /** Idle poll for work queued by other processes (default 2 s). */
  idleMs?: number;
  /** Signatures per page (default and maximum 1000). */
  pageSize?: number;
  /**
   * Take back running backfills at start (their lease holder is gone): only for a database a single process opens
   * (the embedded one); with PostgreSQL other processes may hold them, and an abandoned lease expires after `leaseMs`.
   */
  reclaimOnStart?: boolean;
}

export interface Backfiller {
  start(): void;
  stop(): Promise<void>;
  /** Work was queued: claim it now instead of at the next idle poll. */
  wake(): void;
  /** Resolves with `address`'s backfill row once it is finished, or as it is after `ms`. */
  waitFor(address: string, ms: number): Promise<BackfillRow | null>;
  /** Resolves when this worker finishes any address, or after `ms`. */
  nextFinish(ms: number): Promise<void>;
}

const FINISHED = new Set(['done', 'truncated', 'failed']);

export function createBackfiller(o: BackfillerOptions): Backfiller {
  const leaseMs = o.leaseMs ?? 60_000;
  const pageSize = Math.min(MAX_SIGNATURES_PER_PAGE, o.pageSize ?? MAX_SIGNATURES_PER_PAGE);
  // Aborted by stop(): the RPC calls of an address in flight end with it.
  const ctl = new AbortController();
  const finished = new Set<() => void>();

  /** Backfills one claimed address to its first signature (or as far as the cluster serves). */
  async function backfill(row: BackfillRow): Promise<void> {
    /**
     * Ends the address's run. A wallet's history includes its token accounts' transactions (a transfer into one does
     * not name the wallet), so their backfills are queued first: a history request that sees the wallet finished
     * sees them queued too, never a finished wallet with its token accounts not yet queued (answered complete while
     * their transactions are missing).
     */
    const finish = async (status: 'done' | 'truncated' | 'failed', opts: Parameters<typeof finishBackfill>[3] = {}): Promise<void> => {
      if (row.parent === null) await enqueueBackfill(o.db, await ownedTokenAccounts(o.db, row.address), row.address);
      await finishBackfill(o.db, row.address, status, opts);
    };
    const origin = await getIndexOrigin(o.db);
    if (origin === null) return finish('failed', { error: 'the index has not started live ingestion, so it has no origin slot to backfill to' });
    let cursor = row.cursor;
    /**
     * The end of the signatures reached: the history is complete only if the cluster keeps its ledger from the
     * first slot; a node that pruned it lists no older signatures, which proves nothing about them.
     */
    const end = async (): Promise<void> => {
      const first = Number(await o.client.call<unknown>('getFirstAvailableBlock', [], ctl.signal));
      if (!Number.isSafeInteger(first) || first <= 0) return finish('done', { ranAsRepair: row.repair });
      return finish('truncated', { error: `the cluster serves its ledger only from slot ${first} on: older history is not available`, oldestSlot: first, ranAsRepair: row.repair });
    };
    for (;;) {
      const page = await fetchSignaturePage(o.client, row.address, cursor, { commitment: o.commitment, limit: pageSize, signal: ctl.signal });
      if (!page.length) return end();
      // Transactions at or after the origin are ingested live (with their true position in the block); those already
      // indexed (e.g. by the backfill of the wallet that owns this token account) are written whole already. A repair
      // run (the drift detector found this address behind the cluster) also writes those from the origin up to the
      // checkpoint that live ingestion missed; later ones are live ingestion's still.
      const known = await indexedSignatures(o.db, page.map((s) => s.signature));
      const upTo = row.repair ? ((await getCheckpoint(o.db)) ?? -1) : -1;
      const older = page.filter((s) => (s.slot < origin || s.slot <= upTo) && !known.has(s.signature));
      const txs = await fetchTransactions(o.client, older.map((s) => s.signature), { commitment: o.commitment, concurrency: o.concurrency, signal: ctl.signal });
      const missing = txs.findIndex((t) => t === null);
      const got = await placeInBlocks(o.client, (missing < 0 ? txs : txs.slice(0, missing)) as NormalizedTx[], { commitment: o.commitment, signal: ctl.signal, concurrency: o.concurrency });
      await o.ingester.ingestHistory(got);
      const last = missing < 0 ? page[page.length - 1] : missing > 0 ? older[missing - 1] : null;
      if (last) await advanceBackfill(o.db, row.address, { cursor: last.signature, oldestSlot: last.slot, transactions: got.length, leaseMs });
      if (missing >= 0) {
        const gone = older[missing];
        return finish('truncated', { error: `the cluster does not serve transaction ${gone.signature} (slot ${gone.slot}): history before it is not available`, oldestSlot: last?.slot ?? gone.slot + 1, ranAsRepair: row.repair });
      }
      cursor = page[page.length - 1].signature;
      if (page.length < pageSize) return end();
    }
  }

  const loop = createWorkLoop(async () => {
    let row: BackfillRow | null = null;
    try {
      row = await claimBackfill(o.db, leaseMs);
      if (row) {
        await backfill(row);
        o.logger?.info({ address: row.address }, 'backfill: address finished');
      }
    } catch (e) {
      if (ctl.signal.aborted) return false;
      o.logger?.warn({ err: e, address: row?.address }, 'backfill: failed');
      if (row) await finishBackfill(o.db, row.address, 'failed', { error: errorText(e) }).catch(() => {});
    }
    for (const f of finished) f();
    return row !== null;
  }, {
    idleMs: o.idleMs ?? 2000,
    before: async () => {
      if (!o.reclaimOnStart) return;
      const n = await releaseRunningBackfills(o.db).catch((err) => (o.logger?.warn({ err }, 'backfill: releasing stale leases failed'), 0));
      if (n) o.logger?.info({ addresses: n }, 'backfill: resuming backfills an earlier process was running');
    },
  });

  return {
    start: loop.start,
    wake: loop.wake,
    async stop() {
      ctl.abort();
      await loop.stop();
    },
    nextFinish(ms) {
      return new Promise<void>((r) => {
        const done = () => {
          finished.delete(done);
          clearTimeout(t);
          r();
        };
        const t = setTimeout(done, ms);
        finished.add(done);
      });
    },
    async waitFor(address, ms) {
      const end = Date.now() + ms;
      for (;;) {
        const row = (await getBackfills(o.db, [address])).get(address) ?? null;
        const left = end - Date.now();
        if (!row || FINISHED.has(row.status) || left <= 0) return row;
        await new Promise<void>((r) => {
          const done = () => {
            finished.delete(done);
            clearTimeout(t);
            r();
          };
          const t = setTimeout(done, Math.min(left, 250));
          finished.add(done);
        });
      }
    },
  };
}
