/**
 * Replay of recorded files into the store: blocks and account batches applied in command-line order.
 * Each item is written in its own transaction; guards make re-running any input a no-op.
 */
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { getCheckpoint } from '../store/chain.js';
import { createReplaySource, type ReplayOptions } from '../sources/replay.js';
import { createIngester, type IngesterOptions } from './pipeline.js';

export interface ReplayResult {
  files: number;
  blocks: number;
  transactions: number;
  accounts: number;
  checkpoint: number | null;
}

export async function replayInto(db: Db, paths: string[], logger?: Logger, opts: ReplayOptions & IngesterOptions = {}): Promise<ReplayResult> {
  const source = createReplaySource(paths, opts);
  const files = await source.files();
  const ingester = createIngester(db, logger, { fetchAccounts: opts.fetchAccounts });
  for await (const item of source.items()) {
    if (item.kind === 'block') await ingester.ingestBlocks([item.block]);
    else await ingester.ingestAccounts(item.accounts);
  }
  await ingester.settle();
  return {
    files: files.length,
    blocks: ingester.stats.blocks,
    transactions: ingester.stats.transactions,
    accounts: ingester.stats.accounts,
    checkpoint: await getCheckpoint(db),
  };
}
