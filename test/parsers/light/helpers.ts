/**
 * Loading Photon's recorded ZK Compression fixtures for the Light parser tests: the `getTransaction` recordings
 * (test/fixtures/photon-transactions, copied verbatim from helius-labs/photon `tests/data/transactions`), the tree
 * metadata Photon's tests pre-seed, and the expected API answers (`.snap` files, test/fixtures/photon-snapshots).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToBase58 } from '../../../src/core/encoding.js';
import type { NormalizedTx } from '../../../src/core/model.js';
import { treeLookupFrom, type LightNullifierHasher, type LightTreeType } from '../../../src/parsers/light/index.js';
import { poseidon } from '../../../src/proofs/light/index.js';
import { normalizeRpcTransaction } from '../../../src/sources/normalize-rpc.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
export const TRANSACTIONS = join(FIXTURES, 'photon-transactions');
const SNAPSHOTS = join(FIXTURES, 'photon-snapshots');

/** Every recorded transaction of a fixture folder, in slot order (ties by file name, as the case manifest lists them). */
export function folder(name: string): NormalizedTx[] {
  const dir = join(TRANSACTIONS, name);
  return readdirSync(dir)
    .sort()
    .map((f) => normalizeRpcTransaction(JSON.parse(readFileSync(join(dir, f), 'utf8'))))
    .sort((a, b) => a.slot - b.slot);
}

/** Names of every fixture folder. */
export function folders(): string[] {
  return readdirSync(TRANSACTIONS).sort();
}

interface TreeRow {
  tree: string;
  queue: string;
  treeTypeCode: LightTreeType;
  height: number;
}

/** The trees Photon's tests pre-seed (tests/integration_tests/utils.rs `populate_test_tree_metadata`). */
export const TREE_ROWS: TreeRow[] = (JSON.parse(readFileSync(join(SNAPSHOTS, 'tree-metadata.json'), 'utf8')) as { trees: TreeRow[] }).trees;
export const TREES = treeLookupFrom(TREE_ROWS.map((t) => ({ tree: t.tree, queue: t.queue, treeType: t.treeTypeCode })));

/** The JSON of an insta `.snap` file (everything after the header's closing `---`). */
export function snapshot<T>(name: string): T {
  const text = readFileSync(join(SNAPSHOTS, `integration_tests__${name}.snap`), 'utf8');
  const body = text.slice(text.indexOf('\n---\n', 4) + 5);
  return JSON.parse(body) as T;
}

/** Light's nullifier, Poseidon(account hash, leaf index, tx hash) (needs `initPoseidon()` first). */
export const nullifierHasher: LightNullifierHasher = (accountHash, leafIndex, txHash) => poseidon([accountHash, BigInt(leafIndex), txHash]);

export const b58 = bytesToBase58;
