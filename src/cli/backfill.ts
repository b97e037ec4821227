/**
 * `solgate backfill --from-slot A --to-slot B [--rpc URL] [--concurrency N]`: writes every block of the slot range
 * through the same fold as live blocks, beside live ingestion (the writes are guarded, the checkpoint untouched),
 * with a progress line, resumable: the same command after a crash or Ctrl-C continues where the range stopped
 * (`backfill_ranges`). `--rpc` may name an archival RPC (e.g. Old Faithful) other than the cluster being followed.
 * Ranges that together cover every slot before the index's origin make the index complete from genesis
 * (docs/coverage.md).
 */
import { openRuntime } from './runtime.js';
import { onStopSignal } from './signals.js';
import { UsageError } from './usage-error.js';
import { createIngester } from '../ingest/pipeline.js';
import { createRpcClient } from '../sources/rpc-client.js';
import { fetchBlocks, fetchBlockSlots } from '../sources/slot-range.js';
import { advanceBackfillRange, openBackfillRange } from '../store/backfill.js';

export const BACKFILL_USAGE = 'solgate backfill --from-slot A --to-slot B [--rpc URL] [--concurrency N]';
/** Slots per window: one getBlocks, then the window's blocks, written in one go, then the resume point moves. */
const WINDOW = 200;

export interface BackfillArgs {
  fromSlot: number;
  toSlot: number;
  rpc?: string;
  concurrency?: number;
}

function bar(done: number, total: number): string {
  const width = 30;
  const filled = total ? Math.round((done / total) * width) : width;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${total ? ((100 * done) / total).toFixed(1) : '100.0'}%`;
}

export async function runBackfill(a: BackfillArgs): Promise<number> {
  if (a.toSlot < a.fromSlot) throw new UsageError(`--to-slot (${a.toSlot}) is before --from-slot (${a.fromSlot})`, BACKFILL_USAGE);
  const signal = onStopSignal('solgate backfill');
  const rt = await openRuntime({ logTo: 'stderr' });
  const url = a.rpc ?? rt.config.rpcUrl;
  if (!url) {
    await rt.db.close();
    throw new UsageError('backfill needs --rpc URL (or SOLANA_RPC_URL)', BACKFILL_USAGE);
  }
  const client = createRpcClient({ url, logger: rt.logger });
  const ctl = new AbortController();
  void signal.stopped.then(() => ctl.abort());
  const ingester = createIngester(rt.db, rt.logger);
  const total = a.toSlot - a.fromSlot + 1;
  try {
    const range = await openBackfillRange(rt.db, a.fromSlot, a.toSlot);
    if (range.status === 'done') {
      console.log(`slots ${a.fromSlot}–${a.toSlot} are backfilled already (${range.blocks} blocks, ${range.transactions} transactions)`);
      return 0;
    }
    if (range.nextSlot > a.fromSlot) process.stderr.write(`resuming at slot ${range.nextSlot}\n`);
    signal.setUnsaved(null);
    const t0 = Date.now();
    let blocks = range.blocks;
    let txs = range.transactions;
    let lastLine = 0;
    for (let next = range.nextSlot; next <= a.toSlot && !ctl.signal.aborted; ) {
      const end = Math.min(next + WINDOW - 1, a.toSlot);
      const opts = { commitment: rt.config.commitment, concurrency: a.concurrency ?? rt.config.backfillConcurrency, signal: ctl.signal };
      const got = await fetchBlocks(client, await fetchBlockSlots(client, next, end, opts), opts);
      await ingester.ingestHistoryBlocks(got);
      const n = got.reduce((s, b) => s + b.transactions.length, 0);
      await advanceBackfillRange(rt.db, a.fromSlot, a.toSlot, end + 1, got.length, n);
      blocks += got.length;
      txs += n;
      next = end + 1;
      const now = Date.now();
      const line = `${bar(next - a.fromSlot, total)} slot ${Math.min(next, a.toSlot)}/${a.toSlot}, ${blocks} blocks, ${txs} transactions, ${Math.round((txs / Math.max(1, now - t0)) * 1000)} tx/s`;
      if (process.stderr.isTTY) process.stderr.write(`\r${line}`);
      else if (now - lastLine > 5000 || next > a.toSlot) {
        process.stderr.write(`${line}\n`);
        lastLine = now;
      }
    }
    if (process.stderr.isTTY) process.stderr.write('\n');
    await ingester.settle();
    if (ctl.signal.aborted) {
      const at = (await openBackfillRange(rt.db, a.fromSlot, a.toSlot)).nextSlot;
      console.log(`stopped at slot ${at}; the same command continues from there`);
      return 130;
    }
    console.log(`slots ${a.fromSlot}–${a.toSlot} backfilled: ${blocks} blocks, ${txs} transactions`);
    return 0;
  } catch (e) {
    if (ctl.signal.aborted) {
      const at = (await openBackfillRange(rt.db, a.fromSlot, a.toSlot)).nextSlot;
      console.log(`stopped at slot ${at}; the same command continues from there`);
      return 130;
    }
    throw e;
  } finally {
    await client.close();
    await rt.db.close();
  }
}
