/**
 * getValidityProof(V2) and the prover: without PROVER_URL a clear error (everything else keeps working); with a
 * real local HTTP prover the request carries the expected circuit inputs (hex roots, path indexes, siblings and
 * leaves of the verified proofs; the non-inclusion fields of new addresses; Light's public input hash for V2
 * heights and combined proofs), and the gnark answer is compressed as Light's clients compress it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createProverClient, hashChain, hex32, publicInputHash, twoInputsHashChain } from '../../src/api/zk/prover.js';
import { initPoseidon } from '../../src/proofs/light/index.js';
import { nodeToBase58 } from '../../src/proofs/hash.js';
import { callRpc } from './harness.js';
import { COMPRESSED_PROOF, startFakeProver, type FakeProver } from './fake-prover.js';
import { seedBob, seedNullifier } from './seeded-cases.js';
import { accountRow, AMT1, AMT2, BMT1, OQ1, seedTrees, SMT1, SNAP, snapshot, synthField, write } from './seed.js';

let prover: FakeProver;
beforeAll(async () => {
  prover = await startFakeProver();
  await initPoseidon();
});
afterAll(async () => prover?.close());

const bobHashes = ['JReC6h68m3EdCKP7S35e7BE4pBPwQz1HfjUkboeQy9r', '2R46QL8CSripTWvEsESL39ccripkjs9MjGtwnbJMzJET'];

describe('without a prover', () => {
  let ta: TestApp;
  beforeAll(async () => {
    ta = await createTestApp();
    await seedBob(ta);
  });
  afterAll(async () => ta?.close());

  it('getValidityProof(V2) answer that no prover is configured; proofs and accounts still answer', async () => {
    for (const method of ['getValidityProof', 'getValidityProofV2']) {
      const r = await callRpc(ta, method, { hashes: bobHashes });
      expect(r.error?.code, method).toBe(-32000);
      expect(r.error?.message, method).toMatch(/no prover is configured.*PROVER_URL/);
    }
    expect((await callRpc(ta, 'getMultipleCompressedAccountProofs', bobHashes)).result).toEqual(snapshot(SNAP.bobProofs));
  });
  it('parameter and data errors come before the prover', async () => {
    expect((await callRpc(ta, 'getValidityProof', {})).error).toEqual({ code: -32000, message: 'Validation Error: No hashes or new addresses provided for proof generation' });
    expect((await callRpc(ta, 'getValidityProof', { hashes: ['nope'] })).error?.code).toBe(-32602);
    expect((await callRpc(ta, 'getValidityProof', { newAddresses: [AMT1], newAddressesWithTrees: [{ address: AMT1, tree: AMT1 }] })).error?.message).toBe(
      'Validation Error: Cannot provide both newAddresses and newAddressesWithTree',
    );
    expect((await callRpc(ta, 'getValidityProof', { hashes: [SMT1] })).error).toEqual({ code: -32000, message: 'Record Not Found: Leaf nodes not found for hashes. Got 0 hashes. Expected 1.' });
    expect((await callRpc(ta, 'getValidityProofV2', { newAddresses: [AMT1] })).error?.code).toBe(-32602);
    expect((await callRpc(ta, 'getValidityProofV2', { hashes: [SMT1] })).error?.message).toMatch(/^Validation Error: Not all requested account hashes exist/);
  });
  it('V2 with nothing to prove answers without a prover', async () => {
    expect((await callRpc(ta, 'getValidityProofV2', {})).result).toEqual({ context: { slot: 0 }, value: { compressedProof: null, accounts: [], addresses: [] } });
  });
});

describe('with a local prover', () => {
  let ta: TestApp;
  beforeAll(async () => {
    ta = await createTestApp({ zk: { prover: createProverClient(`${prover.url}/`) } });
    await seedBob(ta);
  });
  afterAll(async () => ta?.close());

  it('getValidityProof sends the inclusion inputs of the verified proofs and compresses the answer', async () => {
    prover.requests.length = 0;
    const r = await callRpc(ta, 'getValidityProof', { hashes: bobHashes });
    const want = snapshot(SNAP.bobValidityProof);
    expect(r.result).toEqual({ ...want, value: { ...want.value, compressedProof: COMPRESSED_PROOF } });
    expect(prover.requests).toHaveLength(1);
    const { path, body } = prover.requests[0];
    expect(path).toBe('/prove');
    const proofs = snapshot(SNAP.bobProofs).value as { proof: string[]; root: string; leafIndex: number; hash: string }[];
    expect(body).toEqual({
      circuitType: 'inclusion',
      stateTreeHeight: 26,
      inputCompressedAccounts: proofs.map((p) => ({ root: hex32(p.root), pathIndex: p.leafIndex, pathElements: p.proof.map(hex32), leaf: hex32(p.hash) })),
    });
    expect(body.inputCompressedAccounts[0].root).toMatch(/^0x[0-9a-f]{64}$/);
  });
  it('getValidityProofV2: per-account inputs, root index = root seq mod the root history', async () => {
    const r = await callRpc(ta, 'getValidityProofV2', { hashes: bobHashes });
    const want = snapshot(SNAP.bobValidityProofV2);
    expect(r.result).toEqual({ ...want, value: { ...want.value, compressedProof: COMPRESSED_PROOF } });
  });
  it('a prover failure is an internal error, not a proof', async () => {
    prover.status = 500;
    try {
      const r = await callRpc(ta, 'getValidityProof', { hashes: bobHashes });
      expect(r.error?.code).toBe(-32603);
      expect(r.error?.message).toMatch(/^Prover error: HTTP 500/);
    } finally {
      prover.status = 200;
    }
  });
  it('an unreachable prover is a clear internal error', async () => {
    const down = await createTestApp({ zk: { prover: createProverClient('http://127.0.0.1:9/') } });
    try {
      await seedBob(down);
      const r = await callRpc(down, 'getValidityProof', { hashes: bobHashes });
      expect(r.error).toEqual({ code: -32603, message: 'Prover error: the prover at http://127.0.0.1:9/ could not be reached' });
    } finally {
      await down.close();
    }
  });
});

describe('new addresses and combined proofs', () => {
  let ta: TestApp;
  const fresh = '1111111ogCyDbaRMvkdsHB3qfdyFYaG1WtRUAfdh';
  beforeAll(async () => {
    ta = await createTestApp({ zk: { prover: createProverClient(prover.url) } });
    await seedNullifier(ta);
  });
  afterAll(async () => ta?.close());

  it('non-inclusion: the low element fields; deprecated newAddresses default to the V1 address tree', async () => {
    prover.requests.length = 0;
    const recorded = snapshot(SNAP.nullifierAddressProof).value[0];
    const r = await callRpc(ta, 'getValidityProof', { newAddresses: [fresh] });
    expect(r.result).toEqual({
      context: { slot: 0 },
      value: { compressedProof: COMPRESSED_PROOF, roots: [recorded.root], rootIndices: [recorded.rootSeq], leafIndices: [0], leaves: [fresh], merkleTrees: [AMT1] },
    });
    expect(prover.requests[0].body).toEqual({
      circuitType: 'non-inclusion',
      addressTreeHeight: 26,
      newAddresses: [
        {
          root: hex32(recorded.root),
          value: hex32(fresh),
          pathIndex: 0,
          pathElements: recorded.proof.map(hex32),
          leafLowerRangeValue: hex32(recorded.lowerRangeAddress),
          leafHigherRangeValue: hex32(recorded.higherRangeAddress),
          nextIndex: recorded.nextIndex,
        },
      ],
    });
  });
  it('combined: both input lists and the combined public input hash', async () => {
    prover.requests.length = 0;
    const account = snapshot(SNAP.nullifierProofs).value[0];
    const r = await callRpc(ta, 'getValidityProofV2', { hashes: [account.hash], newAddressesWithTrees: [{ address: fresh, tree: AMT1 }] });
    const value = (r.result as any).value;
    expect(value.accounts).toEqual([
      { hash: account.hash, root: account.root, rootIndex: { rootIndex: 5, proveByIndex: false }, leafIndex: 2, merkleContext: { treeType: 1, tree: SMT1, queue: 'nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148', cpiContext: null, nextTreeContext: null } },
    ]);
    expect(value.addresses).toEqual([
      { address: fresh, root: snapshot(SNAP.nullifierAddressProof).value[0].root, rootIndex: 5, merkleContext: { treeType: 2, tree: AMT1, queue: 'aq1S9z4reTSQAdgWHGD2zDaS39sjGrAxbR31vxJ2F4F', cpiContext: null, nextTreeContext: null } },
    ]);
    const body = prover.requests[0].body;
    expect(body.circuitType).toBe('combined');
    expect(body.stateTreeHeight).toBe(26);
    expect(body.addressTreeHeight).toBe(26);
    const expectedHash = publicInputHash([{ root: account.root, leaf: account.hash, leafIndex: 2, proof: [] }], [{ root: value.addresses[0].root, address: fresh, lowElementLeafIndex: 0, proof: [], nextIndex: 2, lowerRangeAddress: '', higherRangeAddress: '' }]);
    expect(body.publicInputHash).toBe(`0x${Buffer.from(expectedHash).toString('hex')}`);
  });
  it('an address that already exists is a validation error', async () => {
    const existing = snapshot(SNAP.nullifierAddressProof).value[0].higherRangeAddress;
    expect((await callRpc(ta, 'getValidityProof', { newAddresses: [existing] })).error?.message).toBe(`Validation Error: Address ${existing} already exists in tree ${AMT1}`);
  });
});

describe('V2 accounts proven by index', () => {
  let ta: TestApp;
  const queued = accountRow(
    { hash: synthField('v2:queued'), address: null, data: null, owner: synthField('v2:owner'), lamports: 7, leafIndex: 3, seq: null, slotCreated: 0, tree: BMT1 },
    null,
    { inOutputQueue: true, queue: OQ1 },
  );
  beforeAll(async () => {
    ta = await createTestApp({ zk: { prover: createProverClient(prover.url) } });
    await seedTrees(ta.t.db);
    await write(ta.t.db, { accounts: [queued] });
  });
  afterAll(async () => ta?.close());

  it('need no prover: root 1111…, rootIndex {0, proveByIndex: true}, compressedProof null', async () => {
    prover.requests.length = 0;
    const r = await callRpc(ta, 'getValidityProofV2', { hashes: [queued.hash] });
    expect(r.result).toEqual({
      context: { slot: 0 },
      value: {
        compressedProof: null,
        accounts: [{ hash: queued.hash, root: '11111111111111111111111111111111', rootIndex: { rootIndex: 0, proveByIndex: true }, leafIndex: 3, merkleContext: { treeType: 3, tree: BMT1, queue: OQ1, cpiContext: null, nextTreeContext: null } }],
        addresses: [],
      },
    });
    expect(prover.requests).toHaveLength(0);
  });
  it('V1 getValidityProof cannot prove a queued account', async () => {
    expect((await callRpc(ta, 'getValidityProof', { hashes: [queued.hash] })).error?.message).toMatch(/^Record Not Found: Leaf nodes not found/);
  });
  it('a V2 new address: height 40 and the public input hash', async () => {
    prover.requests.length = 0;
    const address = synthField('v2:new-address');
    const r = await callRpc(ta, 'getValidityProofV2', { newAddressesWithTrees: [{ address, tree: AMT2 }] });
    const value = (r.result as any).value;
    expect(value.addresses[0]).toMatchObject({ address, rootIndex: 0, merkleContext: { treeType: 4, tree: AMT2, queue: AMT2 } });
    const body = prover.requests[0].body;
    expect(body).toMatchObject({ circuitType: 'non-inclusion', addressTreeHeight: 40 });
    expect(body.newAddresses[0].pathElements).toHaveLength(40);
    expect(body.publicInputHash).toBe(`0x${Buffer.from(twoInputsHashChain([Buffer.from(body.newAddresses[0].root.slice(2), 'hex')], [Buffer.from(body.newAddresses[0].value.slice(2), 'hex')])).toString('hex')}`);
  });
});

describe('hash chains (Light vectors)', () => {
  it('create_hash_chain_from_slice([4;32],[5;32]) and the two-input chain definition', () => {
    const four = new Uint8Array(32).fill(4);
    const five = new Uint8Array(32).fill(5);
    expect([...hashChain([four, five])]).toEqual([13, 250, 206, 124, 182, 159, 160, 87, 57, 23, 80, 155, 25, 43, 40, 136, 228, 255, 201, 1, 22, 168, 211, 220, 176, 187, 23, 176, 46, 198, 140, 211]);
    expect([...hashChain([four, five, new Uint8Array(32).fill(6)])]).toEqual([12, 74, 32, 81, 132, 82, 10, 115, 75, 248, 169, 125, 228, 230, 140, 167, 149, 181, 244, 194, 63, 201, 26, 150, 142, 4, 60, 16, 77, 145, 194, 152]);
    expect(nodeToBase58(twoInputsHashChain([four], [five]))).toBe(nodeToBase58(hashChain([four, five])));
    expect([...twoInputsHashChain([], [])]).toEqual(new Array(32).fill(0));
  });
});
