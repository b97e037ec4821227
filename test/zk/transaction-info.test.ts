/**
 * getTransactionWithCompressionInfo(V2) beyond the recorded mint case: closed accounts (V1; V2 with the input-queue
 * nullifier and tx hash), the stored-only description of the transaction when no cluster fetcher is configured, and
 * the failure forms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { callRpc } from './harness.js';
import { bobAccounts, seedBob } from './seeded-cases.js';
import { accountRow, BMT1, OQ1, SNAP, snapshot, synthField, synthSig, txWrite, write } from './seed.js';

const spendSig = () => (snapshot(SNAP.bobTokenSignatures) as { signature: string }[]).map((s) => s.signature).filter((s) => !s.startsWith('64jF'))[0];

describe('without a cluster fetcher', () => {
  let ta: TestApp;
  const v2 = accountRow({ hash: synthField('tx:v2'), address: null, data: null, owner: synthField('tx:owner'), lamports: 3, leafIndex: 0, seq: null, slotCreated: 9, tree: BMT1 }, null, { inOutputQueue: true, queue: OQ1 });
  const v2Sig = synthSig('tx:v2-spend');
  const nullifier = synthField('tx:nullifier');
  const txHash = synthField('tx:txhash');
  beforeAll(async () => {
    ta = await createTestApp();
    await seedBob(ta);
    await write(ta.t.db, { accounts: [v2] });
    await write(ta.t.db, { spends: [{ hash: v2.hash, nullifier, txHash, nullifierQueueIndex: 0 }], ...txWrite(v2Sig, 9, [], [v2.hash], 1_700_000_009) });
  });
  afterAll(async () => ta?.close());

  it('describes the transaction from stored facts and lists the closed account with its token data', async () => {
    const r = await callRpc(ta, 'getTransactionWithCompressionInfo', { signature: spendSig() });
    const minted = snapshot(SNAP.mintTransaction).compressionInfo.openedAccounts[0];
    expect(r.result).toEqual({
      transaction: { slot: 0, blockTime: 0, meta: { err: null, status: { Ok: null } } },
      compressionInfo: { closedAccounts: [{ account: { ...minted.account, slotCreated: 0 }, optionalTokenData: minted.optionalTokenData }], openedAccounts: [] },
    });
  });
  it('V2 closed accounts carry their nullifier and tx hash', async () => {
    const r = await callRpc(ta, 'getTransactionWithCompressionInfoV2', { signature: v2Sig });
    expect((r.result as any).compressionInfo).toEqual({
      closedAccounts: [
        {
          account: {
            account: { hash: v2.hash, address: null, data: null, owner: v2.owner, lamports: 3, leafIndex: 0, seq: null, slotCreated: 9, proveByIndex: true, merkleContext: { treeType: 3, tree: BMT1, queue: OQ1, cpiContext: null, nextTreeContext: null } },
            nullifier,
            txHash,
          },
          optionalTokenData: null,
        },
      ],
      openedAccounts: [],
    });
    expect((r.result as any).transaction).toEqual({ slot: 9, blockTime: 1_700_000_009, meta: { err: null, status: { Ok: null } } });
    const v1closed = (await callRpc(ta, 'getTransactionWithCompressionInfoV2', { signature: spendSig() })).result as any;
    expect(v1closed.compressionInfo.closedAccounts[0].account).toMatchObject({ nullifier: '11111111111111111111111111111111', txHash: '11111111111111111111111111111111' });
  });
  it('an unknown signature is Record Not Found', async () => {
    expect((await callRpc(ta, 'getTransactionWithCompressionInfoV2', { signature: synthSig('unknown') })).error).toEqual({
      code: -32000,
      message: `Record Not Found: Transaction ${synthSig('unknown')} not found`,
    });
  });
});

describe('with a cluster fetcher', () => {
  it('a failing fetcher is an internal error; a transaction only the cluster knows has no compression info', async () => {
    const failing = await createTestApp({ zk: { getTransaction: async () => { throw new Error('boom'); } } });
    const clusterOnly = await createTestApp({ zk: { getTransaction: async (s) => ({ slot: 77, blockTime: 1, transaction: ['', 'base64'], meta: { err: null }, signature: s }) } });
    try {
      await seedBob(failing);
      expect((await callRpc(failing, 'getTransactionWithCompressionInfo', { signature: spendSig() })).error?.code).toBe(-32603);
      const sig = synthSig('cluster-only');
      expect((await callRpc(clusterOnly, 'getTransactionWithCompressionInfo', { signature: sig })).result).toEqual({
        transaction: { slot: 77, blockTime: 1, transaction: ['', 'base64'], meta: { err: null }, signature: sig },
        compressionInfo: { closedAccounts: [], openedAccounts: [] },
      });
    } finally {
      await Promise.all([failing.close(), clusterOnly.close()]);
    }
    expect(bobAccounts().live).toHaveLength(2);
  });
});
