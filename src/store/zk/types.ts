/**
 * Row types of the ZK Compression tables (migration 009), independent of the Light parser: the ingest glue maps a
 * parsed state update onto {@link ZkWrite}; the read functions return the `Zk*` stored shapes below.
 *
 * Conventions: public keys, hashes and signatures are base58 strings; account data, TLV and similar blobs are
 * bytes; u64 amounts (lamports, token amounts, discriminators) are bigint; slots, leaf indexes, seqs and queue
 * indexes are numbers (all far below 2^53).
 */

/** Light `TreeType` codes (merkleContext.treeType on the wire). */
export const TREE_TYPE = { StateV1: 1, AddressV1: 2, StateV2: 3, AddressV2: 4 } as const;
export type TreeTypeCode = (typeof TREE_TYPE)[keyof typeof TREE_TYPE];

/** A Merkle tree the indexer knows (config file or discovered from chain). */
export interface ZkTreeRow {
  tree: string;
  queue: string;
  treeType: TreeTypeCode;
  height: number;
  rootHistoryCapacity: number;
  /** The tree account's owner (program), when known. */
  owner: string | null;
  source: 'config' | 'chain';
}

/** Compressed token data (the token program's account data, decoded by the parser). */
export interface ZkTokenData {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: 'initialized' | 'frozen';
  tlv: Uint8Array | null;
}

/** An output account: a compressed account created by a transaction. */
export interface ZkAccountRow {
  hash: string;
  address: string | null;
  owner: string;
  lamports: bigint;
  /** Null when the account carries no data (discriminator, data and dataHash come together). */
  data: { discriminator: bigint; data: Uint8Array; dataHash: string } | null;
  tree: string;
  queue: string;
  treeType: TreeTypeCode;
  /** V1: the leaf index; V2: the output-queue index (the leaf index the account will get). */
  leafIndex: number;
  /** The change-log seq of the V1 append; null for V2 outputs. */
  seq: number | null;
  slotCreated: number;
  /** True for V2 (batched) outputs: the account waits in its tree's output queue until a batch append. */
  inOutputQueue: boolean;
  /** Present when the account is a compressed token account. */
  token: ZkTokenData | null;
}

/**
 * An input account: a compressed account consumed (nullified) by a transaction. The V2 fields come from the
 * batched input queue (BatchNullifyContext) and are null for V1 trees.
 */
export interface ZkSpendRow {
  hash: string;
  nullifier: string | null;
  txHash: string | null;
  nullifierQueueIndex: number | null;
}

/** A state-tree node (leaf or inner) as computed after an update; the newest seq per node is kept. */
export interface ZkStateNodeRow {
  tree: string;
  /** Heap index: root = 1, leaves at 2^(height) + leafIndex where height = levels below the root. */
  nodeIdx: number;
  /** Set on leaves (level 0). */
  leafIdx: number | null;
  level: number;
  hash: string;
  seq: number | null;
}

/** An indexed (address) tree element after an update; the newest seq per (tree, leafIndex) is kept. */
export interface ZkIndexedElementRow {
  tree: string;
  leafIndex: number;
  /** 32-byte big-endian field element (base58 of the 32 bytes, as Photon's Hash). */
  value: string;
  nextIndex: number;
  nextValue: string;
  seq: number | null;
}

/** An address inserted into a V2 address tree's queue. */
export interface ZkAddressQueueRow {
  tree: string;
  address: string;
  queueIndex: number;
}

/** A V2 batch root update (Light BatchEvent). */
export interface ZkBatchEventRow {
  tree: string;
  kind: 'append' | 'nullify' | 'address_append';
  seq: number;
  oldNextIndex: number;
  newNextIndex: number;
  slot: number;
  signature: string | null;
}

/** A transaction (compression or not). `error` is the transaction error as text, null on success. */
export interface ZkTransactionRow {
  signature: string;
  slot: number;
  blockTime: number | null;
  usesCompression: boolean;
  error: string | null;
}

/** A transaction touched an account hash: opened = created it, closed = consumed it. */
export interface ZkAccountTransactionRow {
  hash: string;
  signature: string;
  slot: number;
  opened: boolean;
  closed: boolean;
}

/** Everything one block (or batch of blocks / recorded transactions) writes to the ZK tables. */
export interface ZkWrite {
  accounts: ZkAccountRow[];
  spends: ZkSpendRow[];
  stateNodes: ZkStateNodeRow[];
  indexedElements: ZkIndexedElementRow[];
  addressQueue: ZkAddressQueueRow[];
  batchEvents: ZkBatchEventRow[];
  transactions: ZkTransactionRow[];
  accountTransactions: ZkAccountTransactionRow[];
}

/** An empty ZkWrite. */
export const emptyZkWrite = (): ZkWrite => ({
  accounts: [],
  spends: [],
  stateNodes: [],
  indexedElements: [],
  addressQueue: [],
  batchEvents: [],
  transactions: [],
  accountTransactions: [],
});

/** Concatenates writes (the writer dedupes and orders the statements, so merging is the same as applying each). */
export function mergeZkWrites(writes: readonly ZkWrite[]): ZkWrite {
  const out = emptyZkWrite();
  for (const w of writes) for (const k of Object.keys(out) as (keyof ZkWrite)[]) (out[k] as unknown[]).push(...w[k]);
  return out;
}

// ---- stored shapes (reads) ----

/** A stored compressed account (creation fields, spend state and V2 queue state). */
export interface ZkAccount {
  hash: string;
  address: string | null;
  owner: string;
  lamports: bigint;
  data: { discriminator: bigint; data: Uint8Array; dataHash: string } | null;
  tree: string;
  queue: string;
  treeType: TreeTypeCode;
  leafIndex: number;
  seq: number | null;
  slotCreated: number;
  spent: boolean;
  nullifier: string | null;
  txHash: string | null;
  nullifierQueueIndex: number | null;
  inOutputQueue: boolean;
  nullifiedInTree: boolean;
}

/** A compressed token account: the account and its token data. */
export interface ZkTokenAccount {
  account: ZkAccount;
  token: ZkTokenData;
}

/** One page of a keyset-paged list; `cursor` is null when the page holds fewer than `limit` items (Photon). */
export interface ZkPage<T> {
  items: T[];
  cursor: string | null;
  /**
   * The indexed slot read by the page's own statement (same snapshot as the rows; null before anything was
   * indexed); absent when the page had no rows to carry it.
   */
  slot?: number | null;
}

/** A signature in a compression signature list. */
export interface ZkSignatureInfo {
  signature: string;
  slot: number;
  blockTime: number | null;
  error: string | null;
}

/** A stored state-tree node. */
export interface ZkStateNode {
  tree: string;
  nodeIdx: number;
  leafIdx: number | null;
  level: number;
  hash: string;
  seq: number | null;
}

/** A stored indexed-tree element. */
export interface ZkIndexedElement {
  tree: string;
  leafIndex: number;
  value: string;
  nextIndex: number;
  nextValue: string;
  seq: number | null;
}
