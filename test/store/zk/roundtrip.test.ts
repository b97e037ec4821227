/**
 * Write → read round trips over the scenario history: every read of the ZK store returns what was written, in
 * Photon's order, and the parts built from Photon's recorded outputs read back exactly as recorded (bob's token
 * accounts and balance, the payer's accounts and balance, the new-address low element).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { base58ToBytes, bytesToBase64 } from '../../../src/core/encoding.js';
import { emptyZkWrite, type ZkAccount, type ZkAccountRow } from '../../../src/store/zk/types.js';
import { writeZk } from '../../../src/store/zk/write.js';
import {
  getAccountsByAddress, getAccountsByHash, getAccountsByOwner, getTokenAccountBalance, getTokenAccounts, getTokenAccountsByHash,
} from '../../../src/store/zk/accounts.js';
import { getMintTokenHolders, getOwnerBalance, getTokenBalancesByOwner } from '../../../src/store/zk/balances.js';
import {
  getLatestSignatures, getSignaturesFor, getSignaturesForAccount, getTransactionAccounts, getTransactions,
} from '../../../src/store/zk/transactions.js';
import { getStateNodes, getStateNodesOfTrees, nodeKey } from '../../../src/store/zk/state-tree.js';
import {
  getAddressQueue, getElementsByValue, getIndexedElements, getIndexedTreeNextIndex, getLowElements, getQueuedAddresses,
} from '../../../src/store/zk/indexed-tree.js';
import {
  getAccountsByLeafRange, getAccountsByNullifierQueueRange, getInputQueue, getOutputQueue, getQueueLengths,
} from '../../../src/store/zk/queues.js';
import { getBatchEvents } from '../../../src/store/zk/batch-events.js';
import { applySeparately } from './helpers.js';
import {
  ADDRESS_PROOF, ADDRESS_Q, ALICE, AMT1, AMT2, BMT1, BOB, CAROL, DAVE, ERIN, history, INSERTED_VALUE, JREC, MINT, MINTED,
  PA0, PAYER, PAYER_LIVE, Q, R2R46, SIGS, SMT1, snapshot, synth, TOKEN_PROGRAM, V2_ADDRESSES, V2A, V2B, V2C, X1, X2, X3, Y1,
} from './scenario.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  await applySeparately(t.db, history());
});
afterAll(async () => t?.drop());

const bytesCmp = (a: string, b: string) => Buffer.compare(Buffer.from(base58ToBytes(a)), Buffer.from(base58ToBytes(b)));

/** What a stored account must look like, from the row that created it. */
function expected(row: ZkAccountRow, state: Partial<ZkAccount> = {}): ZkAccount {
  return {
    hash: row.hash,
    address: row.address,
    owner: row.owner,
    lamports: row.lamports,
    data: row.data ? { discriminator: row.data.discriminator, data: new Uint8Array(row.data.data), dataHash: row.data.dataHash } : null,
    tree: row.tree,
    queue: row.queue,
    treeType: row.treeType,
    leafIndex: row.leafIndex,
    seq: row.seq,
    slotCreated: row.slotCreated,
    spent: false,
    nullifier: null,
    txHash: null,
    nullifierQueueIndex: null,
    inOutputQueue: row.inOutputQueue,
    nullifiedInTree: false,
    ...state,
  };
}
/** Photon's V1 `Account` JSON of a stored account. */
const photonAccount = (a: ZkAccount) => ({
  hash: a.hash,
  address: a.address,
  data: a.data ? { discriminator: Number(a.data.discriminator), data: bytesToBase64(a.data.data), dataHash: a.data.dataHash } : null,
  owner: a.owner,
  lamports: Number(a.lamports),
  tree: a.tree,
  leafIndex: a.leafIndex,
  seq: a.seq,
  slotCreated: a.slotCreated,
});

describe('accounts', () => {
  it('by hash: unspent by default, spent or any on request; spend state and V2 queue state', async () => {
    const all = [JREC, R2R46, MINTED, X1, X2, X3, Y1, PA0, PAYER_LIVE, Q, V2A, V2B, V2C].map((a) => a.hash);
    const unspent = await getAccountsByHash(t.db, [...all, synth('unknown')]);
    expect([...unspent.keys()].sort()).toEqual([JREC, R2R46, X3, Y1, PAYER_LIVE, Q, V2B].map((a) => a.hash).sort());
    expect(unspent.get(JREC.hash)).toEqual(expected(JREC));
    expect(unspent.get(Q.hash)).toEqual(expected(Q));
    expect(unspent.get(V2B.hash)).toEqual(expected(V2B, { inOutputQueue: false }));
    const spent = await getAccountsByHash(t.db, all, 'spent');
    expect([...spent.keys()].sort()).toEqual([MINTED, X1, X2, PA0, V2A, V2C].map((a) => a.hash).sort());
    expect(spent.get(MINTED.hash)).toEqual(expected(MINTED, { spent: true }));
    expect(spent.get(V2A.hash)).toEqual(expected(V2A, {
      spent: true, nullifier: synth('nullifier:v2a'), txHash: synth('txhash:7'), nullifierQueueIndex: 0, inOutputQueue: false, nullifiedInTree: true,
    }));
    expect(spent.get(V2C.hash)).toEqual(expected(V2C, {
      spent: true, nullifier: synth('nullifier:v2c'), txHash: synth('txhash:8'), nullifierQueueIndex: 1, inOutputQueue: true,
    }));
    expect((await getAccountsByHash(t.db, all, 'any')).size).toBe(all.length);
  });

  it('by address: the live account', async () => {
    const m = await getAccountsByAddress(t.db, [ADDRESS_Q, synth('address:none')]);
    expect([...m.keys()]).toEqual([ADDRESS_Q]);
    expect(m.get(ADDRESS_Q)).toEqual(expected(Q));
  });

  it('by owner: the payer reads back as Photon recorded it (getCompressedAccountsByOwner)', async () => {
    const recorded = snapshot('integration_tests__e2e_tests__lamport_transfers-payer-accounts.snap').value;
    const page = await getAccountsByOwner(t.db, PAYER, { limit: 1000 });
    expect({ items: page.items.map(photonAccount), cursor: page.cursor }).toEqual({
      ...recorded,
      items: recorded.items.map((i: Record<string, unknown>) => ({ ...i, tree: PAYER_LIVE.tree })), // placed on smt2 here
    });
  });

  it('by owner: unspent only, leaf index then hash byte order', async () => {
    const page = await getAccountsByOwner(t.db, TOKEN_PROGRAM, { limit: 1000 });
    const want = [JREC, R2R46, X3, Y1].sort((a, b) => a.leafIndex - b.leafIndex || bytesCmp(a.hash, b.hash)).map((a) => a.hash);
    expect(page.items.map((a) => a.hash)).toEqual(want);
    expect(page.cursor).toBeNull();
  });

  it('by owner: memcmp filters and data slices on the stored data', async () => {
    const data = Q.data!.data;
    const hit = await getAccountsByOwner(t.db, Q.owner, { limit: 10, filters: [{ offset: 3, bytes: data.subarray(3, 9) }] });
    expect(hit.items.map((a) => a.hash)).toEqual([Q.hash]);
    const miss = await getAccountsByOwner(t.db, Q.owner, { limit: 10, filters: [{ offset: 4, bytes: data.subarray(3, 9) }] });
    expect(miss.items).toEqual([]);
    const sliced = await getAccountsByOwner(t.db, Q.owner, { limit: 10, dataSlice: { offset: 2, length: 5 } });
    expect(sliced.items[0].data!.data).toEqual(new Uint8Array(data.subarray(2, 7)));
    expect(sliced.items[0].data!.dataHash).toBe(Q.data!.dataHash);
  });
});

describe('token accounts and balances', () => {
  it("bob's token accounts read back as Photon recorded them, in its order (getCompressedTokenAccountsByOwner)", async () => {
    const recorded = snapshot('integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-accounts.snap').value;
    const page = await getTokenAccounts(t.db, 'owner', BOB, { limit: 1000 });
    const wire = page.items.map((i) => ({
      account: photonAccount(i.account),
      tokenData: { ...i.token, amount: Number(i.token.amount), tlv: i.token.tlv && bytesToBase64(i.token.tlv) },
    }));
    expect({ items: wire, cursor: page.cursor }).toEqual(recorded);
    expect((await getTokenAccounts(t.db, 'owner', BOB, { limit: 1000, mint: MINT })).items.length).toBe(2);
    expect((await getTokenAccounts(t.db, 'owner', BOB, { limit: 1000, mint: synth('mint:other') })).items).toEqual([]);
  });

  it('by delegate, with state and TLV', async () => {
    const page = await getTokenAccounts(t.db, 'delegate', DAVE, { limit: 10 });
    expect(page.items.map((i) => i.account.hash)).toEqual([Y1.hash]);
    expect(page.items[0].token).toEqual({ ...Y1.token, tlv: new Uint8Array(Y1.token!.tlv!) });
  });

  it('by hash (unspent by default, spent on request)', async () => {
    const m = await getTokenAccountsByHash(t.db, [JREC.hash, MINTED.hash]);
    expect([...m.keys()]).toEqual([JREC.hash]);
    expect((await getTokenAccountsByHash(t.db, [JREC.hash, MINTED.hash], 'spent')).get(MINTED.hash)?.token.amount).toBe(1000n);
  });

  it("bob's token balance reads back as Photon recorded it (getCompressedTokenBalancesByOwner)", async () => {
    const recorded = snapshot('integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-token-balances.snap').value;
    const page = await getTokenBalancesByOwner(t.db, BOB, { limit: 1000 });
    expect({ token_balances: page.items.map((b) => ({ mint: b.mint, balance: Number(b.balance) })), cursor: page.cursor }).toEqual(recorded);
  });

  it('token account balance by hash and by token owner (Photon quirk), lamport balances by owner', async () => {
    expect(await getTokenAccountBalance(t.db, { hash: JREC.hash })).toBe(5n);
    expect(await getTokenAccountBalance(t.db, { hash: MINTED.hash })).toBeNull();
    expect(await getTokenAccountBalance(t.db, { owner: BOB })).toBe([JREC, R2R46].sort((a, b) => bytesCmp(a.hash, b.hash))[0].token!.amount);
    expect(await getOwnerBalance(t.db, PAYER)).toBe(999998000n); // the recorded case's derived expectation
    expect(await getOwnerBalance(t.db, CAROL)).toBe(20n);
    expect(await getOwnerBalance(t.db, TOKEN_PROGRAM)).toBe(0n);
    expect(await getOwnerBalance(t.db, synth('owner:nobody'))).toBe(0n);
  });

  it('holders of a mint: balance desc, owner desc', async () => {
    const page = await getMintTokenHolders(t.db, MINT, { limit: 1000 });
    expect(page.items).toEqual([
      { owner: ERIN, balance: 795n },
      { owner: BOB, balance: 105n },
      { owner: ALICE, balance: 100n },
    ]);
  });
});

describe('signatures and transactions', () => {
  const S = (n: number) => SIGS[n - 1];
  const sigOrder = (ns: number[]) =>
    ns.map((n) => ({ n, slot: [0, 100, 101, 102, 102, 103, 104, 105, 106][n] })).sort((a, b) => b.slot - a.slot || bytesCmp(S(b.n), S(a.n))).map((x) => S(x.n));

  it('by token owner / owner / address / account hash, newest first (slot, then signature bytes, desc)', async () => {
    const bob = await getSignaturesFor(t.db, 'tokenOwner', BOB, { limit: 1000 });
    expect(bob.items.map((s) => s.signature)).toEqual(sigOrder([1, 2, 3, 4]));
    expect(bob.items[0]).toEqual({ signature: bob.items[0].signature, slot: 102, blockTime: 1_700_000_102, error: null });
    expect((await getSignaturesFor(t.db, 'owner', PAYER, { limit: 1000 })).items.map((s) => s.signature)).toEqual(sigOrder([1, 5]));
    expect((await getSignaturesFor(t.db, 'owner', CAROL, { limit: 1000 })).items.map((s) => s.signature)).toEqual(sigOrder([6, 7, 8]));
    expect((await getSignaturesFor(t.db, 'address', ADDRESS_Q, { limit: 1000 })).items.map((s) => s.signature)).toEqual([S(5)]);
    expect((await getSignaturesForAccount(t.db, MINTED.hash)).map((s) => s.signature)).toEqual(sigOrder([1, 2]));
  });

  it('latest compression signatures, the opened / closed accounts of a transaction, transactions by signature', async () => {
    const latest = await getLatestSignatures(t.db, { limit: 1000, onlyCompression: true });
    expect(latest.items.map((s) => s.signature)).toEqual(sigOrder([1, 2, 3, 4, 5, 6, 7, 8]));
    const acc = await getTransactionAccounts(t.db, S(2));
    expect(acc.opened.map((a) => a.hash)).toEqual([X1.hash, Y1.hash]);
    expect(acc.closed.map((a) => a.hash)).toEqual([MINTED.hash]);
    const txs = await getTransactions(t.db, [S(3), synth('none')]);
    expect([...txs.values()]).toEqual([{ signature: S(3), slot: 102, blockTime: 1_700_000_102, usesCompression: true, error: null }]);
  });
});

describe('trees and queues', () => {
  it('state nodes: the newest seq per node', async () => {
    const nodes = await getStateNodes(t.db, SMT1, [1, 2 ** 26, 2 ** 26 + 6, 2 ** 26 + 7]);
    expect(nodes.get(1)).toEqual({ tree: SMT1, nodeIdx: 1, leafIdx: null, level: 26, hash: synth(`node:${SMT1}:1:7`), seq: 7 });
    expect(nodes.get(2 ** 26)?.seq).toBe(1);
    expect(nodes.get(2 ** 26 + 6)?.hash).toBe(synth(`node:${SMT1}:${2 ** 26 + 6}:7`));
    expect(nodes.has(2 ** 26 + 7)).toBe(false);
    const multi = await getStateNodesOfTrees(t.db, [{ tree: SMT1, nodeIdx: 1 }, { tree: BMT1, nodeIdx: 1 }, { tree: BMT1, nodeIdx: 2 ** 32 }]);
    expect(multi.get(nodeKey(BMT1, 1))?.seq).toBe(2);
    expect(multi.get(nodeKey(BMT1, 2 ** 32))?.hash).toBe(synth(`node:${BMT1}:${2 ** 32}:2`));
    expect(multi.size).toBe(3);
  });

  it('the low element of a new address reads back as the recorded proof has it (getMultipleNewAddressProofs)', async () => {
    const [low] = await getLowElements(t.db, [{ tree: ADDRESS_PROOF.merkleTree, value: ADDRESS_PROOF.address }]);
    expect(low).toMatchObject({
      leafIndex: ADDRESS_PROOF.lowElementLeafIndex,
      value: ADDRESS_PROOF.lowerRangeAddress,
      nextIndex: ADDRESS_PROOF.nextIndex,
      nextValue: ADDRESS_PROOF.higherRangeAddress,
      seq: 2,
    });
    expect(await getIndexedTreeNextIndex(t.db, AMT1)).toBe(3);
    expect(await getIndexedTreeNextIndex(t.db, synth('tree:empty'))).toBe(0);
    expect((await getElementsByValue(t.db, [{ tree: AMT1, value: INSERTED_VALUE }, { tree: AMT2, value: INSERTED_VALUE }])).map((e) => e?.leafIndex ?? null)).toEqual([2, null]);
    expect([...(await getIndexedElements(t.db, AMT1, [0, 1, 2, 5])).keys()].sort()).toEqual([0, 1, 2]);
  });

  it('V2 queues: output and input queues, ranges, address queue, lengths, events', async () => {
    expect((await getOutputQueue(t.db, BMT1, { limit: 100 })).map((a) => a.hash)).toEqual([V2C.hash]);
    expect((await getOutputQueue(t.db, BMT1, { limit: 100, startIndex: 3 }))).toEqual([]);
    expect((await getInputQueue(t.db, BMT1, { limit: 100 })).map((a) => a.hash)).toEqual([V2C.hash]);
    expect((await getAccountsByLeafRange(t.db, BMT1, 0, 2)).map((a) => a.hash)).toEqual([V2A.hash, V2B.hash]);
    expect((await getAccountsByNullifierQueueRange(t.db, BMT1, 0, 5)).map((a) => a.hash)).toEqual([V2A.hash, V2C.hash]);
    expect(await getAddressQueue(t.db, AMT2, { limit: 10 })).toEqual([{ tree: AMT2, address: V2_ADDRESSES[2], queueIndex: 2 }]);
    expect((await getQueuedAddresses(t.db, V2_ADDRESSES.map((address) => ({ tree: AMT2, address })))).map((x) => x?.queueIndex ?? null)).toEqual([null, null, 2]);
    expect(await getQueueLengths(t.db, BMT1)).toEqual({ output: 1, input: 1, address: 0 });
    expect(await getQueueLengths(t.db, AMT2)).toEqual({ output: 0, input: 0, address: 1 });
    expect((await getBatchEvents(t.db, BMT1)).map((e) => [e.kind, e.seq, e.oldNextIndex, e.newNextIndex])).toEqual([['append', 1, 0, 2], ['nullify', 2, 0, 1]]);
  });
});

describe('spends', () => {
  it('a spend in the same batch as the creation, listed before it: spent, balances net zero, rows kept', async () => {
    const owner = synth('owner:same-batch');
    const tokenOwner = synth('owner:same-batch-token');
    const mint = synth('mint:same-batch');
    const a: ZkAccountRow = { ...X1, hash: synth('hash:same-batch'), owner, lamports: 77n, leafIndex: 100, seq: 200, token: { ...X1.token!, owner: tokenOwner, mint, amount: 9n } };
    await t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), spends: [{ hash: a.hash, nullifier: null, txHash: null, nullifierQueueIndex: null }], accounts: [a] }));
    expect((await getAccountsByHash(t.db, [a.hash], 'spent')).get(a.hash)).toEqual(expected(a, { spent: true }));
    expect(await getOwnerBalance(t.db, owner)).toBe(0n);
    expect((await getTokenBalancesByOwner(t.db, tokenOwner, { limit: 10 })).items).toEqual([{ mint, balance: 0n }]);
    expect((await getTokenAccounts(t.db, 'owner', tokenOwner, { limit: 10 })).items).toEqual([]);
  });

  it('a spend in an earlier batch than the creation leaves a marker that the creation fills', async () => {
    const owner = synth('owner:early-spend');
    const a: ZkAccountRow = { ...PA0, hash: synth('hash:early-spend'), owner, lamports: 5n };
    await t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), spends: [{ hash: a.hash, nullifier: null, txHash: null, nullifierQueueIndex: null }] }));
    expect((await getAccountsByHash(t.db, [a.hash], 'any')).size).toBe(0); // a marker is not an account yet
    await t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), accounts: [a] }));
    expect((await getAccountsByHash(t.db, [a.hash], 'spent')).get(a.hash)).toEqual(expected(a, { spent: true }));
    expect(await getOwnerBalance(t.db, owner)).toBe(0n);
  });
});
