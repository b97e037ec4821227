/** Loading a Light tree metadata file (`replay --light-trees FILE`, `SOLGATE_ZK_TREES`) into zk_trees. */
import { readFile } from 'node:fs/promises';
import type { Queryable } from '../store/db.js';
import { parseTreeMetadataConfig, upsertTrees } from '../store/zk/trees.js';
import { UsageError } from './usage-error.js';

/** Reads, validates and stores the trees of `file`; `what` names the option in errors. Returns how many. */
export async function loadTreeFile(q: Queryable, file: string, what: string): Promise<number> {
  let trees;
  try {
    trees = parseTreeMetadataConfig(JSON.parse(await readFile(file, 'utf8')));
  } catch (e) {
    throw new UsageError(`${what} ${file}: ${(e as Error).message}`);
  }
  await upsertTrees(q, trees);
  return trees.length;
}
