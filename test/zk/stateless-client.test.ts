/**
 * Light's own client, `@lightprotocol/stateless.js` (V2 mode, its default), against the gateway on a loopback port:
 * its superstruct schemas accept every answer and it reads back the seeded recorded values (bob's token accounts,
 * the payer's lamports, proofs, signatures, new-address proofs, a validity proof through the local fake prover).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { PublicKey } from '@solana/web3.js';
import { bn, createRpc, type Rpc } from '@lightprotocol/stateless.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createProverClient } from '../../src/api/zk/prover.js';
import { base58ToBytes } from '../../src/core/encoding.js';
import { COMPRESSED_PROOF, startFakeProver, type FakeProver } from './fake-prover.js';
import { fixtureTransactionFetcher, seedBob, seedPayer } from './seeded-cases.js';
import { BOB, MINT, PAYER, SNAP, snapshot, synthField } from './seed.js';

let ta: TestApp;
let rpc: Rpc;
let prover: FakeProver;
const hashBn = (h: string) => bn(base58ToBytes(h));

beforeAll(async () => {
  prover = await startFakeProver();
  ta = await createTestApp({ zk: { prover: createProverClient(prover.url), getTransaction: fixtureTransactionFetcher() } });
  await seedBob(ta);
  await seedPayer(ta);
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(ta.app.server.address() as AddressInfo).port}/?api-key=${ta.key}`;
  rpc = createRpc(url, url, prover.url);
});
afterAll(async () => {
  await ta?.close();
  await prover?.close();
});

describe('stateless.js against the gateway', () => {
  it('accounts, balances and token balances', async () => {
    const payer = snapshot(SNAP.payerAccounts).value.items[0];
    const accounts = await rpc.getCompressedAccountsByOwner(new PublicKey(PAYER));
    expect(accounts.items.map((a) => a.hash.toString())).toEqual([hashBn(payer.hash).toString()]);
    expect(accounts.items[0].lamports.toString()).toBe(String(payer.lamports));
    expect((await rpc.getCompressedBalanceByOwner(new PublicKey(PAYER))).toString()).toBe('999998000');
    const balances = await rpc.getCompressedTokenBalancesByOwnerV2(new PublicKey(BOB));
    expect(balances.value.items.map((b) => [b.mint.toBase58(), b.balance.toString()])).toEqual([[MINT, '105']]);
    const tokens = await rpc.getCompressedTokenAccountsByOwner(new PublicKey(BOB));
    expect(tokens.items.map((t) => t.parsed.amount.toString()).sort()).toEqual(['100', '5']);
    const account = await rpc.getCompressedAccount(undefined, hashBn(payer.hash));
    expect(account?.lamports.toString()).toBe(String(payer.lamports));
  });
  it('proofs and new-address proofs', async () => {
    const recorded = snapshot(SNAP.bobProofs).value as { hash: string; root: string; leafIndex: number }[];
    const proofs = await rpc.getMultipleCompressedAccountProofs(recorded.map((p) => hashBn(p.hash)));
    expect(proofs.map((p) => [p.leafIndex, p.rootIndex, p.proveByIndex])).toEqual([[6, 7, false], [3, 7, false]]);
    // the V1 address tree is empty here: the initialised tree's proof (root seq 3, low element 0 → top element)
    const [addr] = await rpc.getMultipleNewAddressProofs([hashBn(synthField('client:new-address'))]);
    expect(addr.rootIndex).toBe(3);
    expect(addr.nextIndex.toNumber()).toBe(1);
    expect(addr.root.toString()).toBe(hashBn(snapshot(SNAP.mockNewAddressProofs).value[0].root).toString());
  });
  it('a validity proof through the prover', async () => {
    const recorded = snapshot(SNAP.bobProofs).value as { hash: string; root: string }[];
    const proof = await rpc.getValidityProofV0(recorded.map((p) => ({ hash: hashBn(p.hash), tree: new PublicKey('smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT'), queue: new PublicKey('nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148') })));
    expect(proof.compressedProof).toEqual(COMPRESSED_PROOF);
    expect(proof.rootIndices).toEqual([7, 7]);
    expect(proof.leafIndices).toEqual([6, 3]);
  });
  it('signatures, indexer, transactions', async () => {
    const sigs = await rpc.getCompressionSignaturesForOwner(new PublicKey(PAYER));
    expect(sigs.items.map((s) => s.signature)).toEqual(snapshot(SNAP.payerSignatures).value.items.map((s: { signature: string }) => s.signature));
    expect((await rpc.getCompressionSignaturesForTokenOwner(new PublicKey(BOB))).items).toHaveLength(4);
    expect((await rpc.getLatestCompressionSignatures()).value.items.length).toBe(7);
    expect(await rpc.getIndexerSlot()).toBe(0);
    expect(await rpc.getIndexerHealth()).toBe('ok');
    const tx = await rpc.getTransactionWithCompressionInfo('64jFxW4xxife8UqpEQyYdA589rzFKWx8rT4vun6soCpWXmDermr588UKX2261YYZ8ZSzcu2NUJY2aCfee64FvTW4');
    expect(tx?.compressionInfo.openedAccounts).toHaveLength(1);
    expect(tx?.compressionInfo.openedAccounts[0].maybeTokenData?.amount.toString()).toBe('1000');
  });
  it('an unknown account reads back as null', async () => {
    expect(await rpc.getCompressedAccount(undefined, hashBn(synthField('none')))).toBeNull();
  });
});
