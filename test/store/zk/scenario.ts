/**
 * Test data for the ZK store: a short history of eight "transactions", each a ZkWrite, covering V1 creations and
 * spends (plain and token accounts), V2 output/input queues with batch append and nullify events, a V2 address
 * queue with an address append, indexed (address) tree elements, state-tree nodes with seqs, and links.
 *
 * Real values (from Photon's recorded outputs copied verbatim to test/fixtures/photon-snapshots/): the hashes, data,
 * data hashes, owners, mints, amounts, trees, leaf indexes and seqs of bob's token accounts and of the payer's
 * lamport account, and the address-tree elements behind the new-address proof. Everything else — which transaction
 * does what, other accounts, signatures, node hashes, the V2 history — is SYNTHETIC (`synth(label)`: SHA-256 of a
 * label), chosen only to exercise the store; none of it is parser output.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { base58ToBytes, base64ToBytes, bytesToBase58 } from '../../../src/core/encoding.js';
import { emptyZkWrite, type ZkAccountRow, type ZkTokenData, type ZkWrite } from '../../../src/store/zk/types.js';

export const SNAP_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'photon-snapshots');

/** The JSON of a Photon snapshot file (everything after the insta header). */
export function snapshot(name: string): any {
  const text = readFileSync(join(SNAP_DIR, name), 'utf8');
  const body = text.slice(text.indexOf('\n---\n', 4) + 5);
  return JSON.parse(body);
}

/** A synthetic 32-byte key / hash (base58), clearly not from any chain. */
export const synth = (label: string): string => bytesToBase58(createHash('sha256').update(`solgate-zk-test:${label}`).digest());
/** A synthetic 64-byte signature (base58). */
export const synthSig = (label: string): string => bytesToBase58(createHash('sha512').update(`solgate-zk-test:${label}`).digest());
/** A synthetic 32-byte field element with a zero first byte (base58), for indexed-tree values. */
export const synthValue = (label: string): string => {
  const b = createHash('sha256').update(`solgate-zk-test:${label}`).digest();
  b[0] = 0;
  return bytesToBase58(b);
};
export const synthBytes = (label: string, n = 40): Uint8Array => {
  const out = new Uint8Array(n);
  const h = createHash('sha256').update(`solgate-zk-test:${label}`).digest();
  for (let i = 0; i < n; i++) out[i] = h[i % 32];
  return out;
};

// ---- real values
const bob = snapshot('integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-accounts.snap');
const mintTx = snapshot('integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-mint-transaction.snap');
const payer = snapshot('integration_tests__e2e_tests__lamport_transfers-payer-accounts.snap');
const addressProof = snapshot('integration_tests__e2e_tests__nullfiier_and_address_queue_transactions-proof-address.snap');

export const TOKEN_PROGRAM = 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m';
export const BOB = 'EU57rQxcmFhJ24ApVdUy3y4MxFXcTUN3uiVeWvGgtWXu';
export const MINT = '2U35cKS3Cj2xs5EBdByXYU7LaKAitqjSZc1Jnvu4iPf4';
export const PAYER = 'J6ULJViDpQTRntYTmfkpUZZ71KTVkZNJFSDcQhFCo5Ef';
export const SMT1 = 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT';
export const NFQ1 = 'nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148';
export const SMT2 = 'smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho';
export const NFQ2 = 'nfq2hgS7NYemXsFaFUCe3EMXSDSfnZnAe27jC6aPP1X';
export const BMT1 = 'bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU';
export const OQ1 = 'oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto';
export const AMT1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
export const AMT2 = 'EzKE84aVTkCUhDHLELqyJaq1Y7UVVmqxXqZjVHwHY3rK';

type SnapAccount = { hash: string; address: string | null; data: { discriminator: number; data: string; dataHash: string } | null; owner: string; lamports: number; tree: string; leafIndex: number; seq: number; slotCreated: number };
type SnapToken = { mint: string; owner: string; amount: number; delegate: string | null; state: 'initialized' | 'frozen'; tlv: string | null };

/** A V1 account row from a Photon snapshot account (+ token data). */
function fromSnapshot(a: SnapAccount, t: SnapToken | null): ZkAccountRow {
  return {
    hash: a.hash,
    address: a.address,
    owner: a.owner,
    lamports: BigInt(a.lamports),
    data: a.data ? { discriminator: BigInt(a.data.discriminator), data: base64ToBytes(a.data.data), dataHash: a.data.dataHash } : null,
    tree: a.tree,
    queue: a.tree === SMT1 ? NFQ1 : NFQ2,
    treeType: 1,
    leafIndex: a.leafIndex,
    seq: a.seq,
    slotCreated: a.slotCreated,
    inOutputQueue: false,
    token: t ? { mint: t.mint, owner: t.owner, amount: BigInt(t.amount), delegate: t.delegate, state: t.state, tlv: t.tlv ? base64ToBytes(t.tlv) : null } : null,
  };
}

/** Bob's two live token accounts (JReC… amount 5, 2R46… amount 100), in the snapshot's order. */
export const BOB_LIVE: ZkAccountRow[] = bob.value.items.map((i: { account: SnapAccount; tokenData: SnapToken }) => fromSnapshot(i.account, i.tokenData));
/** The account the mint transaction opened (38eTB…, bob, 1000). */
export const MINTED: ZkAccountRow = fromSnapshot(mintTx.compressionInfo.openedAccounts[0].account, mintTx.compressionInfo.openedAccounts[0].optionalTokenData);
/** The payer's live lamport account (2veKU…, 999998000), placed on smt2 here (synthetic placement). */
export const PAYER_LIVE: ZkAccountRow = { ...fromSnapshot(payer.value.items[0], null), tree: SMT2, queue: NFQ2 };
/** The new-address proof the indexed-tree elements below must answer. */
export const ADDRESS_PROOF = addressProof.value[0] as { address: string; lowerRangeAddress: string; higherRangeAddress: string; nextIndex: number; lowElementLeafIndex: number; merkleTree: string };

// ---- synthetic accounts
function synthAccount(label: string, o: Partial<ZkAccountRow> & { owner: string; tree: string; leafIndex: number }): ZkAccountRow {
  return {
    hash: synth(`hash:${label}`),
    address: null,
    lamports: 0n,
    data: null,
    queue: o.tree === SMT1 ? NFQ1 : o.tree === SMT2 ? NFQ2 : OQ1,
    treeType: o.tree === BMT1 ? 3 : 1,
    seq: null,
    slotCreated: 0,
    inOutputQueue: false,
    token: null,
    ...o,
  };
}
function synthToken(label: string, owner: string, amount: bigint, leafIndex: number, seq: number, extra: Partial<ZkTokenData> = {}): ZkAccountRow {
  return synthAccount(label, {
    owner: TOKEN_PROGRAM,
    tree: SMT1,
    leafIndex,
    seq,
    data: { discriminator: 2n, data: synthBytes(`data:${label}`, 75), dataHash: synth(`datahash:${label}`) },
    token: { mint: MINT, owner, amount, delegate: null, state: 'initialized', tlv: null, ...extra },
  });
}

export const ALICE = synth('owner:alice');
export const DAVE = synth('delegate:dave');
export const ERIN = synth('owner:erin');
export const CAROL = synth('owner:carol');
export const RECEIVER = synth('owner:receiver');
export const ADDRESS_Q = synth('address:q');

export const X1 = synthToken('x1', BOB, 900n, 1, 2);
export const Y1 = synthToken('y1', ALICE, 100n, 2, 3, { delegate: DAVE, state: 'frozen', tlv: synthBytes('tlv:y1', 12) });
export const X2 = synthToken('x2', BOB, 800n, 4, 5);
export const X3 = synthToken('x3', ERIN, 795n, 5, 6);
export const PA0 = synthAccount('pa0', { owner: PAYER, tree: SMT2, leafIndex: 0, seq: 1, lamports: 1_000_000_000n });
export const Q = synthAccount('q', {
  owner: RECEIVER,
  tree: SMT2,
  leafIndex: 4,
  seq: 5,
  lamports: 2000n,
  address: ADDRESS_Q,
  data: { discriminator: 7n, data: synthBytes('data:q', 24), dataHash: synth('datahash:q') },
});
export const V2A = synthAccount('v2a', { owner: CAROL, tree: BMT1, leafIndex: 0, lamports: 10n, inOutputQueue: true, treeType: 3 });
export const V2B = synthAccount('v2b', { owner: CAROL, tree: BMT1, leafIndex: 1, lamports: 20n, inOutputQueue: true, treeType: 3 });
export const V2C = synthAccount('v2c', { owner: CAROL, tree: BMT1, leafIndex: 2, lamports: 30n, inOutputQueue: true, treeType: 3 });
export const [JREC, R2R46] = BOB_LIVE;

// address-tree values: the elements behind the recorded new-address proof (amt1), and synthetic V2 queue entries.
export const ZERO_VALUE = ADDRESS_PROOF.lowerRangeAddress; // 32 zero bytes
export const INSERTED_VALUE = ADDRESS_PROOF.higherRangeAddress; // the address the recorded transactions inserted
export const TOP_VALUE = '14uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofL'; // 0x00ff…ff: the V1 tree's top element (mock-test proof)
export const V2_ADDRESSES = ['a0', 'a1', 'a2'].map((l) => synthValue(`v2-address:${l}`));

/** The V2 address tree after appending the first two queued addresses (leaf 1 = a0, leaf 2 = a1), linked in value order. */
function v2Elements() {
  const [a0, a1] = V2_ADDRESSES;
  const [lo, hi] = Buffer.compare(Buffer.from(base58ToBytes(a0)), Buffer.from(base58ToBytes(a1))) < 0 ? [a0, a1] : [a1, a0];
  const leafOf = (v: string) => (v === a0 ? 1 : 2);
  return [
    { tree: AMT2, leafIndex: 0, value: ZERO_VALUE, nextIndex: leafOf(lo), nextValue: lo, seq: 1 },
    { tree: AMT2, leafIndex: leafOf(lo), value: lo, nextIndex: leafOf(hi), nextValue: hi, seq: 1 },
    { tree: AMT2, leafIndex: leafOf(hi), value: hi, nextIndex: 0, nextValue: ZERO_VALUE, seq: 1 },
  ];
}

const node = (tree: string, nodeIdx: number, seq: number, level = 0, leafIdx: number | null = null) => ({
  tree,
  nodeIdx,
  leafIdx,
  level,
  hash: synth(`node:${tree}:${nodeIdx}:${seq}`),
  seq,
});
const LEAF26 = 2 ** 26;
const sig = (n: number) => synthSig(`tx:${n}`);
export const SIGS = [1, 2, 3, 4, 5, 6, 7, 8].map(sig);

const tx = (n: number, slot: number): Pick<ZkWrite, 'transactions'> => ({
  transactions: [{ signature: sig(n), slot, blockTime: 1_700_000_000 + slot, usesCompression: true, error: null }],
});
const links = (n: number, slot: number, opened: ZkAccountRow[], closed: ZkAccountRow[]) =>
  [...opened.map((a) => ({ hash: a.hash, signature: sig(n), slot, opened: true, closed: false })),
   ...closed.map((a) => ({ hash: a.hash, signature: sig(n), slot, opened: false, closed: true }))];
const v1spend = (a: ZkAccountRow) => ({ hash: a.hash, nullifier: null, txHash: null, nullifierQueueIndex: null });

/** The eight batches, in chain order (slots 100…106; transactions 3 and 4 share slot 102). */
export function history(): ZkWrite[] {
  return [
    {
      ...emptyZkWrite(), ...tx(1, 100),
      accounts: [MINTED, PA0],
      stateNodes: [node(SMT1, LEAF26 + 0, 1, 0, 0), node(SMT1, 1, 1, 26), node(SMT2, LEAF26 + 0, 1, 0, 0), node(SMT2, 1, 1, 26)],
      // the empty V1 address tree: zeroeth element → top element (seq 0), the top element (seq 1)
      indexedElements: [
        { tree: AMT1, leafIndex: 0, value: ZERO_VALUE, nextIndex: 1, nextValue: TOP_VALUE, seq: 0 },
        { tree: AMT1, leafIndex: 1, value: TOP_VALUE, nextIndex: 0, nextValue: ZERO_VALUE, seq: 1 },
      ],
      accountTransactions: links(1, 100, [MINTED, PA0], []),
    },
    {
      ...emptyZkWrite(), ...tx(2, 101),
      accounts: [X1, Y1],
      spends: [v1spend(MINTED)],
      // two updates of the root in one transaction: the higher seq must win
      stateNodes: [node(SMT1, LEAF26 + 1, 2, 0, 1), node(SMT1, 1, 2, 26), node(SMT1, LEAF26 + 2, 3, 0, 2), node(SMT1, 1, 3, 26)],
      accountTransactions: links(2, 101, [X1, Y1], [MINTED]),
    },
    {
      ...emptyZkWrite(), ...tx(3, 102),
      accounts: [R2R46, X2],
      spends: [v1spend(X1)],
      stateNodes: [node(SMT1, LEAF26 + 3, 4, 0, 3), node(SMT1, LEAF26 + 4, 5, 0, 4), node(SMT1, 1, 5, 26)],
      accountTransactions: links(3, 102, [R2R46, X2], [X1]),
    },
    {
      ...emptyZkWrite(), ...tx(4, 102),
      // the spend is listed before the creations it sits next to (order inside a batch must not matter)
      spends: [v1spend(X2)],
      accounts: [X3, JREC],
      stateNodes: [node(SMT1, LEAF26 + 5, 6, 0, 5), node(SMT1, LEAF26 + 6, 7, 0, 6), node(SMT1, 1, 7, 26)],
      accountTransactions: links(4, 102, [X3, JREC], [X2]),
    },
    {
      ...emptyZkWrite(), ...tx(5, 103),
      accounts: [PAYER_LIVE, Q],
      spends: [v1spend(PA0)],
      stateNodes: [node(SMT2, LEAF26 + 3, 4, 0, 3), node(SMT2, LEAF26 + 4, 5, 0, 4), node(SMT2, 1, 5, 26)],
      // the address insert behind the recorded proof: zeroeth → inserted → top
      indexedElements: [
        { tree: AMT1, leafIndex: 0, value: ZERO_VALUE, nextIndex: 2, nextValue: INSERTED_VALUE, seq: 2 },
        { tree: AMT1, leafIndex: 2, value: INSERTED_VALUE, nextIndex: 1, nextValue: TOP_VALUE, seq: 2 },
      ],
      accountTransactions: links(5, 103, [PAYER_LIVE, Q], [PA0]),
    },
    {
      ...emptyZkWrite(), ...tx(6, 104),
      accounts: [V2A, V2B, V2C],
      addressQueue: V2_ADDRESSES.map((address, queueIndex) => ({ tree: AMT2, address, queueIndex })),
      accountTransactions: links(6, 104, [V2A, V2B, V2C], []),
    },
    {
      ...emptyZkWrite(), ...tx(7, 105),
      spends: [{ hash: V2A.hash, nullifier: synth('nullifier:v2a'), txHash: synth('txhash:7'), nullifierQueueIndex: 0 }],
      batchEvents: [
        { tree: BMT1, kind: 'append', seq: 1, oldNextIndex: 0, newNextIndex: 2, slot: 105, signature: sig(7) },
        { tree: AMT2, kind: 'address_append', seq: 1, oldNextIndex: 1, newNextIndex: 3, slot: 105, signature: sig(7) },
      ],
      stateNodes: [node(BMT1, 2 ** 32 + 0, 1, 0, 0), node(BMT1, 2 ** 32 + 1, 1, 0, 1), node(BMT1, 1, 1, 32)],
      indexedElements: v2Elements(),
      accountTransactions: links(7, 105, [], [V2A]),
    },
    {
      ...emptyZkWrite(), ...tx(8, 106),
      spends: [{ hash: V2C.hash, nullifier: synth('nullifier:v2c'), txHash: synth('txhash:8'), nullifierQueueIndex: 1 }],
      batchEvents: [{ tree: BMT1, kind: 'nullify', seq: 2, oldNextIndex: 0, newNextIndex: 1, slot: 106, signature: sig(8) }],
      stateNodes: [node(BMT1, 2 ** 32 + 0, 2, 0, 0), node(BMT1, 1, 2, 32)],
      accountTransactions: links(8, 106, [], [V2C]),
    },
  ];
}
