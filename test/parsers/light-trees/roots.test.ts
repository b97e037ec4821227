/**
 * The root history of Light V1 state tree accounts (parsers/light-trees/roots.ts) on the genesis tree dumps the CLI
 * ships (npm @lightprotocol/zk-compression-cli `accounts/*.json`): an empty tree of height 26 whose one root is the
 * Poseidon zero hash of level 26, at sequence number 0. Other accounts are not V1 state trees. (Roots after changes
 * are checked against the indexed trees on the localnet: test/ingest/drift-assets.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bytesToBase58 } from '../../../src/core/encoding.js';
import { parseLightStateTreeRoots } from '../../../src/parsers/light-trees/roots.js';
import { initPoseidon, zeroHash } from '../../../src/proofs/light/index.js';

const pkg = dirname(createRequire(import.meta.url).resolve('@lightprotocol/zk-compression-cli/package.json'));
const dumps = readdirSync(join(pkg, 'accounts')).filter((f) => f.endsWith('.json')).map((f) => {
  const j = JSON.parse(readFileSync(join(pkg, 'accounts', f), 'utf8')) as { pubkey: string; account: { owner: string; data: [string, string] } };
  return { file: f, owner: j.account.owner, data: new Uint8Array(Buffer.from(j.account.data[0], 'base64')) };
});

describe('Light V1 state tree root history', () => {
  it('the genesis V1 state trees: height 26, sequence 0, their root the empty tree of height 26', async () => {
    await initPoseidon();
    const empty = bytesToBase58(zeroHash(26));
    const trees = dumps.filter((d) => d.file.startsWith('merkle_tree_pubkey'));
    expect(trees.length).toBeGreaterThan(0);
    for (const d of trees) {
      const roots = parseLightStateTreeRoots(d.owner, d.data);
      expect(roots, d.file).not.toBeNull();
      expect(roots!.height).toBe(26);
      expect(roots!.sequenceNumber).toBe(0);
      expect(roots!.root).toBe(empty);
      expect(roots!.rootAt(0)).toBe(empty);
      expect(roots!.rootAt(1)).toBeNull();
    }
  });

  it('other accounts of the account compression program are not V1 state trees', () => {
    for (const d of dumps.filter((x) => !x.file.startsWith('merkle_tree_pubkey'))) expect(parseLightStateTreeRoots(d.owner, d.data), d.file).toBeNull();
    expect(parseLightStateTreeRoots('11111111111111111111111111111111', dumps.find((d) => d.file.startsWith('merkle_tree_pubkey'))!.data)).toBeNull();
  });
});
