/**
 * Stand-in ingestion for the photon reference cases until the Light parser and ingest glue exist: each open case
 * is seeded through the ZK store's write API with exactly what Photon's recorded answers show (accounts, token
 * data, the tree nodes behind each recorded proof, the address-tree elements behind each recorded new-address
 * proof, the listed signatures). What the recordings do not show — which recorded transaction created or spent
 * which account, and the intermediate (spent) accounts of the payer and of bob — is SYNTHETIC (`synth(...)`),
 * chosen only so that the lists and balances come out as recorded. Used by harness.test.ts with the harness the
 * lead will switch to real ingestion.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IndexedMerkleTree, initPoseidon } from '../../src/proofs/light/index.js';
import type { TestApp } from '../helpers/app.js';
import { advanceCheckpoint } from '../../src/store/chain.js';
import type { EncodedTransaction, TransactionFetcher } from '../../src/api/zk/transaction-fetcher.js';
import type { PhotonCase } from './harness.js';
import { FIXTURES } from './harness.js';
import { accountRow, AMT1, BOB, indexedTreeRows, MINT, PAYER, proofNodes, seedTrees, SMT1, SNAP, snapshot, synth, txWrite, write } from './seed.js';

/** Bob's live token accounts (JReC… amount 5 at leaf 6, 2R46… amount 100 at leaf 3) and the minted account. */
export function bobAccounts() {
  const items = snapshot(SNAP.bobAccounts).value.items as { account: any; tokenData: any }[];
  const opened = snapshot(SNAP.mintTransaction).compressionInfo.openedAccounts[0];
  return {
    live: items.map((i) => accountRow(i.account, i.tokenData)),
    // The account the mint transaction opened (38eTB…, 1000 to bob); indexed at slot 0 as Photon's e2e test does.
    minted: accountRow(opened.account, opened.optionalTokenData, { slotCreated: 0 }),
  };
}

export async function seedBob(ta: TestApp): Promise<void> {
  const db = ta.t.db;
  await seedTrees(db);
  const { live, minted } = bobAccounts();
  const [jrec, r2r46] = live;
  const sigs = (snapshot(SNAP.bobTokenSignatures) as { signature: string }[]).map((s) => s.signature);
  const [mintSig, s2, s3, s4] = ['64jFxW4xxife8UqpEQyYdA589rzFKWx8rT4vun6soCpWXmDermr588UKX2261YYZ8ZSzcu2NUJY2aCfee64FvTW4', ...sigs.filter((s) => !s.startsWith('64jF'))];
  const proofs = snapshot(SNAP.bobProofs).value as any[];
  const nodes = (await Promise.all(proofs.map((p) => proofNodes(SMT1, p)))).flat();
  await write(db, { accounts: [minted], stateNodes: nodes, ...txWrite(mintSig, 0, [minted.hash], []) });
  // SYNTHETIC pairing of the recorded signatures with the accounts they touched.
  await write(db, { spends: [{ hash: minted.hash, nullifier: null, txHash: null, nullifierQueueIndex: null }], ...txWrite(s2, 0, [], [minted.hash]) });
  await write(db, { accounts: [r2r46], ...txWrite(s3, 0, [r2r46.hash], []) });
  await write(db, { accounts: [jrec], ...txWrite(s4, 0, [jrec.hash], []) });
  // every transaction time 0, as Photon's e2e test indexes them
  await ta.t.db.query('UPDATE zk_transactions SET block_time = 0');
}

export async function seedPayer(ta: TestApp): Promise<void> {
  const db = ta.t.db;
  await seedTrees(db);
  const live = accountRow(snapshot(SNAP.payerAccounts).value.items[0]);
  const proof = snapshot(SNAP.payerProofs).value[0];
  const [a, b, c] = (snapshot(SNAP.payerSignatures).value.items as { signature: string }[]).map((s) => s.signature);
  // SYNTHETIC intermediate payer accounts (spent), so that three transactions touch the payer's accounts.
  const p0 = { ...live, hash: synth('payer:p0'), lamports: 1_000_000_000n, leafIndex: 0, seq: 1 };
  const p1 = { ...live, hash: synth('payer:p1'), lamports: 999_999_000n, leafIndex: 1, seq: 2 };
  const spend = (hash: string) => ({ hash, nullifier: null, txHash: null, nullifierQueueIndex: null });
  await write(db, { accounts: [p0], ...txWrite(c, 0, [p0.hash], []) });
  await write(db, { accounts: [p1], spends: [spend(p0.hash)], ...txWrite(b, 0, [p1.hash], [p0.hash]) });
  await write(db, { accounts: [live], spends: [spend(p1.hash)], stateNodes: await proofNodes(SMT1, proof), ...txWrite(a, 0, [live.hash], [p1.hash]) });
  await ta.t.db.query('UPDATE zk_transactions SET block_time = 0');
}

/** The V1 address tree after the recorded insert (zeroeth → inserted → top), root seq as recorded. */
export async function addressTreeAfterInsert(): Promise<{ tree: IndexedMerkleTree; rootSeq: number }> {
  await initPoseidon();
  const recorded = snapshot(SNAP.nullifierAddressProof).value[0];
  const tree = new IndexedMerkleTree('AddressV1');
  tree.insert(recorded.higherRangeAddress);
  return { tree, rootSeq: recorded.rootSeq };
}

export async function seedNullifier(ta: TestApp): Promise<void> {
  const db = ta.t.db;
  await seedTrees(db);
  const account = accountRow(snapshot(SNAP.nullifierAccounts).value.items[0]);
  const proof = snapshot(SNAP.nullifierProofs).value[0];
  const { tree, rootSeq } = await addressTreeAfterInsert();
  await write(db, { accounts: [account], stateNodes: [...(await proofNodes(SMT1, proof)), ...indexedTreeRows(AMT1, tree, rootSeq).stateNodes], indexedElements: indexedTreeRows(AMT1, tree, rootSeq).indexedElements });
}

export async function seedNonVoting(ta: TestApp): Promise<void> {
  const snap = snapshot(SNAP.nonVoting);
  await seedTrees(ta.t.db, snap.context.slot);
  const items = snap.value.items as { signature: string; slot: number; blockTime: number; error: string | null }[];
  // written in reverse so the order comes from the index, not from insertion
  await write(ta.t.db, {
    transactions: [...items].reverse().map((i) => ({ signature: i.signature, slot: i.slot, blockTime: i.blockTime, usesCompression: false, error: i.error })),
  });
}

/** The seeding of each open snapshot case (the `latest-signatures` and `mint-transaction` cases reuse bob's). */
export const SEEDS: Record<string, (ta: TestApp) => Promise<void>> = {
  'e2e_mint_and_transfer/bob': seedBob,
  'e2e_mint_and_transfer/mint-transaction': seedBob,
  'e2e_mint_and_transfer/latest-signatures-paginated': seedBob,
  'lamport_transfers/payer': seedPayer,
  nullfiier_and_address_queue_transactions: seedNullifier,
  get_latest_non_voting_signatures: seedNonVoting,
  'mock/get_multiple_new_address_proofs': (ta) => seedTrees(ta.t.db),
};

/** A harness ingest that seeds instead of parsing. */
export async function seededIngest(ta: TestApp, c: PhotonCase): Promise<void> {
  const seed = SEEDS[c.id];
  if (!seed) throw new Error(`no seed for case ${c.id}`);
  await seed(ta);
  await advanceCheckpoint(ta.t.db, 0);
}

/** A `getTransaction` fetcher serving the recorded transaction files (Photon's tests pass the cached file too). */
export function fixtureTransactionFetcher(): TransactionFetcher {
  const dir = join(FIXTURES, 'photon-transactions', 'e2e_mint_and_transfer_transactions');
  return async (signature) => {
    try {
      return JSON.parse(readFileSync(join(dir, signature), 'utf8')) as EncodedTransaction;
    } catch {
      return null;
    }
  };
}

export { BOB, MINT, PAYER };
