/**
 * Root histories of Light V2 batched trees (parsers/light-trees/batched-roots.ts) and V1 address trees
 * (parsers/light-trees/roots.ts) on the genesis tree dumps the CLI ships (npm @lightprotocol/zk-compression-cli
 * `accounts/*.json`): each fresh tree's root is the one the indexer's own maths give a fresh tree — the empty tree of
 * height 32 for a V2 state tree, the initialised indexed tree (zeroth and top elements) of height 40 (V2, sequence
 * 0) or 26 (V1, sequence 3 after its initialisation) for an address tree. Other accounts are not such trees.
 * (Roots after batch updates are compared with indexed trees in test/ingest/drift-zk-v2.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bytesToBase58 } from '../../../src/core/encoding.js';
import { parseLightBatchedTreeRoots } from '../../../src/parsers/light-trees/batched-roots.js';
import { parseLightAddressTreeRoots, parseLightStateTreeRoots } from '../../../src/parsers/light-trees/roots.js';
import { initialAddressTreeRoot, initPoseidon, zeroHash } from '../../../src/proofs/light/index.js';

const pkg = dirname(createRequire(import.meta.url).resolve('@lightprotocol/zk-compression-cli/package.json'));
const dumps = readdirSync(join(pkg, 'accounts')).filter((f) => f.endsWith('.json')).map((f) => {
  const j = JSON.parse(readFileSync(join(pkg, 'accounts', f), 'utf8')) as { account: { owner: string; data: [string, string] } };
  return { file: f, owner: j.account.owner, data: new Uint8Array(Buffer.from(j.account.data[0], 'base64')) };
});
const of = (prefix: string) => dumps.filter((d) => d.file.startsWith(prefix));

describe('Light V2 batched and V1 address tree root histories', () => {
  it('genesis V2 state trees: height 32, sequence 0, nothing appended, the empty tree\'s root', async () => {
    await initPoseidon();
    const trees = of('batch_state_merkle_tree');
    expect(trees.length).toBeGreaterThan(0);
    for (const d of trees) {
      const r = parseLightBatchedTreeRoots(d.owner, d.data)!;
      expect(r, d.file).not.toBeNull();
      expect({ treeType: r.treeType, height: r.height, seq: r.sequenceNumber, next: r.nextIndex, nullified: r.nullifierNextIndex, queued: r.queueNextIndex })
        .toEqual({ treeType: 3, height: 32, seq: 0, next: 0, nullified: 0, queued: 0 });
      expect(r.root).toBe(bytesToBase58(zeroHash(32)));
      expect(r.rootAt(0)).toBe(r.root);
      expect(r.rootAt(1)).toBeNull();
      // The history's other entries are zero-filled at initialisation: absent, not roots.
      expect(r.rootAt(-1)).toBeNull();
    }
  });

  it('genesis V2 address trees: height 40, sequence 0, the zeroth element only, the indexer\'s fresh-tree root', async () => {
    await initPoseidon();
    const trees = of('batch_address_merkle_tree');
    expect(trees.length).toBeGreaterThan(0);
    for (const d of trees) {
      const r = parseLightBatchedTreeRoots(d.owner, d.data)!;
      expect(r, d.file).not.toBeNull();
      expect({ treeType: r.treeType, height: r.height, seq: r.sequenceNumber, next: r.nextIndex }).toEqual({ treeType: 4, height: 40, seq: 0, next: 1 });
      expect(r.root).toBe(bytesToBase58(initialAddressTreeRoot('AddressV2')));
    }
  });

  it('genesis V1 address trees: height 26, sequence 3 after initialisation, the indexer\'s fresh-tree root', async () => {
    await initPoseidon();
    const trees = of('address_merkle_tree_amt');
    expect(trees.length).toBeGreaterThan(0);
    for (const d of trees) {
      const r = parseLightAddressTreeRoots(d.owner, d.data)!;
      expect(r, d.file).not.toBeNull();
      expect({ height: r.height, seq: r.sequenceNumber }).toEqual({ height: 26, seq: 3 });
      expect(r.root).toBe(bytesToBase58(initialAddressTreeRoot('AddressV1')));
      expect(r.rootAt(0)).toBe(bytesToBase58(zeroHash(26)));
      expect(parseLightStateTreeRoots(d.owner, d.data)).toBeNull();
    }
  });

  it('other accounts are none of these trees', () => {
    for (const d of dumps) {
      if (!d.file.startsWith('batch_state_merkle_tree') && !d.file.startsWith('batch_address_merkle_tree')) expect(parseLightBatchedTreeRoots(d.owner, d.data), d.file).toBeNull();
      if (!d.file.startsWith('address_merkle_tree_amt')) expect(parseLightAddressTreeRoots(d.owner, d.data), d.file).toBeNull();
    }
    const tree = of('batch_state_merkle_tree')[0].data;
    expect(parseLightBatchedTreeRoots('11111111111111111111111111111111', tree)).toBeNull();
    expect(parseLightBatchedTreeRoots(of('batch_state_merkle_tree')[0].owner, tree.subarray(0, tree.length - 8))).toBeNull();
  });
});
