/**
 * Replays Photon's recorded inputs through the real ingest pipeline, the way upstream's tests feed them (fixtures
 * README §2.2–2.3): tree metadata pre-loaded, the synthetic slot-0 block (checkpoint 0), then each input in the
 * listed order — transactions indexed at slot 0 (profile `photon-e2e-slot0`), blocks at their own slot — under one
 * of upstream's four indexing variants: each input in its own write or all in one, and the list as given or
 * followed by all but its last input again.
 */
import type { Block } from '../../src/core/model.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createReplaySource } from '../../src/sources/replay.js';
import { advanceCheckpoint } from '../../src/store/chain.js';
import type { Db } from '../../src/store/db.js';
import { parseTreeMetadataConfig, upsertTrees } from '../../src/store/zk/trees.js';
import { TREES } from './seed.js';

export type ReplayVariant = 'separate' | 'merged' | 'separate+again' | 'merged+again';
export const VARIANTS: ReplayVariant[] = ['separate', 'merged', 'separate+again', 'merged+again'];

/** The blocks of one recorded input file (a getTransaction result at slot 0, or a getBlock result). */
export async function blocksOf(file: string, kind: 'transaction' | 'block'): Promise<Block[]> {
  const out: Block[] = [];
  for await (const b of createReplaySource([file], kind === 'transaction' ? { atSlot: 0 } : {}).blocks(0)) out.push(b);
  return out;
}

/** Pre-loads the trees and the slot-0 checkpoint, then ingests `inputs` under `variant`. Returns the ingester. */
export async function replayInputs(db: Db, inputs: { file: string; kind: 'transaction' | 'block' }[], variant: ReplayVariant) {
  await upsertTrees(db, parseTreeMetadataConfig(TREES));
  await advanceCheckpoint(db, 0);
  const per = await Promise.all(inputs.map((i) => blocksOf(i.file, i.kind)));
  const list = variant.endsWith('+again') ? [...per, ...per.slice(0, -1)] : per;
  const ingester = createIngester(db);
  if (variant.startsWith('merged')) await ingester.ingestBlocks(list.flat());
  else for (const blocks of list) await ingester.ingestBlocks(blocks);
  await ingester.settle();
  return ingester;
}
