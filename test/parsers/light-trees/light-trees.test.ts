/**
 * Light tree accounts → tree metadata, on the real genesis accounts Light ships for its local validator
 * (npm @lightprotocol/zk-compression-cli `accounts/*.json`, account dumps as `solana account --output json`).
 * Expected values come from Photon's test tree metadata (test/fixtures/photon-snapshots/tree-metadata.json),
 * which names the same trees, and from light-protocol's constants where the two setups differ.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { LIGHT_TREE_TYPE, lightQueueTree, parseLightTreeAccountBase64 } from '../../../src/parsers/light-trees/index.js';

const pkg = dirname(createRequire(import.meta.url).resolve('@lightprotocol/zk-compression-cli/package.json'));
const dumps = readdirSync(join(pkg, 'accounts'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(join(pkg, 'accounts', f), 'utf8')) as { pubkey: string; account: { owner: string; data: [string, string] } }) }));
const parsed = new Map(dumps.map((d) => [d.pubkey, parseLightTreeAccountBase64(d.pubkey, d.account.owner, d.account.data[0])]));
const meta = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'photon-snapshots', 'tree-metadata.json'), 'utf8')) as {
  expectedTreeOwner: string;
  trees: { tree: string; queue: string; treeTypeCode: number; height: number; rootHistoryCapacity: number }[];
};

describe('Light tree accounts', () => {
  it('every tree account of the genesis set is recognised, and nothing else is', () => {
    const trees = dumps.filter((d) => /merkle_tree/.test(d.file) && !/queue/.test(d.file));
    expect(trees.length).toBeGreaterThanOrEqual(8);
    for (const d of dumps) expect(parsed.get(d.pubkey) !== null, d.file).toBe(trees.includes(d));
  });

  it('V1 state and address trees: type, height, queue, root-history capacity and owner as Photon seeds them', () => {
    const v1 = meta.trees.filter((t) => t.treeTypeCode <= 2 && parsed.has(t.tree));
    expect(v1.map((t) => t.treeTypeCode).sort()).toEqual([1, 1, 2]);
    for (const t of v1) {
      expect(parsed.get(t.tree), t.tree).toEqual({
        tree: t.tree,
        queue: t.queue,
        treeType: t.treeTypeCode,
        height: t.height,
        rootHistoryCapacity: t.rootHistoryCapacity,
        owner: meta.expectedTreeOwner,
      });
    }
  });

  it('V2 batched trees: type, height, queue (an address tree is its own queue) and owner', () => {
    const v2 = meta.trees.filter((t) => t.treeTypeCode >= 3 && parsed.has(t.tree));
    expect(v2.length).toBeGreaterThanOrEqual(3);
    for (const t of v2) {
      const p = parsed.get(t.tree)!;
      expect({ type: p.treeType, height: p.height, queue: p.queue, owner: p.owner }, t.tree).toEqual({
        type: t.treeTypeCode,
        height: t.height,
        queue: t.queue,
        owner: meta.expectedTreeOwner,
      });
      // The local genesis trees use light-protocol's default batched root history (DEFAULT_BATCH_ROOT_HISTORY_LEN
      // = 200); Photon's tests seed their own value, so only the default is checked here.
      expect(p.rootHistoryCapacity).toBe(200);
    }
    const addressV2 = [...parsed.values()].filter((p) => p?.treeType === LIGHT_TREE_TYPE.AddressV2);
    expect(addressV2.length).toBeGreaterThan(0);
    for (const p of addressV2) expect(p!.queue).toBe(p!.tree);
  });

  it('foreign owners, short or garbage data give null, never a throw', () => {
    const smt1 = dumps.find((d) => d.file.includes('smt1'))!;
    expect(parseLightTreeAccountBase64(smt1.pubkey, '11111111111111111111111111111111', smt1.account.data[0])).toBeNull();
    const bytes = Buffer.from(smt1.account.data[0], 'base64');
    for (const n of [0, 7, 8, 100, 300]) expect(parseLightTreeAccountBase64(smt1.pubkey, smt1.account.owner, bytes.subarray(0, n).toString('base64'))).toBeNull();
    expect(parseLightTreeAccountBase64(smt1.pubkey, smt1.account.owner, Buffer.alloc(4000, 0xff).toString('base64'))).toBeNull();
  });
});

describe('Light queue accounts', () => {
  it('every genesis queue names its tree, whose parsed metadata names the queue back; nothing else is a queue', () => {
    const queues = dumps.filter((d) => /queue/.test(d.file));
    expect(queues.length).toBeGreaterThanOrEqual(7);
    for (const d of dumps) {
      const tree = lightQueueTree(d.account.owner, Buffer.from(d.account.data[0], 'base64'));
      if (!queues.includes(d)) {
        expect(tree, d.file).toBeNull();
        continue;
      }
      expect(tree, d.file).not.toBeNull();
      expect(parsed.get(tree!)?.queue, d.file).toBe(d.pubkey);
    }
  });
});
