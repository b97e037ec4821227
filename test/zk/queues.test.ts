/**
 * getQueueElements / getQueueInfo on SYNTHETIC V2 data: a batched state tree with appended and queued accounts and
 * a spent account in the input queue, and a batched address tree with elements and queued addresses. Leaves,
 * proofs (as shared nodes), roots, hash chains and subtrees are checked against the Light reference models.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { nodeFromBase58, nodeToBase58 } from '../../src/proofs/hash.js';
import { IndexedMerkleTree, initPoseidon, SparsePoseidonTree, zeroHash } from '../../src/proofs/light/index.js';
import { hashChain } from '../../src/api/zk/prover.js';
import { callRpc } from './harness.js';
import { accountRow, AMT2, BMT1, indexedTreeRows, OQ1, seedTrees, synthField, write } from './seed.js';

await initPoseidon();

const owner = synthField('queue:owner');
const mk = (i: number, inQueue: boolean) =>
  accountRow({ hash: synthField(`queue:acct:${i}`), address: null, data: null, owner, lamports: 1, leafIndex: i, seq: inQueue ? null : 1, slotCreated: 3, tree: BMT1 }, null, { inOutputQueue: inQueue, queue: OQ1 });
const accts = [mk(0, false), mk(1, false), mk(2, true), mk(3, true), mk(4, true)];
const nullifier = synthField('queue:nullifier:0');
const txHash = synthField('queue:txhash:0');
const state = new SparsePoseidonTree(32);
const addressTree = new IndexedMerkleTree('AddressV2');
const inserted = [synthField('queue:addr:a'), synthField('queue:addr:b')];
const queuedAddresses = [synthField('queue:addr:q1'), synthField('queue:addr:q2'), synthField('queue:addr:q3')];
/** Encoded node index (level << 56 | position) as exact decimal digits. */
const enc = (level: number, pos: number) => ((BigInt(level) << 56n) | BigInt(pos)).toString();

/** The `nodes` of a raw getQueueElements body by exact index: indexes above 2^53 are bare JSON integers. */
async function rawNodes(params: unknown): Promise<{ body: string; nodes: Map<string, string> }> {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method: 'getQueueElements', params } });
  const nodes = new Map<string, string>();
  for (const m of r.body.matchAll(/\{"index":(\d+),"hash":"(\w+)"\}/g)) nodes.set(m[1], m[2]);
  return { body: r.body, nodes };
}

let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
  await seedTrees(ta.t.db, 11);
  state.setLeaf(0, nodeFromBase58(accts[0].hash)!);
  state.setLeaf(1, nodeFromBase58(accts[1].hash)!);
  const stateNodes = state.entries().map(([nodeIdx, h]) => ({ tree: BMT1, nodeIdx, leafIdx: nodeIdx >= 2 ** 32 ? nodeIdx - 2 ** 32 : null, level: 32 - Math.floor(Math.log2(nodeIdx)), hash: nodeToBase58(h), seq: 6 }));
  for (const a of inserted) addressTree.insert(a);
  await write(ta.t.db, {
    accounts: accts,
    stateNodes,
    batchEvents: [{ tree: BMT1, kind: 'append', seq: 6, oldNextIndex: 0, newNextIndex: 2, slot: 10, signature: null }],
  });
  await write(ta.t.db, { spends: [{ hash: accts[0].hash, nullifier, txHash, nullifierQueueIndex: 0 }] });
  await write(ta.t.db, { ...indexedTreeRows(AMT2, addressTree, 2), addressQueue: queuedAddresses.map((address, i) => ({ tree: AMT2, address, queueIndex: 2 + i })) });
});
afterAll(async () => ta?.close());

describe('getQueueElements', () => {
  it('output queue: queued accounts, their (empty) leaves, shared proof nodes, initial root', async () => {
    const r = await callRpc(ta, 'getQueueElements', { tree: BMT1, outputQueue: { limit: 100 } });
    const res = r.result as any;
    expect(res.context).toEqual({ slot: 11 });
    const sq = res.stateQueue;
    expect(sq.outputQueue).toEqual({
      leafIndices: [2, 3, 4],
      accountHashes: accts.slice(2).map((a) => a.hash),
      leaves: [0, 0, 0].map(() => nodeToBase58(zeroHash(0))),
      firstQueueIndex: 2,
      nextIndex: 2,
      leavesHashChains: [],
    });
    expect(sq.inputQueue).toBeUndefined();
    expect(sq.initialRoot).toBe(nodeToBase58(state.root()));
    expect(sq.rootSeq).toBe(6);
    const { body, nodes: byIndex } = await rawNodes({ tree: BMT1, outputQueue: { limit: 100 } });
    expect(byIndex.size).toBe((sq.nodes as unknown[]).length);
    for (const leaf of [2, 3, 4]) {
      const p = state.proof(leaf);
      let pos = leaf;
      p.proof.forEach((h, level) => {
        expect(byIndex.get(enc(level, pos % 2 === 0 ? pos + 1 : pos - 1)), `leaf ${leaf} level ${level}`).toBe(h);
        pos = Math.floor(pos / 2);
      });
    }
    // level ≥ 1 indexes exceed 2^53 and are written as exact bare integers (as Photon's u64)
    expect(body).toContain(`{"index":${enc(1, 0)},`);
  });
  it('zkpBatchSize: only full batches, with their hash chains; startIndex', async () => {
    const two = (await callRpc(ta, 'getQueueElements', { tree: BMT1, outputQueue: { limit: 100, zkpBatchSize: 2 } })).result as any;
    expect(two.stateQueue.outputQueue.leafIndices).toEqual([2, 3]);
    expect(two.stateQueue.outputQueue.leavesHashChains).toEqual([nodeToBase58(hashChain([accts[2].hash, accts[3].hash].map((h) => nodeFromBase58(h)!)))]);
    const four = (await callRpc(ta, 'getQueueElements', { tree: BMT1, outputQueue: { limit: 100, zkpBatchSize: 4 } })).result as any;
    expect(four.stateQueue.outputQueue).toMatchObject({ leafIndices: [], accountHashes: [], leavesHashChains: [] });
    const from3 = (await callRpc(ta, 'getQueueElements', { tree: BMT1, outputQueue: { limit: 1, startIndex: 3 } })).result as any;
    expect(from3.stateQueue.outputQueue.leafIndices).toEqual([3]);
  });
  it('input queue: spent accounts waiting for a nullify, with their leaves, tx hashes and nullifiers', async () => {
    const r = (await callRpc(ta, 'getQueueElements', { tree: BMT1, inputQueue: { limit: 10, zkpBatchSize: 1 } })).result as any;
    expect(r.stateQueue.inputQueue).toEqual({
      leafIndices: [0],
      accountHashes: [accts[0].hash],
      leaves: [accts[0].hash],
      txHashes: [txHash],
      nullifiers: [nullifier],
      firstQueueIndex: 0,
      leavesHashChains: [nullifier],
    });
    expect(r.stateQueue.initialRoot).toBe(nodeToBase58(state.root()));
  });
  it('address queue: low elements and proofs, start index, subtrees, hash chains', async () => {
    const r = (await callRpc(ta, 'getQueueElements', { tree: AMT2, addressQueue: { limit: 10, zkpBatchSize: 2 } })).result as any;
    const aq = r.addressQueue;
    expect(aq.addresses).toEqual(queuedAddresses);
    expect(aq.queueIndices).toEqual([2, 3, 4]);
    const lows = queuedAddresses.map((a) => addressTree.lowElement(a));
    expect(aq.lowElementIndices).toEqual(lows.map((l) => l.index));
    expect(aq.lowElementNextIndices).toEqual(lows.map((l) => l.nextIndex));
    expect(aq.startIndex).toBe(3);
    expect(aq.initialRoot).toBe(nodeToBase58(addressTree.root()));
    expect(aq.rootSeq).toBe(2);
    expect(aq.leavesHashChains).toEqual([nodeToBase58(hashChain(queuedAddresses.slice(0, 2).map((a) => nodeFromBase58(a)!)))]);
    expect(aq.subtrees).toHaveLength(40);
    // next leaf 3: level 0 → leaf 2, level 1 → node over leaves 0..1, above that the leftmost node of the level
    const lookup = addressTree.lookup;
    expect(aq.subtrees[0]).toBe(nodeToBase58(lookup(2 ** 40 + 2)!));
    expect(aq.subtrees[1]).toBe(nodeToBase58(lookup(2 ** 39 + 0)!));
    expect(aq.subtrees[2]).toBe(nodeToBase58(lookup(2 ** 38 + 0)!));
    const proof0 = addressTree.newAddressProof(queuedAddresses[0], { merkleTree: AMT2, rootSeq: 2 });
    const { nodes } = await rawNodes({ tree: AMT2, addressQueue: { limit: 10, zkpBatchSize: 2 } });
    expect(nodes.get((enc(0, proof0.lowElementLeafIndex % 2 === 0 ? proof0.lowElementLeafIndex + 1 : proof0.lowElementLeafIndex - 1)))).toBe(proof0.proof[0]);
  });
  it('an empty address queue still reports the start index and subtrees', async () => {
    const empty = await createTestApp();
    try {
      await seedTrees(empty.t.db);
      const aq = ((await callRpc(empty, 'getQueueElements', { tree: AMT2, addressQueue: { limit: 10 } })).result as any).addressQueue;
      expect(aq).toMatchObject({ addresses: [], startIndex: 1, rootSeq: 0, initialRoot: '11111111111111111111111111111111' });
      expect(aq.subtrees[5]).toBe(nodeToBase58(zeroHash(5)));
    } finally {
      await empty.close();
    }
  });
});

describe('getQueueInfo', () => {
  it('queue sizes of the V2 trees (input 3, address 4, output 5) and the indexed slot', async () => {
    const r = (await callRpc(ta, 'getQueueInfo', {})).result as { queues: { tree: string; queueType: number; queueSize: number; queue: string }[]; slot: number };
    expect(r.slot).toBe(11);
    const find = (tree: string, type: number) => r.queues.find((q) => q.tree === tree && q.queueType === type);
    expect(find(BMT1, 3)).toEqual({ tree: BMT1, queue: OQ1, queueType: 3, queueSize: 1 });
    expect(find(BMT1, 5)).toEqual({ tree: BMT1, queue: OQ1, queueType: 5, queueSize: 3 });
    expect(find(AMT2, 4)).toEqual({ tree: AMT2, queue: AMT2, queueType: 4, queueSize: 3 });
    expect(r.queues.every((q) => q.tree !== 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT')).toBe(true);
    const only = (await callRpc(ta, 'getQueueInfo', { trees: [AMT2] })).result as { queues: unknown[] };
    expect(only.queues).toEqual([{ tree: AMT2, queue: AMT2, queueType: 4, queueSize: 3 }]);
    expect((await callRpc(ta, 'getQueueInfo', { trees: ['nope'] })).error).toEqual({ code: -32000, message: 'Validation Error: Invalid pubkey: nope' });
  });
});
