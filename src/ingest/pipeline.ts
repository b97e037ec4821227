/**
 * The ingest pipeline: source → walk/parse (pure) → fold (pure) → store.writeUpdates (one SQL transaction).
 * Blocks that arrive while a write is in flight are written together in the next transaction, so catching
 * up is batched and a live tip is written block by block.
 */
import type { Logger } from 'pino';
import type { AccountUpdate, Block, NormalizedTx } from '../core/model.js';
import type { Db } from '../store/db.js';
import { writeUpdates, writeUpdatesInTx } from '../store/write-block.js';
import { getIndexOrigin, recordIndexOrigin } from '../store/coverage.js';
import { getCheckpoint, notifyBlocksWritten } from '../store/chain.js';
import type { BlockUpdate } from '../store/block-update.js';
import { parseTransaction } from '../parsers/registry.js';
import type { BlockSource } from '../sources/source.js';
import { type ParsedTx } from './fold-block.js';
import { foldAhead, foldBlocks, foldWithCnft, historyBlocks, lookupContext, yieldToEventLoop } from './pipeline-prepare.js';
import { foldAccounts } from './fold-accounts.js';
import { createAssetIndexer } from './asset-index.js';
import { mergeZkPending, type ZkPending } from './fold-zk.js';
import type { TreeAccountFetcher } from './light-trees.js';
import { createZkStage, type ZkStage } from './zk-stage.js';
import { createWebhookStage } from './webhook-stage.js';
import type { Matches } from '../core/webhook-types.js';
import { run as runStatement } from '../store/bulk.js';
import { priorityFeesStatement, prunePriorityFees } from '../store/priority-fees.js';
import { foldPriorityFees } from './fold-priority-fees.js';

export interface IngestStats {
  blocks: number;
  transactions: number;
  accounts: number;
  lastSlot: number | null;
  writes: number;
}

export interface Ingester {
  stats: IngestStats;
  /** Parses, folds and writes blocks in one transaction. */
  ingestBlocks(blocks: Block[]): Promise<void>;
  /**
   * Folds and writes transactions read back from the cluster's history (backfill): the same parse → fold → guarded
   * writes as live blocks, without block rows, checkpoint, webhook events or ZK Compression rows.
   */
  ingestHistory(txs: NormalizedTx[]): Promise<void>;
  /** The same for whole blocks of the past (bulk backfill of a slot range): their block rows are written too. */
  ingestHistoryBlocks(blocks: Block[]): Promise<void>;
  /**
   * Transactions of the ZK Compression trees' past, in chain order (src/ingest/zk-history.ts): as
   * {@link ingestHistory}, plus their ZK Compression rows and tree nodes. Only before live ingestion has written a
   * block: the trees must move in order.
   */
  ingestZkHistory(txs: NormalizedTx[]): Promise<void>;
  /**
   * Queues `webhookId`'s events of transactions read from the cluster (a replay, src/ingest/webhook-replay.ts): the
   * same parse, classification and matching as live blocks, for that webhook alone; events it has already are kept
   * as they are. Resolves with the number of matching transactions.
   */
  replayWebhook(webhookId: string, txs: NormalizedTx[]): Promise<number>;
  /** Folds and writes account updates in one transaction. */
  ingestAccounts(updates: AccountUpdate[]): Promise<void>;
  /**
   * Follows a source until it ends or `signal` aborts: from `fromSlot` when given, else from checkpoint + 1, else
   * from `startSlot` (0 by default).
   */
  run(source: BlockSource, opts?: RunOptions): Promise<void>;
  /**
   * A writer of consecutive batches of blocks, in order, one SQL transaction per batch, where each batch is parsed
   * and folded while the previous batch's write is in flight (as {@link run} does, for a caller that reads its own
   * blocks: a replay). `push` resolves once the batch is prepared and its write started (after the previous write
   * has committed); `flush` resolves once the last write committed, and must be called before any other write.
   * A failed write is thrown by the next `push` or by `flush`.
   */
  pipelined(): BlockWriter;
  /** Resolves once derived data (the DAS list index) reflects every write made so far. */
  settle(): Promise<void>;
  /** The ZK Compression stage (its tree registry and counters). */
  readonly zk: ZkStage;
}

export interface BlockWriter {
  push(blocks: Block[]): Promise<void>;
  flush(): Promise<void>;
}

export interface RunOptions {
  startSlot?: number;
  fromSlot?: number;
  signal?: AbortSignal;
  maxBatch?: number;
  /**
   * Runs once before the first live block of an index is written (not again once the checkpoint exists), with the
   * slot live ingestion begins at: the place to read history that must be applied before live blocks (the ZK
   * Compression trees').
   */
  beforeLive?: (from: number, signal: AbortSignal) => Promise<void>;
  /** Work run between two batches with no block written meanwhile (see {@link ExclusiveWork}). */
  exclusive?: ExclusiveWork;
}

/**
 * Work that needs the index to stand still (an automatic ZK Compression rebuild, src/ingest/zk-repair.ts). `run`
 * follows asks `due` before each batch (and every `idleMs` while no block comes); when it answers true, the write in
 * flight commits first, then `run` runs at that checkpoint while no block is written (blocks read meanwhile wait in
 * the queue, the reader pausing once it is full), and following resumes from the checkpoint with the next block.
 */
export interface ExclusiveWork {
  due(): Promise<boolean>;
  run(signal: AbortSignal): Promise<void>;
  idleMs: number;
}

export interface IngesterOptions {
  /** Cluster account reads, used to discover Light trees the index does not know yet. */
  fetchAccounts?: TreeAccountFetcher;
  /** Webhook events were queued with a written batch (wakes in-process delivery workers). */
  onWebhookEvents?: () => void;
  /** Live blocks were written (committed with the checkpoint): the enhanced WebSocket subscriptions' stream. */
  onBlocksWritten?: (blocks: readonly Block[]) => void;
}

/** A batch ready to write: one update per block and the batch's ZK Compression rows. */
interface Prepared {
  updates: BlockUpdate[];
  zk: ZkPending;
  /** Webhook outbox rows, written with the batch. */
  webhooks: Matches;
}

/** Slots of priority-fee samples kept behind the newest block (the estimator looks back at most 150), and how often old ones go. */
const FEE_KEEP_SLOTS = 300;
const FEE_PRUNE_EVERY_SLOTS = 200;

export function createIngester(db: Db, logger?: Logger, opts: IngesterOptions = {}): Ingester {
  let feesPrunedAt = 0;
  const stats: IngestStats = { blocks: 0, transactions: 0, accounts: 0, lastSlot: null, writes: 0 };
  // The DAS list index is derived after each write, in the background (its marks commit with the write).
  const assetIndex = createAssetIndexer(db, logger);
  const zk = createZkStage(db, { fetchAccounts: opts.fetchAccounts, logger });
  const hooks = createWebhookStage(db, { onQueued: opts.onWebhookEvents, logger });

  /**
   * Parses and folds `blocks`. `before` (a write still in flight) is awaited before the store is asked about token
   * accounts the blocks do not describe themselves, so lookups always see every earlier batch. The fold (pure) is
   * done ahead, while that write runs, with the rows as they are before it commits; the rows are read again once
   * it has, and only if they differ is the batch folded again with them (src/ingest/pipeline-prepare.ts).
   */
  async function prepare(blocks: Block[], before?: Promise<unknown> | null): Promise<Prepared> {
    const parsed: ParsedTx[][] = [];
    for (const b of blocks) {
      if (parsed.length) await yieldToEventLoop();
      // Votes concern no wallet activity and are not indexed (sources may already have dropped them).
      const txs = b.transactions.filter((t) => !t.isVote);
      parsed.push(txs.map((tx): ParsedTx => ({ tx, events: parseTransaction(tx) })));
    }
    const { ctx, updates } = await foldAhead(db, parsed.flat(), before, (c) => foldBlocks(blocks, parsed, c));
    const [zkParts, webhooks] = await Promise.all([
      Promise.all(parsed.map((txs) => zk.prepare(txs.map((p) => p.tx)))),
      hooks.prepare(parsed.flat(), ctx),
    ]);
    return { updates, zk: mergeZkPending(zkParts), webhooks };
  }

  async function write(blocks: Block[], { updates, zk: pending, webhooks }: Prepared): Promise<void> {
    const fast = zk.transactionsOnly(pending);
    // Webhook events and the priority-fee samples commit with their blocks (the same statement or transaction).
    const outbox = hooks.statements(webhooks);
    const fees = priorityFeesStatement(foldPriorityFees(blocks));
    const more = fees ? [...outbox, fees] : outbox;
    if (fast) await writeUpdates(db, updates, [...fast, ...more]);
    else
      await db.tx(async (q) => {
        await writeUpdatesInTx(q, updates);
        await zk.write(q, pending);
        for (const s of more) await runStatement(q, s);
      });
    // Samples older than the estimator's longest lookback (150 slots) are dropped every few hundred slots.
    const newest = Math.max(...blocks.map((b) => b.slot));
    if (newest - feesPrunedAt >= FEE_PRUNE_EVERY_SLOTS) {
      feesPrunedAt = newest;
      await prunePriorityFees(db, newest - FEE_KEEP_SLOTS).catch((err) => logger?.warn({ err }, 'priority fees: pruning failed'));
    }
    await zk.afterWrite(pending);
    hooks.afterWrite(webhooks);
    // Processes without an ingester follow the committed blocks (src/ingest/committed-feed.ts); wake them.
    if (db.kind === 'postgres') notifyBlocksWritten(db).catch((err) => logger?.warn({ err }, 'ingest: notifying followers of the written blocks failed'));
    try {
      opts.onBlocksWritten?.(blocks);
    } catch (err) {
      logger?.error({ err }, 'ingest: a subscriber of written blocks failed');
    }
    assetIndex.kick();
    stats.blocks += blocks.length;
    stats.transactions += blocks.reduce((s, b) => s + b.transactions.length, 0);
    stats.lastSlot = Math.max(stats.lastSlot ?? 0, ...blocks.map((b) => b.slot));
    stats.writes++;
  }

  /**
   * Writes blocks of the past (backfill): the same parse → fold → guarded writes as live blocks, but the checkpoint
   * stays where live ingestion put it, and no webhook events or ZK Compression rows are made. `whole`: these are
   * complete blocks (their block rows are written); otherwise pseudo-blocks of single transactions (no block row).
   */
  async function writeHistory(blocks: Block[], whole: boolean, withZk = false): Promise<void> {
    if (!blocks.length) return;
    const parsed = blocks.map((b) => b.transactions.map((tx): ParsedTx => ({ tx, events: parseTransaction(tx) })));
    const ctx = await lookupContext(db, parsed.flat(), null);
    const updates = blocks.map((b, i) => {
      const u = foldWithCnft(b, parsed[i], ctx);
      if (!whole) u.block = null;
      u.slot = null;
      return u;
    });
    if (withZk) {
      const pending = mergeZkPending(await Promise.all(blocks.map((b) => zk.prepare(b.transactions))));
      await db.tx(async (q) => {
        await writeUpdatesInTx(q, updates);
        await zk.write(q, pending);
      });
    } else await writeUpdates(db, updates);
    assetIndex.kick();
    stats.transactions += parsed.reduce((s, p) => s + p.length, 0);
    stats.writes++;
  }

  const ingester: Ingester = {
    stats,
    async ingestBlocks(blocks) {
      if (!blocks.length) return;
      await write(blocks, await prepare(blocks));
    },
    async ingestHistory(txs) {
      await writeHistory(historyBlocks(txs.filter((t) => !t.isVote)), false);
    },
    async ingestZkHistory(txs) {
      await writeHistory(historyBlocks(txs.filter((t) => !t.isVote)), false, true);
    },
    async ingestHistoryBlocks(blocks) {
      await writeHistory(blocks.map((b) => ({ ...b, transactions: b.transactions.filter((t) => !t.isVote) })), true);
    },
    async replayWebhook(webhookId, txs) {
      const parsed = txs.filter((t) => !t.isVote).map((tx): ParsedTx => ({ tx, events: parseTransaction(tx) }));
      if (!parsed.length) return 0;
      const m = await hooks.prepare(parsed, await lookupContext(db, parsed, null), webhookId);
      const statements = hooks.statements(m);
      if (statements.length)
        await db.tx(async (q) => {
          for (const st of statements) await runStatement(q, st);
        });
      hooks.afterWrite(m);
      return m.events.length;
    },
    async ingestAccounts(updates) {
      if (!updates.length) return;
      await writeUpdates(db, [foldAccounts(updates)]);
      assetIndex.kick();
      stats.accounts += updates.length;
      stats.writes++;
    },
    async run(source, opts = {}) {
      const cp = await getCheckpoint(db);
      let from: number;
      if (opts.fromSlot !== undefined) from = opts.fromSlot;
      else if (cp !== null) from = cp + 1;
      else {
        // Where an empty index begins decides what it knows without reading the cluster (src/store/coverage.ts).
        // A run stopped before its first block was written resumes from the origin it recorded, not a later tip.
        const origin = await getIndexOrigin(db);
        from = origin ?? opts.startSlot ?? 0;
        if (origin === null) await recordIndexOrigin(db, from);
      }
      if (cp === null && opts.beforeLive) await opts.beforeLive(from, opts.signal ?? new AbortController().signal);
      logger?.info({ source: source.name, from }, 'ingest: starting');
      const maxBatch = opts.maxBatch ?? 64;
      // Our own signal, so a failed write also stops the reader.
      const inner = new AbortController();
      const onAbort = () => inner.abort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const signal = inner.signal;
      const queue: Block[] = [];
      let done = false;
      let failure: unknown = null;
      let wake: (() => void) | null = null;
      let drained: (() => void) | null = null;
      const notify = () => {
        const w = wake;
        wake = null;
        w?.();
      };
      // Reader: pulls from the source while the writer writes, with bounded buffering. Decoding shares the event
      // loop with the writer, so the reader yields after every block: SQL responses are then handled within one
      // block's decoding time, and the database never waits for a whole run of decodes.
      const reader = (async () => {
        try {
          for await (const b of source.blocks(from, signal)) {
            queue.push(b);
            notify();
            await yieldToEventLoop();
            while (queue.length >= maxBatch * 4 && !signal.aborted) {
              await new Promise<void>((r) => {
                drained = r;
                setTimeout(r, 50);
              });
            }
          }
        } catch (e) {
          if (!signal.aborted) failure = e;
        } finally {
          done = true;
          notify();
        }
      })();
      // Writer: the batch after the one being written is parsed and folded while the write is in flight, so
      // PostgreSQL's work overlaps with ours; writes themselves stay strictly in order, one at a time.
      let inflight: Promise<void> | null = null;
      try {
        while (true) {
          if (opts.exclusive && (await opts.exclusive.due())) {
            if (inflight) await inflight;
            inflight = null;
            await opts.exclusive.run(signal);
            continue;
          }
          if (!queue.length) {
            if (done) break;
            await new Promise<void>((r) => {
              wake = r;
              if (opts.exclusive) setTimeout(r, opts.exclusive.idleMs).unref();
            });
            continue;
          }
          const batch = queue.splice(0, maxBatch);
          const d = drained as (() => void) | null;
          drained = null;
          d?.();
          const updates = await prepare(batch, inflight);
          if (inflight) await inflight;
          inflight = write(batch, updates);
          // Observed here so a failure while the next batch is prepared is not an unhandled rejection; it is
          // rethrown by the `await inflight` above or below.
          inflight.catch(() => {});
          logger?.debug({ slots: [batch[0].slot, batch[batch.length - 1].slot] }, 'ingest: writing blocks');
          await yieldToEventLoop();
        }
        if (inflight) await inflight;
      } finally {
        inner.abort();
        opts.signal?.removeEventListener('abort', onAbort);
        // Never return while a write is still running (its failure, if any, was thrown above).
        if (inflight) await (inflight as Promise<void>).catch(() => {});
        await reader;
      }
      if (failure) throw failure;
      await assetIndex.settle();
    },
    pipelined() {
      let inflight: Promise<void> | null = null;
      return {
        async push(blocks) {
          if (!blocks.length) return;
          const prepared = await prepare(blocks, inflight);
          if (inflight) await inflight;
          inflight = write(blocks, prepared);
          // Observed so that a failure while the next batch is read is not an unhandled rejection; rethrown above
          // or by flush().
          inflight.catch(() => {});
        },
        async flush() {
          const last = inflight;
          inflight = null;
          if (last) await last;
        },
      };
    },
    settle: () => assetIndex.settle(),
    zk,
  };
  return ingester;
}
