/**
 * `helius-sdk` v3's `zk` namespace (the V1 method names) against the gateway listening on a loopback port, the
 * way the DAS client test points it there (`createHelius({ apiKey, baseUrl })` sends every call to
 * `baseUrl?api-key=…`). helius-sdk passes each JSON-RPC `result` through untouched, so every answer is compared with
 * the value a user relies on: the recorded Photon answer of the same query where one exists (whole `{context,
 * value}`), otherwise the recorded values it is made of.
 *
 * The data is the seeded Photon cases (seeded-cases.ts), one gateway per group of cases that the reference indexed
 * on its own (their trees and signature lists would otherwise mix): bob's mint-and-transfer case, the payer's
 * lamport-transfer case (whose V1 address tree is still empty, as in the mock new-address-proof case), the
 * nullifier/address-queue case, and the non-voting-signatures case. Where no recorded case has the data a method
 * needs (a delegated token account, an account with an address) the accounts are SYNTHETIC and say so.
 * Validity proofs go through the local fake prover (test/zk/fake-prover.ts); the proof itself is its fixed vector.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { createHelius } from 'helius-sdk';
import type { CompressedAccount, SignatureInfo } from 'helius-sdk/zk/types';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createProverClient } from '../../src/api/zk/prover.js';
import type { ZkAccountRow } from '../../src/store/zk/types.js';
import { COMPRESSED_PROOF, startFakeProver, type FakeProver } from './fake-prover.js';
import { fixtureTransactionFetcher, seedBob, seedNonVoting, seedNullifier, seedPayer } from './seeded-cases.js';
import { AMT1, BOB, MINT, PAYER, SMT1, SNAP, snapshot, synth, synthField, synthSig, TREES, txWrite, write } from './seed.js';

const MINT_SIG = '64jFxW4xxife8UqpEQyYdA589rzFKWx8rT4vun6soCpWXmDermr588UKX2261YYZ8ZSzcu2NUJY2aCfee64FvTW4';
const LIGHT_TOKEN_PROGRAM = 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m';
const capacityOf = (tree: string) => (TREES.trees.find((t) => t.tree === tree) as unknown as { rootHistoryCapacity: number }).rootHistoryCapacity;

// SYNTHETIC accounts for the methods no recorded case covers, in a tree no recorded case uses.
const SMT2 = 'smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho';
const DELEGATE = synth('helius:delegate');
const HOLDER = synth('helius:holder');
const SYN_MINT = synth('helius:mint');
const ADDRESS = synthField('helius:address');
const ADDRESS_SIG = synthSig('helius:address-tx');
const synthetic = (label: string, o: Partial<ZkAccountRow>): ZkAccountRow => ({
  hash: synthField(`helius:hash:${label}`), address: null, owner: synth('helius:owner'), lamports: 0n, data: null, tree: SMT2,
  queue: 'nfq2hgS7NYemXsFaFUCe3EMXSDSfnZnAe27jC6aPP1X', treeType: 1, leafIndex: 0, seq: 1, slotCreated: 0, inOutputQueue: false, token: null, ...o,
});
const delegated = synthetic('delegated', {
  owner: LIGHT_TOKEN_PROGRAM, lamports: 0n, leafIndex: 0,
  token: { mint: SYN_MINT, owner: HOLDER, amount: 42n, delegate: DELEGATE, state: 'initialized', tlv: null },
});
const addressed = synthetic('addressed', { address: ADDRESS, lamports: 1234n, leafIndex: 1, seq: 2 });

interface Gateway {
  ta: TestApp;
  helius: ReturnType<typeof createHelius>;
}

let prover: FakeProver;
/** bob's case (mint, transfers, latest signatures, the mint transaction). */
let bob: Gateway;
/** the payer's lamport transfers; the V1 address tree is empty (the mock new-address-proof case). */
let payer: Gateway;
/** the nullifier / address-queue case, plus the SYNTHETIC delegated and addressed accounts. */
let nullifier: Gateway;
/** the non-voting signatures case. */
let nonVoting: Gateway;

async function gateway(seed: (ta: TestApp) => Promise<void>): Promise<Gateway> {
  const ta = await createTestApp({ zk: { prover: createProverClient(prover.url), getTransaction: fixtureTransactionFetcher() } });
  await seed(ta);
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(ta.app.server.address() as AddressInfo).port}/`;
  return { ta, helius: createHelius({ apiKey: ta.key, baseUrl }) };
}

beforeAll(async () => {
  prover = await startFakeProver();
  [bob, payer, nullifier, nonVoting] = await Promise.all([
    gateway(seedBob),
    gateway(seedPayer),
    gateway(async (ta) => {
      await seedNullifier(ta);
      await write(ta.t.db, { accounts: [delegated, addressed], ...txWrite(ADDRESS_SIG, 0, [addressed.hash], []) });
    }),
    gateway(seedNonVoting),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([bob, payer, nullifier, nonVoting].map((g) => g?.ta.close()));
  await prover?.close();
});

/** The recorded answers used below. */
const rec = {
  bobAccounts: () => snapshot(SNAP.bobAccounts) as { context: { slot: number }; value: { items: { account: any; tokenData: any }[]; cursor: null } },
  bobProofs: () => snapshot(SNAP.bobProofs) as { context: { slot: number }; value: { hash: string; root: string; leafIndex: number; rootSeq: number; proof: string[]; merkleTree: string }[] },
  payerAccounts: () => snapshot(SNAP.payerAccounts) as { context: { slot: number }; value: { items: any[]; cursor: null } },
  payerProofs: () => snapshot(SNAP.payerProofs) as { context: { slot: number }; value: { hash: string; root: string; leafIndex: number; rootSeq: number; merkleTree: string }[] },
};

describe('helius-sdk zk: accounts and balances', () => {
  it('getCompressedAccount (by hash, address null as helius-sdk sends it): the recorded account', async () => {
    const p = rec.payerAccounts();
    expect(await payer.helius.zk.getCompressedAccount({ address: null, hash: p.value.items[0].hash })).toEqual({ context: p.context, value: p.value.items[0] });
    const [jrec] = rec.bobAccounts().value.items;
    expect((await bob.helius.zk.getCompressedAccount({ address: null, hash: jrec.account.hash })).value).toEqual(jrec.account);
  });
  it('getCompressedAccount by address (SYNTHETIC addressed account)', async () => {
    const r = await nullifier.helius.zk.getCompressedAccount({ address: ADDRESS });
    expect(r.value).toEqual({ hash: addressed.hash, address: ADDRESS, data: null, owner: addressed.owner, lamports: 1234, tree: SMT2, leafIndex: 1, seq: 2, slotCreated: 0 });
  });
  it('getCompressedAccountsByOwner: the recorded answers (payer, nullifier case)', async () => {
    expect(await payer.helius.zk.getCompressedAccountsByOwner({ owner: PAYER })).toEqual(rec.payerAccounts());
    const n = snapshot(SNAP.nullifierAccounts);
    expect(await nullifier.helius.zk.getCompressedAccountsByOwner({ owner: n.value.items[0].owner })).toEqual(n);
  });
  it('getMultipleCompressedAccounts: by hashes (aligned, null where unknown) and by addresses', async () => {
    const items = rec.bobAccounts().value.items.map((i) => i.account);
    const unknown = synthField('helius:unknown');
    expect(await bob.helius.zk.getMultipleCompressedAccounts({ hashes: [items[1].hash, unknown, items[0].hash] })).toEqual({ context: { slot: 0 }, value: { items: [items[1], null, items[0]] } });
    const byAddress = await nullifier.helius.zk.getMultipleCompressedAccounts({ addresses: [ADDRESS] });
    expect(byAddress.value.items.map((a: CompressedAccount | null) => a && [a.hash, a.address, a.lamports])).toEqual([[addressed.hash, ADDRESS, 1234]]);
  });
  it('getCompressedBalance and getCompressedBalanceByOwner: the recorded lamports', async () => {
    const p = rec.payerAccounts().value.items[0];
    expect(await payer.helius.zk.getCompressedBalance({ hash: p.hash })).toEqual({ context: { slot: 0 }, value: p.lamports });
    // the reference's derived expectation for the payer case
    expect(await payer.helius.zk.getCompressedBalanceByOwner({ owner: PAYER })).toEqual({ context: { slot: 0 }, value: 999998000 });
    expect((await nullifier.helius.zk.getCompressedBalance({ address: ADDRESS })).value).toBe(1234);
  });
});

describe('helius-sdk zk: compressed tokens', () => {
  it('getCompressedTokenAccountsByOwner: the recorded answer (bob)', async () => {
    expect(await bob.helius.zk.getCompressedTokenAccountsByOwner({ owner: BOB })).toEqual(rec.bobAccounts());
    const only = await bob.helius.zk.getCompressedTokenAccountsByOwner({ owner: BOB, mint: MINT, limit: 1 });
    expect(only.value.items.map((i: { tokenData: { amount: number } }) => i.tokenData.amount)).toEqual([rec.bobAccounts().value.items[0].tokenData.amount]);
    expect(only.value.cursor).toEqual(expect.any(String));
  });
  it('getCompressedTokenAccountBalance: each recorded amount', async () => {
    for (const { account, tokenData } of rec.bobAccounts().value.items)
      expect(await bob.helius.zk.getCompressedTokenAccountBalance({ hash: account.hash })).toEqual({ context: { slot: 0 }, value: { amount: tokenData.amount } });
  });
  it('getCompressedTokenBalancesByOwner (V1, token_balances): the recorded answer; V2 (items): the same balances', async () => {
    const recorded = snapshot(SNAP.bobTokenBalances);
    expect(await bob.helius.zk.getCompressedTokenBalancesByOwner({ owner: BOB })).toEqual(recorded);
    expect(await bob.helius.zk.getCompressedTokenBalancesByOwnerV2({ owner: BOB })).toEqual({ context: recorded.context, value: { items: recorded.value.token_balances, cursor: null } });
  });
  it('getCompressedMintTokenHolders: bob holds the recorded 105 of the mint', async () => {
    expect(await bob.helius.zk.getCompressedMintTokenHolders({ mint: MINT })).toEqual({ context: { slot: 0 }, value: { items: [{ owner: BOB, balance: 105 }], cursor: null } });
  });
  it('getCompressedTokenAccountsByDelegate (SYNTHETIC delegated account); none for a delegate with no accounts', async () => {
    const r = await nullifier.helius.zk.getCompressedTokenAccountsByDelegate({ delegate: DELEGATE });
    expect(r.value.cursor ?? null).toBeNull();
    expect(r.value.items).toEqual([
      {
        account: { hash: delegated.hash, address: null, data: null, owner: LIGHT_TOKEN_PROGRAM, lamports: 0, tree: SMT2, leafIndex: 0, seq: 1, slotCreated: 0 },
        tokenData: { mint: SYN_MINT, owner: HOLDER, amount: 42, delegate: DELEGATE, state: 'initialized', tlv: null },
      },
    ]);
    expect((await bob.helius.zk.getCompressedTokenAccountsByDelegate({ delegate: BOB })).value).toEqual({ items: [], cursor: null });
  });
});

describe('helius-sdk zk: proofs', () => {
  it('getCompressedAccountProof and getMultipleCompressedAccountProofs: the recorded proofs', async () => {
    const p = rec.payerProofs();
    expect(await payer.helius.zk.getCompressedAccountProof({ hash: p.value[0].hash })).toEqual({ context: p.context, value: p.value[0] });
    expect(await payer.helius.zk.getMultipleCompressedAccountProofs(p.value.map((x) => x.hash))).toEqual(p);
    const b = rec.bobProofs();
    expect(await bob.helius.zk.getMultipleCompressedAccountProofs(b.value.map((x) => x.hash))).toEqual(b);
    const n = snapshot(SNAP.nullifierProofs);
    expect(await nullifier.helius.zk.getMultipleCompressedAccountProofs(n.value.map((x: { hash: string }) => x.hash))).toEqual(n);
  });
  it('getMultipleNewAddressProofs: the recorded proofs on the empty V1 address tree and after the recorded insert', async () => {
    const mock = snapshot(SNAP.mockNewAddressProofs);
    expect(await payer.helius.zk.getMultipleNewAddressProofs(mock.value.map((x: { address: string }) => x.address))).toEqual(mock);
    const after = snapshot(SNAP.nullifierAddressProof);
    expect(await nullifier.helius.zk.getMultipleNewAddressProofs(after.value.map((x: { address: string }) => x.address))).toEqual(after);
  });
  it('getMultipleNewAddressProofsV2 (address with its tree): the recorded proof', async () => {
    const after = snapshot(SNAP.nullifierAddressProof);
    expect(await nullifier.helius.zk.getMultipleNewAddressProofsV2(after.value.map((x: { address: string; merkleTree: string }) => ({ address: x.address, tree: x.merkleTree })))).toEqual(after);
  });
  it('getValidityProof (hashes): the recorded roots, root indices, leaves and trees; the proof from the prover', async () => {
    for (const [gw, name] of [[bob, SNAP.bobValidityProof], [payer, SNAP.payerValidityProof]] as const) {
      const recorded = snapshot(name);
      const r = await gw.helius.zk.getValidityProof({ hashes: recorded.value.leaves });
      expect(r).toEqual({ context: recorded.context, value: { ...recorded.value, compressedProof: COMPRESSED_PROOF } });
    }
  });
  it('getValidityProof (hashes + newAddressesWithTrees): account and address parts from the recorded proofs', async () => {
    const account = rec.payerProofs().value[0];
    // the recorded mock addresses are not BN254 field elements (no circuit can take them); on the empty V1 address
    // tree every new address has the recorded low element (0 → top) and root
    const empty = snapshot(SNAP.mockNewAddressProofs).value[0];
    const address = { ...empty, address: synthField('helius:new-address') };
    const before = prover.requests.length;
    const r = await payer.helius.zk.getValidityProof({ hashes: [account.hash], newAddressesWithTrees: [{ address: address.address, tree: AMT1 }] });
    expect(r).toEqual({
      context: { slot: 0 },
      value: {
        compressedProof: COMPRESSED_PROOF,
        roots: [account.root, address.root],
        rootIndices: [account.rootSeq % capacityOf(SMT1), address.rootSeq % capacityOf(AMT1)],
        leafIndices: [account.leafIndex, address.lowElementLeafIndex],
        leaves: [account.hash, address.address],
        merkleTrees: [SMT1, AMT1],
      },
    });
    expect(prover.requests.length).toBe(before + 1);
  });
});

describe('helius-sdk zk: signatures, transactions, indexer', () => {
  it('getCompressionSignaturesForOwner: the recorded answer (payer)', async () => {
    expect(await payer.helius.zk.getCompressionSignaturesForOwner({ owner: PAYER })).toEqual(snapshot(SNAP.payerSignatures));
  });
  it('getCompressionSignaturesForTokenOwner: the recorded signatures (bob), whole and paged by cursor', async () => {
    const recorded = snapshot(SNAP.bobTokenSignatures) as unknown[];
    expect(await bob.helius.zk.getCompressionSignaturesForTokenOwner({ owner: BOB })).toEqual({ context: { slot: 0 }, value: { items: recorded, cursor: null } });
    const paged: unknown[] = [];
    let cursor: string | null | undefined = null;
    for (let i = 0; i < 10; i++) {
      const page: Awaited<ReturnType<typeof bob.helius.zk.getCompressionSignaturesForTokenOwner>> = await bob.helius.zk.getCompressionSignaturesForTokenOwner({ owner: BOB, limit: 1, cursor });
      paged.push(...page.value.items);
      cursor = page.value.cursor;
      if (!cursor) break;
    }
    expect(paged).toEqual(recorded);
  });
  it('getLatestCompressionSignatures (no params, as helius-sdk sends {}): the recorded list (bob)', async () => {
    expect(await bob.helius.zk.getLatestCompressionSignatures()).toEqual({ context: { slot: 0 }, value: { items: snapshot(SNAP.latestSignatures), cursor: null } });
    expect((await bob.helius.zk.getLatestCompressionSignatures({ limit: 1 })).value.items).toEqual(snapshot(SNAP.latestSignatures).slice(0, 1));
  });
  it('getLatestNonVotingSignatures: the recorded answer', async () => {
    expect(await nonVoting.helius.zk.getLatestNonVotingSignatures()).toEqual(snapshot(SNAP.nonVoting));
  });
  it('getCompressionSignaturesForAccount: the mint transaction opened the minted account (bob), a transfer spent it', async () => {
    const minted = snapshot(SNAP.mintTransaction).compressionInfo.openedAccounts[0].account.hash as string;
    const r = await bob.helius.zk.getCompressionSignaturesForAccount({ hash: minted });
    expect(r.context).toEqual({ slot: 0 });
    // SYNTHETIC: which recorded transfer spent it (the recordings do not say); the mint transaction is recorded
    expect(r.value.items).toHaveLength(2);
    expect(r.value.items.map((s: SignatureInfo) => s.signature)).toContain(MINT_SIG);
    expect(r.value.items.every((s: SignatureInfo) => s.slot === 0 && s.blockTime === 0)).toBe(true);
  });
  it('getCompressionSignaturesForAddress (SYNTHETIC addressed account)', async () => {
    expect(await nullifier.helius.zk.getCompressionSignaturesForAddress({ address: ADDRESS })).toEqual({
      context: { slot: 0 },
      value: { items: [{ signature: ADDRESS_SIG, slot: 0, blockTime: 0 }], cursor: null },
    });
  });
  it('getTransactionWithCompressionInfo: the recorded answer (Photon writes `compressionInfo`)', async () => {
    const r = await bob.helius.zk.getTransactionWithCompressionInfo({ signature: MINT_SIG });
    expect(r).toEqual(snapshot(SNAP.mintTransaction));
    const opened = (r as unknown as { compressionInfo: { openedAccounts: { optionalTokenData: { owner: string; amount: number } }[] } }).compressionInfo.openedAccounts;
    expect(opened.map((a) => [a.optionalTokenData.owner, a.optionalTokenData.amount])).toEqual([[BOB, 1000]]);
  });
  it('getIndexerSlot and getIndexerHealth', async () => {
    expect(await bob.helius.zk.getIndexerSlot()).toBe(0);
    expect(await nonVoting.helius.zk.getIndexerSlot()).toBe(snapshot(SNAP.nonVoting).context.slot);
    expect(await bob.helius.zk.getIndexerHealth()).toBe('ok');
  });
  it('getSignaturesForAsset (a DAS method in helius-sdk’s zk namespace): an asset with no history (the DAS answer, with its last_indexed_slot)', async () => {
    expect(await bob.helius.zk.getSignaturesForAsset({ id: synth('helius:asset'), page: 1 })).toEqual({ total: 0, limit: 1000, page: 1, items: [], last_indexed_slot: 0 });
  });
  it('an unknown account reads back as value null; a bad request is a thrown RPC error', async () => {
    expect((await bob.helius.zk.getCompressedAccount({ address: null, hash: synthField('helius:none') })).value).toBeNull();
    await expect(bob.helius.zk.getCompressedAccount({ address: null })).rejects.toThrow(/RPC error \(getCompressedAccount\)/);
  });
});
