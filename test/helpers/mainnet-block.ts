/** The recorded mainnet block 254170887 (444 non-vote transactions, swaps and compressed-NFT mints), parsed. */
import type { Block } from '../../src/core/model.js';
import type { ParsedTx } from '../../src/ingest/fold-block.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { readRecords } from '../../src/sources/replay.js';

export const MAINNET_BLOCK = 'test/fixtures/photon-blocks/index_block_metadata/254170887';

/** The block and its non-vote transactions with their parsed events, as the ingester folds them. */
export async function loadMainnetBlock(): Promise<{ block: Block; parsed: ParsedTx[] }> {
  const [rec] = await readRecords(MAINNET_BLOCK);
  if (rec.kind !== 'block') throw new Error('expected a block record');
  const txs = rec.block.transactions.filter((t) => !t.isVote);
  return { block: rec.block, parsed: txs.map((tx) => ({ tx, events: parseTransaction(tx) })) };
}
