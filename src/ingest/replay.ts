/**
 * Replay of recorded files into the store: blocks and account batches applied in command-line order.
 *
 * Consecutive blocks are written in batches (up to `maxBatch` blocks per SQL transaction), pipelined as in live
 * mode: while one batch is being written, the next files are read and decoded and the next batch is parsed and
 * folded. Writes stay strictly in input order, and an account batch is written only after every block before it
 * has committed. Guards make re-running any input a no-op; a whole block (a `getBlock` record) whose slot and
 * blockhash are already stored is not written again at all (a replay of what is there costs the reading only).
 */
import type { Logger } from 'pino';
import type { Block } from '../core/model.js';
import type { Db } from '../store/db.js';
import { getCheckpoint, writtenBlockHashes } from '../store/chain.js';
import { createReplaySource, slotOfFileName, type ReplayOptions } from '../sources/replay.js';
import { createIngester, type IngesterOptions } from './pipeline.js';

export interface ReplayResult {
  files: number;
  blocks: number;
  transactions: number;
  accounts: number;
  /** Whole blocks skipped because the store already holds them (same slot and blockhash). */
  skipped: number;
  checkpoint: number | null;
}

export interface ReplayIntoOptions extends ReplayOptions, IngesterOptions {
  /** Most blocks written in one SQL transaction (default 8). */
  maxBatch?: number;
}

export async function replayInto(db: Db, paths: string[], logger?: Logger, opts: ReplayIntoOptions = {}): Promise<ReplayResult> {
  // Blocks already stored when the replay starts are recognised before they are decoded (the files named by slot).
  const named = (await createReplaySource(paths, opts).files()).flatMap((f) => slotOfFileName(f) ?? []);
  const storedHashes = await writtenBlockHashes(db, named);
  let skipped = 0;
  const source = createReplaySource(paths, { ...opts, storedBlockhash: (slot) => storedHashes.get(slot), onSkipped: () => skipped++ });
  const files = await source.files();
  const ingester = createIngester(db, logger, { fetchAccounts: opts.fetchAccounts });
  const writer = ingester.pipelined();
  const maxBatch = Math.max(1, opts.maxBatch ?? 8);
  let batch: Block[] = [];
  // Signatures of the batch: a block repeating one (a record replayed twice, or at another slot) starts a new
  // batch, so that duplicates are applied one write after the other exactly as without batching.
  let signatures = new Set<string>();
  const pushBatch = async () => {
    if (!batch.length) return;
    let blocks = batch;
    batch = [];
    signatures = new Set();
    // Blocks already committed are dropped (a block still in flight is not seen here; its rewrite is a no-op).
    const whole = blocks.filter((b) => b.blockhash !== null).map((b) => b.slot);
    if (whole.length) {
      const stored = await writtenBlockHashes(db, whole);
      const kept = blocks.filter((b) => b.blockhash === null || stored.get(b.slot) !== b.blockhash);
      skipped += blocks.length - kept.length;
      blocks = kept;
    }
    if (blocks.length) await writer.push(blocks);
  };
  const repeats = (b: Block) => b.transactions.some((t) => signatures.has(t.signature));
  try {
    for await (const item of source.items()) {
      if (item.kind === 'block') {
        if (repeats(item.block)) await pushBatch();
        batch.push(item.block);
        for (const t of item.block.transactions) signatures.add(t.signature);
        if (batch.length >= maxBatch) await pushBatch();
      } else {
        // Account snapshots apply after every block before them, as recorded.
        await pushBatch();
        await writer.flush();
        await ingester.ingestAccounts(item.accounts);
      }
    }
    await pushBatch();
  } finally {
    // Never return (nor close the database) while a write is in flight; its failure, if any, is thrown here.
    await writer.flush();
  }
  await ingester.settle();
  return {
    files: files.length,
    blocks: ingester.stats.blocks,
    transactions: ingester.stats.transactions,
    accounts: ingester.stats.accounts,
    skipped,
    checkpoint: await getCheckpoint(db),
  };
}
