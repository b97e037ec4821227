/**
 * Seeding the ZK tables through the store's write API with the values Photon's recorded answers show (test
 * fixtures copied verbatim to test/fixtures/photon-snapshots/): accounts, token data, tree nodes rebuilt from the
 * recorded proofs (leaf, siblings and the Poseidon path up to the recorded root), indexed-tree elements, and
 * transactions linked to the accounts they touched. Anything not in a snapshot is synthetic and says so.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { base64ToBytes, bytesToBase58 } from '../../src/core/encoding.js';
import { nodeFromBase58, nodeToBase58 } from '../../src/proofs/hash.js';
import { indexedElementHash, initPoseidon, leafNodeIndex, poseidonPair, proofNodeIndexes, IndexedMerkleTree, SparsePoseidonTree } from '../../src/proofs/light/index.js';
import type { Db } from '../../src/store/db.js';
import { advanceCheckpoint } from '../../src/store/chain.js';
import { parseTreeMetadataConfig, upsertTrees } from '../../src/store/zk/trees.js';
import { emptyZkWrite, type TreeTypeCode, type ZkAccountRow, type ZkStateNodeRow, type ZkWrite } from '../../src/store/zk/types.js';
import { writeZk } from '../../src/store/zk/write.js';

export const SNAP_DIR = join(import.meta.dirname, '..', 'fixtures', 'photon-snapshots');

/** The JSON of a Photon `.snap` file (everything after the insta header). */
export function snapshot(name: string): any {
  const text = readFileSync(join(SNAP_DIR, name.split('/').pop()!), 'utf8');
  return JSON.parse(text.slice(text.indexOf('\n---\n', 4) + 5));
}

export const SNAP = {
  bobAccounts: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-accounts.snap',
  bobAccountsV2: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-accounts-v2.snap',
  bobProofs: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-proofs.snap',
  bobValidityProof: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-validity-proof.snap',
  bobValidityProofV2: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-validity-proof-v2.snap',
  bobTokenSignatures: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-token-signatures.snap',
  bobTokenBalances: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-token-balances.snap',
  latestSignatures: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-latest-signatures.snap',
  mintTransaction: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-mint-transaction.snap',
  mintTransactionV2: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-mint-transaction-v2.snap',
  payerAccounts: 'integration_tests__e2e_tests__lamport_transfers-payer-accounts.snap',
  payerProofs: 'integration_tests__e2e_tests__lamport_transfers-payer-proofs.snap',
  payerValidityProof: 'integration_tests__e2e_tests__lamport_transfers-payer-validity-proof.snap',
  payerSignatures: 'integration_tests__e2e_tests__payer-lamport_transfers-signatures.snap',
  nullifierAccounts: 'integration_tests__e2e_tests__nullfiier_and_address_queue_transactions-accounts.snap',
  nullifierProofs: 'integration_tests__e2e_tests__nullfiier_and_address_queue_transactions-proofs.snap',
  nullifierAddressProof: 'integration_tests__e2e_tests__nullfiier_and_address_queue_transactions-proof-address.snap',
  mockNewAddressProofs: 'integration_tests__mock_tests__get_multiple_new_address_proofs.snap',
  nonVoting: 'integration_tests__e2e_tests__get_lanon_voting_signatures-non-voting-transactions.snap',
} as const;

export const TREES = JSON.parse(readFileSync(join(SNAP_DIR, 'tree-metadata.json'), 'utf8')) as { trees: { tree: string; queue: string; treeTypeCode: number }[] };
export const queueOf = (tree: string) => TREES.trees.find((t) => t.tree === tree)!.queue;
export const treeTypeOf = (tree: string) => TREES.trees.find((t) => t.tree === tree)!.treeTypeCode as TreeTypeCode;

export const SMT1 = 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT';
export const AMT1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
export const AMT2 = 'EzKE84aVTkCUhDHLELqyJaq1Y7UVVmqxXqZjVHwHY3rK';
export const BMT1 = 'bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU';
export const OQ1 = 'oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto';
export const BOB = 'EU57rQxcmFhJ24ApVdUy3y4MxFXcTUN3uiVeWvGgtWXu';
export const MINT = '2U35cKS3Cj2xs5EBdByXYU7LaKAitqjSZc1Jnvu4iPf4';
export const PAYER = 'J6ULJViDpQTRntYTmfkpUZZ71KTVkZNJFSDcQhFCo5Ef';

/** A synthetic 32-byte key / hash (base58), clearly not from any chain. */
export const synth = (label: string): string => bytesToBase58(createHash('sha256').update(`solgate-zk-api-test:${label}`).digest());
/** A synthetic field element (first byte zero), for hashes that go through Poseidon. */
export const synthField = (label: string): string => {
  const b = createHash('sha256').update(`solgate-zk-api-test:${label}`).digest();
  b[0] = 0;
  return bytesToBase58(b);
};
/** A synthetic 64-byte signature (base58). */
export const synthSig = (label: string): string => bytesToBase58(createHash('sha512').update(`solgate-zk-api-test:${label}`).digest());

/** Loads the tree metadata Photon's tests pre-seed, and sets the checkpoint (the indexed slot). */
export async function seedTrees(db: Db, slot = 0): Promise<void> {
  await upsertTrees(db, parseTreeMetadataConfig(TREES));
  await advanceCheckpoint(db, slot);
}

/**
 * The token rows (n), those whose account is still in the output queue (queued), and those whose copy of their
 * account's fields (migration 045) differs from the account row (bad).
 */
export async function tokenRowCopies(db: Db): Promise<{ n: number; queued: number; bad: number }> {
  const { rows } = await db.query<{ n: number; queued: number; bad: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE k.in_output_queue)::int AS queued,
            count(*) FILTER (WHERE (k.account_owner, k.address, k.lamports, k.discriminator, k.data, k.data_hash, k.tree, k.queue,
                                    k.tree_type, k.leaf_index, k.seq, k.slot_created, k.in_output_queue)
                                   IS DISTINCT FROM (a.owner, a.address, a.lamports, a.discriminator, a.data, a.data_hash, a.tree,
                                                     a.queue, a.tree_type, a.leaf_index, a.seq, a.slot_created, a.in_output_queue))::int AS bad
       FROM zk_token_accounts k JOIN zk_accounts a ON a.hash = k.hash`,
  );
  return rows[0];
}

/** Writes one ZkWrite in its own transaction. */
export async function write(db: Db, w: Partial<ZkWrite>): Promise<void> {
  await db.tx((q) => writeZk(q, { ...emptyZkWrite(), ...w }));
}

type SnapAccount = { hash: string; address: string | null; data: { discriminator: number; data: string; dataHash: string } | null; owner: string; lamports: number; tree?: string; leafIndex: number; seq: number | null; slotCreated: number; merkleContext?: { tree: string; queue: string; treeType: number } };
type SnapToken = { mint: string; owner: string; amount: number; delegate: string | null; state: 'initialized' | 'frozen'; tlv: string | null };

/** A stored account row from a snapshot account (V1 or V2 shape), optionally with its token data. */
export function accountRow(a: SnapAccount, t: SnapToken | null = null, over: Partial<ZkAccountRow> = {}): ZkAccountRow {
  const tree = a.tree ?? a.merkleContext!.tree;
  return {
    hash: a.hash,
    address: a.address,
    owner: a.owner,
    lamports: BigInt(a.lamports),
    data: a.data ? { discriminator: BigInt(a.data.discriminator), data: base64ToBytes(a.data.data), dataHash: a.data.dataHash } : null,
    tree,
    queue: queueOf(tree),
    treeType: treeTypeOf(tree),
    leafIndex: a.leafIndex,
    seq: a.seq,
    slotCreated: a.slotCreated,
    inOutputQueue: false,
    token: t ? { mint: t.mint, owner: t.owner, amount: BigInt(t.amount), delegate: t.delegate, state: t.state, tlv: t.tlv ? base64ToBytes(t.tlv) : null } : null,
    ...over,
  };
}

/**
 * The tree nodes a recorded proof shows: the leaf, its siblings and the Poseidon path up to the root, which must
 * come out as the recorded root (so the rebuilt proof is the recorded one). The root carries `rootSeq`.
 */
export async function proofNodes(tree: string, p: { hash: string; leafIndex: number; proof: string[]; root: string; rootSeq: number }): Promise<ZkStateNodeRow[]> {
  await initPoseidon();
  const h = p.proof.length;
  const rows: ZkStateNodeRow[] = [];
  let node = nodeFromBase58(p.hash)!;
  let idx = leafNodeIndex(p.leafIndex, h);
  rows.push({ tree, nodeIdx: idx, leafIdx: p.leafIndex, level: 0, hash: p.hash, seq: p.rootSeq });
  proofNodeIndexes(p.leafIndex, h).forEach((sib, level) => {
    rows.push({ tree, nodeIdx: sib, leafIdx: level === 0 ? sib - 2 ** h : null, level, hash: p.proof[level], seq: p.rootSeq });
    const s = nodeFromBase58(p.proof[level])!;
    node = idx % 2 === 0 ? poseidonPair(node, s) : poseidonPair(s, node);
    idx = Math.floor(idx / 2);
    rows.push({ tree, nodeIdx: idx, leafIdx: null, level: level + 1, hash: nodeToBase58(node), seq: p.rootSeq });
  });
  expect(nodeToBase58(node), `recorded proof of ${p.hash} reaches the recorded root`).toBe(p.root);
  return rows;
}

/** The stored form of an in-memory indexed (address) tree: its elements and every tree node. */
export function indexedTreeRows(tree: string, t: IndexedMerkleTree, seq: number): Pick<ZkWrite, 'indexedElements' | 'stateNodes'> {
  const height = t.height;
  return {
    indexedElements: t.elements().map((e) => ({ tree, leafIndex: e.index, value: toB58(e.value), nextIndex: e.nextIndex, nextValue: toB58(e.nextValue), seq })),
    stateNodes: sparseOf(t).entries().map(([nodeIdx, hash]) => {
      const level = height - Math.floor(Math.log2(nodeIdx));
      return { tree, nodeIdx, leafIdx: level === 0 ? nodeIdx - 2 ** height : null, level, hash: nodeToBase58(hash), seq };
    }),
  };
}

function sparseOf(t: IndexedMerkleTree): SparsePoseidonTree {
  const sparse = new SparsePoseidonTree(t.height);
  for (const e of t.elements()) sparse.setLeaf(e.index, indexedElementHash(e, t.treeType));
  return sparse;
}

function toB58(v: bigint): string {
  return nodeToBase58(Uint8Array.from(Buffer.from(v.toString(16).padStart(64, '0'), 'hex')));
}

/** A compression transaction at `slot` (block time `blockTime`) linked to the accounts it opened and closed. */
export function txWrite(signature: string, slot: number, opened: string[], closed: string[], blockTime = slot): Pick<ZkWrite, 'transactions' | 'accountTransactions'> {
  return {
    transactions: [{ signature, slot, blockTime, usesCompression: true, error: null }],
    accountTransactions: [
      ...opened.map((hash) => ({ hash, signature, slot, opened: true, closed: false })),
      ...closed.map((hash) => ({ hash, signature, slot, opened: false, closed: true })),
    ],
  };
}
