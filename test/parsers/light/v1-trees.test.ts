/**
 * V1 (concurrent state tree, indexed address tree) transactions in the older event form (`PublicTransactionEvent`
 * logged through the noop program, forester `MerkleTreeEvent`s), checked against Photon's recorded API answers for
 * the same transactions (`.snap` files): the accounts it serves, their token data, balances, signature lists, and
 * the tree roots and proofs it computed from the events (rebuilt here with the project's Poseidon trees).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { base58ToBytes } from '../../../src/core/encoding.js';
import type { NormalizedTx } from '../../../src/core/model.js';
import { parseLightTransaction, type LightOutputAccount, type LightStateUpdate } from '../../../src/parsers/light/index.js';
import {
  addressToBigint,
  indexedElementHash,
  initialIndexedElements,
  initPoseidon,
  SparsePoseidonTree,
} from '../../../src/proofs/light/index.js';
import { b58, folder, snapshot, TREES } from './helpers.js';

beforeAll(() => initPoseidon());

/** An item of getMultipleCompressedAccountProofs. */
interface ProofItem {
  proof: string[];
  root: string;
  leafIndex: number;
  hash: string;
  merkleTree: string;
  rootSeq: number;
}
/** An item of getMultipleNewAddressProofs (the fields these tests read). */
interface AddressProofItem {
  root: string;
  merkleTree: string;
  rootSeq: number;
  lowElementLeafIndex: number;
  lowerRangeAddress: string;
  higherRangeAddress: string;
  nextIndex: number;
}
const proofOf = (p: ProofItem) => ({ hash: p.hash, leafIndex: p.leafIndex, proof: p.proof, root: p.root });
/** A V1 account of a by-owner list. */
type AccountItem = Record<string, unknown> & { slotCreated: number };

/** The state of the V1 trees after applying the updates in order (what Photon's tables hold). */
function fold(txs: NormalizedTx[]) {
  const updates = txs.map((tx) => parseLightTransaction(tx, { trees: TREES }));
  const accounts = new Map<string, LightOutputAccount>();
  const spent = new Set<string>();
  const trees = new Map<string, SparsePoseidonTree>();
  const rootSeq = new Map<string, number>();
  const tree = (key: string) => trees.get(key) ?? trees.set(key, new SparsePoseidonTree(26)).get(key)!;
  const seen = (key: string, seq: number) => rootSeq.set(key, Math.max(seq, rootSeq.get(key) ?? 0));
  for (const u of updates) {
    for (const a of u.outputAccounts) {
      accounts.set(a.hash, a);
      tree(a.tree).setLeaf(a.leafIndex, base58ToBytes(a.hash));
      seen(a.tree, a.seq!);
    }
    for (const h of u.inputAccountHashes) spent.add(h);
    for (const n of u.leafNullifications) {
      tree(n.tree).setLeaf(n.leafIndex, new Uint8Array(32));
      seen(n.tree, n.seq);
    }
  }
  const unspent = [...accounts.values()].filter((a) => !spent.has(a.hash));
  /** Signatures of the transactions that created or consumed an account matching `pred` (Photon's signature lists). */
  const signaturesFor = (pred: (a: LightOutputAccount) => boolean) =>
    updates
      .filter((u) => [...u.outputAccounts, ...u.inputAccountHashes.map((h) => accounts.get(h)).filter((a) => a !== undefined)].some(pred))
      .map((u) => u.signature)
      .sort();
  return { updates, accounts, unspent, trees, rootSeq, signaturesFor };
}

/** An output account in Photon's V1 `Account` wire shape (slot aside). */
function wireAccount(a: LightOutputAccount) {
  return {
    hash: a.hash,
    address: a.address,
    data: a.data && { discriminator: Number(a.data.discriminatorValue), data: Buffer.from(a.data.data).toString('base64'), dataHash: a.data.dataHash },
    owner: a.owner,
    lamports: Number(a.lamports),
    tree: a.tree,
    leafIndex: a.leafIndex,
    seq: a.seq,
  };
}

function wireToken(a: LightOutputAccount) {
  const t = a.tokenData!;
  return { mint: t.mint, owner: t.owner, amount: Number(t.amount), delegate: t.delegate, state: t.state, tlv: t.tlv && Buffer.from(t.tlv).toString('base64') };
}

const strip = <T extends { slotCreated?: unknown }>(x: T) => {
  const { slotCreated: _s, ...rest } = x;
  return rest;
};

describe('e2e_mint_and_transfer_transactions (compressed token mint and transfers, V1 state tree)', () => {
  const BOB = 'EU57rQxcmFhJ24ApVdUy3y4MxFXcTUN3uiVeWvGgtWXu';
  const txs = folder('e2e_mint_and_transfer_transactions');

  interface TokenItem {
    account: Record<string, unknown> & { hash: string; slotCreated: number };
    tokenData: Record<string, unknown>;
  }

  it("bob's unspent token accounts and their token data are exactly getCompressedTokenAccountsByOwner's", () => {
    const { unspent } = fold(txs);
    const expected = snapshot<{ value: { items: TokenItem[] } }>('e2e_tests__e2e_mint_and_transfer_transactions-bob-accounts').value.items;
    const bobs = unspent.filter((a) => a.tokenData?.owner === BOB);
    expect(bobs.map((a) => a.hash).sort()).toEqual(expected.map((i) => i.account.hash).sort());
    for (const item of expected) {
      const a = bobs.find((x) => x.hash === item.account.hash)!;
      expect(wireAccount(a)).toEqual(strip(item.account));
      expect(wireToken(a)).toEqual(item.tokenData);
    }
  });

  it('V2 view of the same accounts: merkle context (tree type, tree, queue) and proveByIndex', () => {
    const { accounts } = fold(txs);
    const items = snapshot<{ value: { items: { account: { hash: string; proveByIndex: boolean; merkleContext: { treeType: number; tree: string; queue: string } } }[] } }>(
      'e2e_tests__e2e_mint_and_transfer_transactions-bob-accounts-v2',
    ).value.items;
    expect(items.length).toBe(2);
    for (const { account } of items) {
      const a = accounts.get(account.hash)!;
      expect({ treeType: a.treeType, tree: a.tree, queue: a.queue }).toEqual({
        treeType: account.merkleContext.treeType,
        tree: account.merkleContext.tree,
        queue: account.merkleContext.queue,
      });
      expect(a.proveByIndex).toBe(account.proveByIndex);
    }
  });

  it('the mint transaction opens exactly the account getTransactionWithCompressionInfo(V2) lists, closes none', () => {
    type Info = { compressionInfo: { closedAccounts: unknown[]; openedAccounts: { account: Record<string, unknown> & { slotCreated: number }; optionalTokenData: unknown }[] } };
    const v1 = snapshot<Info>('e2e_tests__e2e_mint_and_transfer_transactions-mint-transaction');
    const v2 = snapshot<Info>('e2e_tests__e2e_mint_and_transfer_transactions-mint-transaction-v2');
    const mint = txs.find((t) => t.signature.startsWith('64jFxW4x'))!;
    const u = parseLightTransaction(mint, { trees: TREES });
    expect(u.inputAccountHashes).toEqual([]);
    expect(v1.compressionInfo.closedAccounts).toEqual([]);
    expect(v2.compressionInfo.closedAccounts).toEqual([]);
    expect(u.outputAccounts.map(wireAccount)).toEqual(v1.compressionInfo.openedAccounts.map((o) => strip(o.account)));
    expect(u.outputAccounts.map(wireToken)).toEqual(v1.compressionInfo.openedAccounts.map((o) => o.optionalTokenData));
    // This method re-parses the transaction at its real slot.
    expect(v1.compressionInfo.openedAccounts.map((o) => o.account.slotCreated)).toEqual([mint.slot]);
    expect(u.outputAccounts.map((a) => a.inOutputQueue)).toEqual(v2.compressionInfo.openedAccounts.map((o) => o.account.proveByIndex));
  });

  it("bob's token balance, token-owner signatures and the latest compression signatures", () => {
    const { unspent, signaturesFor, updates } = fold(txs);
    const balances = snapshot<{ value: { token_balances: { mint: string; balance: number }[] } }>(
      'e2e_tests__e2e_mint_and_transfer_transactions-bob-token-balances',
    ).value.token_balances;
    const bobs = unspent.filter((a) => a.tokenData?.owner === BOB);
    for (const { mint, balance } of balances) {
      expect(bobs.filter((a) => a.tokenData!.mint === mint).reduce((s, a) => s + a.tokenData!.amount, 0n)).toBe(BigInt(balance));
    }
    const sigs = snapshot<{ signature: string }[]>('e2e_tests__e2e_mint_and_transfer_transactions-bob-token-signatures');
    expect(signaturesFor((a) => a.tokenData?.owner === BOB)).toEqual(sigs.map((s) => s.signature).sort());
    const latest = snapshot<{ signature: string }[]>('e2e_tests__e2e_mint_and_transfer_transactions-latest-signatures');
    expect(updates.filter((u) => u.transaction?.usesCompression).map((u) => u.signature).sort()).toEqual(latest.map((s) => s.signature).sort());
  });

  it('the state tree rebuilt from the appended leaves has the root, rootSeq and proofs Photon served', () => {
    const { trees, rootSeq } = fold(txs);
    const proofs = snapshot<{ value: ProofItem[] }>(
      'e2e_tests__e2e_mint_and_transfer_transactions-bob-proofs',
    ).value;
    for (const p of proofs) {
      const t = trees.get(p.merkleTree)!;
      expect(b58(t.root())).toBe(p.root);
      expect(rootSeq.get(p.merkleTree)).toBe(p.rootSeq);
      expect(t.proof(p.leafIndex)).toEqual(proofOf(p));
    }
  });
});

describe('lamport_transfers (compressed SOL, V1 state tree)', () => {
  const PAYER = 'J6ULJViDpQTRntYTmfkpUZZ71KTVkZNJFSDcQhFCo5Ef';
  const txs = folder('lamport_transfers');

  it("the payer's unspent accounts, balance and signatures are Photon's", () => {
    const { unspent, signaturesFor } = fold(txs);
    const expected = snapshot<{ value: { items: AccountItem[] } }>('e2e_tests__lamport_transfers-payer-accounts').value.items;
    expect(unspent.filter((a) => a.owner === PAYER).map(wireAccount)).toEqual(expected.map(strip));
    // cases.json: getCompressedBalanceByOwner → 999998000 (derived upstream as the sum of the accounts' lamports).
    expect(unspent.filter((a) => a.owner === PAYER).reduce((s, a) => s + a.lamports, 0n)).toBe(999998000n);
    const sigs = snapshot<{ value: { items: { signature: string }[] } }>('e2e_tests__payer-lamport_transfers-signatures').value.items;
    expect(signaturesFor((a) => a.owner === PAYER)).toEqual(sigs.map((s) => s.signature).sort());
  });

  it('root, rootSeq and proof of the payer account', () => {
    const { trees, rootSeq } = fold(txs);
    const [p] = snapshot<{ value: ProofItem[] }>(
      'e2e_tests__lamport_transfers-payer-proofs',
    ).value;
    expect(rootSeq.get(p.merkleTree)).toBe(p.rootSeq);
    expect(trees.get(p.merkleTree)!.proof(p.leafIndex)).toEqual(proofOf(p));
  });
});

describe('nullfiier_and_address_queue_transactions (forester V1 nullification and address tree update)', () => {
  const OWNER = 'Ecs89dz8NsNoSxyUtp54G2HPbmvJr8qZnxnWUqiLT92r';
  const txs = folder('nullfiier_and_address_queue_transactions');

  it("the owner's unspent account, and the state tree after the forester nullified a leaf", () => {
    const { unspent, trees, rootSeq, updates } = fold(txs);
    const expected = snapshot<{ value: { items: AccountItem[] } }>(
      'e2e_tests__nullfiier_and_address_queue_transactions-accounts',
    ).value.items;
    expect(unspent.filter((a) => a.owner === OWNER).map(wireAccount)).toEqual(expected.map(strip));
    expect(updates.flatMap((u) => u.leafNullifications)).toHaveLength(1);
    const [p] = snapshot<{ value: ProofItem[] }>(
      'e2e_tests__nullfiier_and_address_queue_transactions-proofs',
    ).value;
    expect(rootSeq.get(p.merkleTree)).toBe(p.rootSeq);
    expect(trees.get(p.merkleTree)!.proof(p.leafIndex)).toEqual(proofOf(p));
  });

  it('the address tree update: leaf values and hashes, the root and rootSeq of the non-inclusion proof', () => {
    const updates: LightStateUpdate[] = txs.map((tx) => parseLightTransaction(tx, { trees: TREES }));
    const leaves = updates.flatMap((u) => u.indexedTreeUpdates);
    const [proof] = snapshot<{ value: AddressProofItem[] }>(
      'e2e_tests__nullfiier_and_address_queue_transactions-proof-address',
    ).value;
    expect(leaves.length).toBe(2);
    // Each logged leaf hash is Poseidon(value, nextIndex, nextValue) of the logged element.
    for (const l of leaves) {
      expect(l.tree).toBe(proof.merkleTree);
      const e = {
        index: l.leaf.index,
        value: addressToBigint(l.leaf.value),
        nextIndex: l.leaf.nextIndex,
        nextValue: addressToBigint(l.leaf.nextValue),
      };
      expect(b58(indexedElementHash(e, 'AddressV1'))).toBe(l.hash);
    }
    // The low element of the queried address is the updated leaf 0, pointing at the inserted value.
    const low = leaves.find((l) => l.leaf.index === proof.lowElementLeafIndex)!;
    expect({ value: low.leaf.value, nextIndex: low.leaf.nextIndex, nextValue: low.leaf.nextValue }).toEqual({
      value: proof.lowerRangeAddress,
      nextIndex: proof.nextIndex,
      nextValue: proof.higherRangeAddress,
    });
    // The initial tree (zeroth and top elements) with the logged leaves written over it has Photon's root.
    const tree = new SparsePoseidonTree(26);
    for (const e of initialIndexedElements('AddressV1')) tree.setLeaf(e.index, indexedElementHash(e, 'AddressV1'));
    for (const l of leaves) tree.setLeaf(l.leaf.index, base58ToBytes(l.hash));
    expect(b58(tree.root())).toBe(proof.root);
    expect(Math.max(...leaves.map((l) => l.seq))).toBe(proof.rootSeq);
  });
});

describe('transaction_with_tree_rollover_fee (devnet)', () => {
  it('parses the transaction that also pays a rollover fee, and opens at least one account in smt1/smt2', () => {
    const [tx] = folder('transaction_with_tree_rollover_fee');
    const u = parseLightTransaction(tx, { trees: TREES });
    expect(u.outputAccounts.length).toBeGreaterThanOrEqual(1);
    for (const a of u.outputAccounts) expect(['smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT', 'smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho']).toContain(a.tree);
  });
});
