/**
 * Proofs rebuilt from stored nodes: V1 and V2 account proofs (by hash, and by index for accounts still in a V2 output
 * queue), new-address proofs on empty and populated V1/V2 address trees, all checked against the Light reference
 * tree models — and every proof verified before it is returned: corrupt stored nodes give an internal error and
 * count in `solgate_proof_verification_failures_total{kind="zk"}`, never a wrong proof. Nodes remembered across
 * requests (node-cache.ts) serve only the root they were read at: a new root is read from the store, and nodes
 * that failed verification are not remembered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { proofsVerified, proofVerificationFailures } from '../../src/core/metrics.js';
import { nodeFromBase58, nodeToBase58 } from '../../src/proofs/hash.js';
import { emptyAddressTreeProof, IndexedMerkleTree, initPoseidon, SparsePoseidonTree } from '../../src/proofs/light/index.js';
import { callRpc } from './harness.js';
import { loadNewAddressProofs } from '../../src/api/zk/address-proofs.js';
import type { Queryable } from '../../src/store/db.js';
import { clearNodeCache, nodeCacheSize } from '../../src/api/zk/node-cache.js';
import { seedBob } from './seeded-cases.js';
import { accountRow, AMT1, AMT2, BMT1, indexedTreeRows, OQ1, seedTrees, SMT1, SNAP, snapshot, synthField, write } from './seed.js';

const counter = async (c: typeof proofsVerified) => ((await c.get()).values.find((v) => v.labels.kind === 'zk')?.value ?? 0);

await initPoseidon();

describe('state proofs', () => {
  let ta: TestApp;
  beforeAll(async () => {
    ta = await createTestApp();
    await seedBob(ta);
  });
  afterAll(async () => ta?.close());

  it('getCompressedAccountProof(V2) rebuild the recorded proof', async () => {
    const recorded = snapshot(SNAP.bobProofs).value[0];
    expect((await callRpc(ta, 'getCompressedAccountProof', { hash: recorded.hash })).result).toEqual({ context: { slot: 0 }, value: recorded });
    const { merkleTree, ...rest } = recorded;
    expect((await callRpc(ta, 'getCompressedAccountProofV2', { hash: recorded.hash })).result).toEqual({
      context: { slot: 0 },
      value: { ...rest, proveByIndex: false, treeContext: { treeType: 1, tree: merkleTree, queue: 'nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148', cpiContext: null } },
    });
    const multi = await callRpc(ta, 'getMultipleCompressedAccountProofsV2', snapshot(SNAP.bobProofs).value.map((p: { hash: string }) => p.hash));
    expect((multi.result as any).value.map((p: any) => p.root)).toEqual([recorded.root, recorded.root]);
  });
  it('a proof that does not verify is an internal error and a counted failure', async () => {
    const recorded = snapshot(SNAP.bobProofs).value[1];
    const before = await counter(proofVerificationFailures);
    const verified = await counter(proofsVerified);
    // corrupt the sibling at level 1 of leaf 3 (seq above everything stored, so it replaces the node); the root
    // stays, so the nodes remembered from the test above would still serve it: forget them, as a restart would
    const sibling = 2 ** 26 / 2 + 0;
    await write(ta.t.db, { stateNodes: [{ tree: SMT1, nodeIdx: sibling, leafIdx: null, level: 1, hash: synthField('corrupt'), seq: 100 }] });
    clearNodeCache();
    for (const method of ['getCompressedAccountProof', 'getCompressedAccountProofV2']) {
      const r = await callRpc(ta, method, { hash: recorded.hash });
      expect(r.error?.code, method).toBe(-32603);
      expect(r.error?.message).toMatch(/do not give a valid proof/);
    }
    expect(await counter(proofVerificationFailures)).toBe(before + 2);
    expect(await counter(proofsVerified)).toBe(verified);
    const v = await callRpc(ta, 'getValidityProofV2', { hashes: [recorded.hash] });
    expect(v.error?.code).toBe(-32603);
    // nothing of the failing reads was remembered: the next read after a repair comes from the store
    expect(nodeCacheSize()).toBe(0);
    await write(ta.t.db, { stateNodes: [{ tree: SMT1, nodeIdx: sibling, leafIdx: null, level: 1, hash: recorded.proof[1], seq: 101 }] });
    expect((await callRpc(ta, 'getCompressedAccountProof', { hash: recorded.hash })).result).toEqual({ context: { slot: 0 }, value: recorded });
    expect(nodeCacheSize()).toBeGreaterThan(0);
  });
});

describe('remembered nodes and a changing root', () => {
  let ta: TestApp;
  const owner = synthField('cache:owner');
  const mk = (i: number) => accountRow({ hash: synthField(`cache:acct:${i}`), address: null, data: null, owner, lamports: i + 1, leafIndex: i, seq: i + 1, slotCreated: 3, tree: BMT1 }, null, { queue: OQ1 });
  const tree = new SparsePoseidonTree(32);
  const rowsOf = (seq: number) => tree.entries().map(([nodeIdx, h]) => ({ tree: BMT1, nodeIdx, leafIdx: nodeIdx >= 2 ** 32 ? nodeIdx - 2 ** 32 : null, level: 32 - Math.floor(Math.log2(nodeIdx)), hash: nodeToBase58(h), seq }));
  beforeAll(async () => {
    ta = await createTestApp();
    await seedTrees(ta.t.db, 3);
  });
  afterAll(async () => ta?.close());

  it('each answer is of the current root, read again after every append', async () => {
    const accts = Array.from({ length: 6 }, (_, i) => mk(i));
    for (let n = 1; n <= accts.length; n++) {
      tree.setLeaf(n - 1, nodeFromBase58(accts[n - 1].hash)!);
      await write(ta.t.db, { accounts: [accts[n - 1]], stateNodes: rowsOf(10 + n) });
      for (let repeat = 0; repeat < 2; repeat++) {
        const r = await callRpc(ta, 'getMultipleCompressedAccountProofsV2', accts.slice(0, n).map((a) => a.hash));
        const value = (r.result as any).value as { root: string; proof: string[]; leafIndex: number; rootSeq: number }[];
        value.forEach((p, i) => {
          const ref = tree.proof(i);
          expect({ root: p.root, proof: p.proof, rootSeq: p.rootSeq }).toEqual({ root: ref.root, proof: ref.proof, rootSeq: 10 + n });
        });
      }
    }
  });
});

describe('V2 state tree: appended and queued accounts', () => {
  let ta: TestApp;
  const owner = synthField('v2:owner');
  const mk = (i: number, inQueue: boolean) =>
    accountRow({ hash: synthField(`v2:acct:${i}`), address: null, data: null, owner, lamports: i + 1, leafIndex: i, seq: inQueue ? null : 1, slotCreated: 3, tree: BMT1 }, null, { inOutputQueue: inQueue, queue: OQ1 });
  const accts = [mk(0, false), mk(1, false), mk(2, true), mk(3, true)];
  const tree = new SparsePoseidonTree(32);
  beforeAll(async () => {
    ta = await createTestApp();
    await seedTrees(ta.t.db, 3);
    tree.setLeaf(0, nodeFromBase58(accts[0].hash)!);
    tree.setLeaf(1, nodeFromBase58(accts[1].hash)!);
    const stateNodes = tree.entries().map(([nodeIdx, h]) => ({ tree: BMT1, nodeIdx, leafIdx: nodeIdx >= 2 ** 32 ? nodeIdx - 2 ** 32 : null, level: 32 - Math.floor(Math.log2(nodeIdx)), hash: nodeToBase58(h), seq: 4 }));
    await write(ta.t.db, { accounts: accts, stateNodes });
  });
  afterAll(async () => ta?.close());

  it('appended: proof by hash; queued: proof of the leaf position with proveByIndex', async () => {
    const r = await callRpc(ta, 'getMultipleCompressedAccountProofsV2', [accts[1].hash, accts[2].hash]);
    const [appended, queued] = (r.result as any).value;
    const ref1 = tree.proof(1);
    expect(appended).toEqual({ proof: ref1.proof, root: ref1.root, leafIndex: 1, hash: accts[1].hash, rootSeq: 4, proveByIndex: false, treeContext: { treeType: 3, tree: BMT1, queue: OQ1, cpiContext: null } });
    const ref2 = tree.proof(2);
    expect(queued).toEqual({ proof: ref2.proof, root: ref2.root, leafIndex: 2, hash: accts[2].hash, rootSeq: 4, proveByIndex: true, treeContext: { treeType: 3, tree: BMT1, queue: OQ1, cpiContext: null } });
    expect(queued.proof).toHaveLength(32);
  });
  it('V1 proof methods do not prove queued accounts', async () => {
    expect((await callRpc(ta, 'getMultipleCompressedAccountProofs', [accts[2].hash])).error?.message).toBe('Record Not Found: Leaf nodes not found for hashes. Got 0 hashes. Expected 1.');
    expect(((await callRpc(ta, 'getMultipleCompressedAccountProofs', [accts[0].hash])).result as any).value[0].root).toBe(tree.proof(0).root);
  });
});

describe('new-address proofs', () => {
  let ta: TestApp;
  const v2 = new IndexedMerkleTree('AddressV2');
  const inserted = [synthField('addr:a'), synthField('addr:b'), synthField('addr:c')];
  const queuedAddress = synthField('addr:queued');
  beforeAll(async () => {
    ta = await createTestApp();
    await seedTrees(ta.t.db);
    for (const a of inserted) v2.insert(a);
    const rows = indexedTreeRows(AMT2, v2, 7);
    await write(ta.t.db, { ...rows, addressQueue: [{ tree: AMT2, address: queuedAddress, queueIndex: 5 }] });
  });
  afterAll(async () => ta?.close());

  it('an empty V1 tree answers the recorded mock proofs', async () => {
    const recorded = snapshot(SNAP.mockNewAddressProofs);
    expect((await callRpc(ta, 'getMultipleNewAddressProofs', recorded.value.map((p: { address: string }) => p.address))).result).toEqual(recorded);
  });
  it('a populated V2 tree answers the reference model\'s proof (height 40, root seq as stored)', async () => {
    const fresh = synthField('addr:fresh');
    const r = await callRpc(ta, 'getMultipleNewAddressProofsV2', [{ address: fresh, tree: AMT2 }]);
    expect((r.result as any).value).toEqual([v2.newAddressProof(fresh, { merkleTree: AMT2, rootSeq: 7 })]);
    expect((r.result as any).value[0].proof).toHaveLength(40);
  });
  it('an empty V2 tree answers the initialised tree (root seq 0)', async () => {
    const empty = await createTestApp();
    try {
      await seedTrees(empty.t.db);
      const fresh = synthField('addr:fresh');
      const r = await callRpc(empty, 'getMultipleNewAddressProofsV2', [{ address: fresh, tree: AMT2 }]);
      expect((r.result as any).value).toEqual([emptyAddressTreeProof('AddressV2', fresh, AMT2)]);
    } finally {
      await empty.close();
    }
  });
  it('existing and queued addresses are refused; address 0 exists in every tree', async () => {
    expect((await callRpc(ta, 'getMultipleNewAddressProofsV2', [{ address: inserted[1], tree: AMT2 }])).error?.message).toBe(`Validation Error: Address ${inserted[1]} already exists in tree ${AMT2}`);
    expect((await callRpc(ta, 'getMultipleNewAddressProofsV2', [{ address: queuedAddress, tree: AMT2 }])).error?.message).toBe(`Validation Error: Address ${queuedAddress} already exists in the address queue of tree ${AMT2}`);
    expect((await callRpc(ta, 'getMultipleNewAddressProofs', ['11111111111111111111111111111111'])).error?.message).toBe(`Validation Error: Address 11111111111111111111111111111111 already exists in tree ${AMT1}`);
  });
  it('a failing read of the path nodes (made while the leaf hashes are computed) is the answer\'s error', async () => {
    clearNodeCache();
    const failing: Queryable = {
      query: ((sql: string, params?: unknown[]) =>
        sql.includes('unnest($1::int[], $2::bigint[]) AS k(t, node_idx)')
          ? Promise.reject(new Error('connection lost'))
          : ta.t.db.query(sql, params)) as Queryable['query'],
    };
    const fresh = synthField('addr:fresh:read');
    await expect(loadNewAddressProofs(failing, [{ address: fresh, tree: AMT2 }])).rejects.toThrow('connection lost');
    // the same request on the working store still answers the reference model's proof
    expect(await loadNewAddressProofs(ta.t.db, [{ address: fresh, tree: AMT2 }])).toMatchObject([v2.newAddressProof(fresh, { merkleTree: AMT2, rootSeq: 7 })]);
  });
  it('corrupt address-tree nodes give an internal error and a counted failure', async () => {
    const before = await counter(proofVerificationFailures);
    const fresh = synthField('addr:fresh:2');
    const low = v2.lowElement(fresh).index;
    const sibling = 2 ** 40 + (low % 2 === 0 ? low + 1 : low - 1);
    await write(ta.t.db, { stateNodes: [{ tree: AMT2, nodeIdx: sibling, leafIdx: sibling - 2 ** 40, level: 0, hash: synthField('corrupt'), seq: 99 }] });
    const r = await callRpc(ta, 'getMultipleNewAddressProofsV2', [{ address: fresh, tree: AMT2 }]);
    expect(r.error?.code).toBe(-32603);
    expect(await counter(proofVerificationFailures)).toBe(before + 1);
  });
});
