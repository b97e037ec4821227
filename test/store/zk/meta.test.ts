/**
 * Tree metadata (loaded from the tree-metadata config format Photon's tests pre-seed), transaction rows that
 * converge when written twice, pruning of non-compression transactions, and the indexer slot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { emptyZkWrite } from '../../../src/store/zk/types.js';
import { writeZk } from '../../../src/store/zk/write.js';
import { getTrees, getTreesByQueue, listTrees, parseTreeMetadataConfig, upsertTrees } from '../../../src/store/zk/trees.js';
import { getIndexerSlot, getLatestSignatures, getTransactions, pruneNonCompressionTransactions } from '../../../src/store/zk/transactions.js';
import { advanceCheckpoint } from '../../../src/store/chain.js';
import { AMT2, BMT1, OQ1, SMT1, NFQ1, SNAP_DIR, synth, synthSig } from './scenario.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.drop());

const config = JSON.parse(readFileSync(join(SNAP_DIR, 'tree-metadata.json'), 'utf8'));

describe('tree metadata', () => {
  it('parses the config file format and reads back by tree and by queue', async () => {
    const rows = parseTreeMetadataConfig(config);
    expect(rows).toHaveLength(config.trees.length);
    expect(rows.find((r) => r.tree === SMT1)).toEqual({
      tree: SMT1, queue: NFQ1, treeType: 1, height: 26, rootHistoryCapacity: 2400, owner: config.expectedTreeOwner, source: 'config',
    });
    await upsertTrees(t.db, rows);
    const byTree = await getTrees(t.db, [SMT1, BMT1, AMT2, synth('tree:unknown')]);
    expect([...byTree.keys()].sort()).toEqual([SMT1, BMT1, AMT2].sort());
    expect(byTree.get(BMT1)).toMatchObject({ queue: OQ1, treeType: 3, height: 32 });
    const byQueue = await getTreesByQueue(t.db, [OQ1, AMT2]);
    expect(byQueue.get(OQ1)?.tree).toBe(BMT1);
    expect(byQueue.get(AMT2)).toMatchObject({ tree: AMT2, treeType: 4, height: 40 }); // V2 address tree: queue = tree
    expect((await listTrees(t.db)).map((r) => r.tree)).toHaveLength(rows.length);
  });

  it('a later upsert replaces the row (chain discovery after config); the same upsert again changes nothing', async () => {
    const [first] = parseTreeMetadataConfig(config);
    await upsertTrees(t.db, [{ ...first, rootHistoryCapacity: 5000, source: 'chain' }]);
    expect((await getTrees(t.db, [first.tree])).get(first.tree)).toMatchObject({ rootHistoryCapacity: 5000, source: 'chain' });
    const before = await t.db.query('SELECT xmin::text AS x FROM zk_trees ORDER BY tree');
    await upsertTrees(t.db, [{ ...first, rootHistoryCapacity: 5000, source: 'chain' }]);
    expect(await t.db.query('SELECT xmin::text AS x FROM zk_trees ORDER BY tree')).toEqual(before);
  });

  it('rejects malformed entries', () => {
    expect(() => parseTreeMetadataConfig({})).toThrow(/trees/);
    expect(() => parseTreeMetadataConfig({ trees: [{ tree: SMT1, queue: NFQ1, treeType: 'StateV9', height: 26, rootHistoryCapacity: 1 }] })).toThrow(/tree type/);
    expect(() => parseTreeMetadataConfig({ trees: [{ tree: SMT1, queue: NFQ1, treeType: 'StateV1', height: '26', rootHistoryCapacity: 1 }] })).toThrow(/height/);
  });
});

describe('transactions', () => {
  it('the same transaction written twice converges: uses_compression turns on, error and block time fill in', async () => {
    const signature = synthSig('meta:tx');
    const write = (usesCompression: boolean, error: string | null, blockTime: number | null) =>
      t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), transactions: [{ signature, slot: 9, blockTime, usesCompression, error }] }));
    await write(false, null, null);
    await write(true, 'InstructionError', 77);
    await write(false, null, null);
    expect((await getTransactions(t.db, [signature])).get(signature)).toEqual({ signature, slot: 9, blockTime: 77, usesCompression: true, error: 'InstructionError' });
  });

  it('pruning keeps the newest non-compression transactions and every compression one', async () => {
    const txs = Array.from({ length: 6 }, (_, i) => ({ signature: synthSig(`meta:prune:${i}`), slot: 20 + (i % 3), blockTime: null, usesCompression: false, error: null }));
    const kept = synthSig('meta:prune:compression');
    await t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), transactions: [...txs, { signature: kept, slot: 1, blockTime: null, usesCompression: true, error: null }] }));
    const all = (await getLatestSignatures(t.db, { limit: 1000, onlyCompression: false })).items;
    const nonCompression = all.filter((s) => txs.some((x) => x.signature === s.signature));
    expect(await pruneNonCompressionTransactions(t.db, 2)).toBe(4);
    const after = (await getLatestSignatures(t.db, { limit: 1000, onlyCompression: false })).items.map((s) => s.signature);
    expect(after.filter((s) => txs.some((x) => x.signature === s))).toEqual(nonCompression.slice(0, 2).map((s) => s.signature));
    expect(after).toContain(kept);
    expect(after).toContain(synthSig('meta:tx'));
    expect(await pruneNonCompressionTransactions(t.db, 2)).toBe(0);
  });
});

describe('indexer slot', () => {
  it('is the chain checkpoint', async () => {
    expect(await getIndexerSlot(t.db)).toBeNull();
    await advanceCheckpoint(t.db, 1234);
    expect(await getIndexerSlot(t.db)).toBe(1234);
  });
});
