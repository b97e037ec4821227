/**
 * The ZK Compression (Light Protocol) state update of one transaction, as `parseLightTransaction` returns it.
 *
 * Modelled on Photon's `StateUpdate` (helius-labs/photon `src/ingester/parser/state_update.rs`): the accounts a
 * transaction created and consumed, the tree events it carried, the transaction row and the account ↔ transaction
 * links behind `getCompressionSignaturesFor*`. Where Photon keeps hash sets and maps, this keeps arrays in
 * execution order, deduplicated the way Photon's sets and maps deduplicate.
 *
 * Conventions (as the rest of the project): public keys, hashes, addresses and signatures are base58 strings; account
 * data and TLV are bytes; lamports and token amounts are `bigint`; leaf indexes, sequence numbers and queue indexes are
 * numbers (a u64 that does not fit a safe integer is reported as a parse failure instead).
 */
import type { Address, Signature } from '../../core/model.js';
import type { IxPath, ParseFailedEvent } from '../events.js';

/** Light `TreeType` codes, as Photon stores them and `merkleContext.treeType` carries them on the wire. */
export const LIGHT_TREE_TYPE = { StateV1: 1, AddressV1: 2, StateV2: 3, AddressV2: 4 } as const;
export type LightTreeType = (typeof LIGHT_TREE_TYPE)[keyof typeof LIGHT_TREE_TYPE];

/** What the parser must know about a tree to place a transaction's leaves (Photon's `TreeInfo`). */
export interface LightTreeInfo {
  tree: Address;
  /** The tree's queue: nullifier queue (V1 state), address queue (V1 address), output queue (V2 state), the tree itself (V2 address). */
  queue: Address;
  treeType: LightTreeType;
}

/**
 * Resolves a tree *or queue* public key to its tree (Photon's `TreeInfo::get_by_pubkey`): transactions name V1 trees
 * by the tree account and V2 state trees by their output queue. `null`/`undefined` = unknown.
 */
export type LightTreeLookup = (pubkey: Address) => LightTreeInfo | null | undefined;

/**
 * Light's nullifier of a V2 input, `create_nullifier(account_hash, leaf_index, tx_hash)` = Poseidon(account hash,
 * leaf index as a 32-byte big-endian word, tx hash) (light-compressed-account `nullifier.rs`). Poseidon lives outside
 * the parsers (it needs a WASM module loaded once), so callers that want nullifiers pass this in.
 */
export type LightNullifierHasher = (accountHash: Uint8Array, leafIndex: number, txHash: Uint8Array) => Uint8Array;

export interface LightParseOptions {
  /** Tree metadata; outputs in trees it does not know are left out and their tree listed in `unknownTrees`. */
  trees?: LightTreeLookup;
  /** Computes `nullifier` of V2 inputs; without it `nullifier` is null (its inputs are in the same record). */
  nullifier?: LightNullifierHasher;
}

/** The data part of a compressed account. */
export interface LightAccountData {
  /** The 8 discriminator bytes. */
  discriminator: Uint8Array;
  /** The discriminator read as a little-endian u64: the number Photon stores and serves (a V1 token account shows 2). */
  discriminatorValue: bigint;
  data: Uint8Array;
  dataHash: string;
}

/** Compressed token account data (the compressed token program's `TokenData`, Photon `token_data.rs`). */
export interface LightTokenData {
  mint: Address;
  owner: Address;
  amount: bigint;
  delegate: Address | null;
  state: 'initialized' | 'frozen';
  /** Extension TLV bytes after the `Some` tag (as Photon keeps them); null when absent or empty. */
  tlv: Uint8Array | null;
}

/** A compressed account created (appended) by the transaction: Photon's `AccountWithContext` of an output. */
export interface LightOutputAccount {
  hash: string;
  address: string | null;
  owner: Address;
  lamports: bigint;
  data: LightAccountData | null;
  /** The Merkle tree (for V2 outputs resolved from the output queue the transaction names). */
  tree: Address;
  queue: Address;
  treeType: LightTreeType;
  /** V1: the leaf index; V2: the output-queue index, which is the leaf index the account gets on batch append. */
  leafIndex: number;
  /** V1 state trees: the tree's sequence number of this append (the event's seq, +1 per further output in that tree); null for V2. */
  seq: number | null;
  /** V2 (batched) outputs wait in the output queue until a batch append; Photon's `in_output_queue`. */
  inOutputQueue: boolean;
  /** Photon serves `proveByIndex = in_output_queue`: a queued account is proven by its index, not a Merkle proof. */
  proveByIndex: boolean;
  /** Set when the owner is the compressed token program and the discriminator is a token one (v1 `2`, v2 `…3`, v3 `…4`). */
  tokenData: LightTokenData | null;
  /** The outer instruction whose event created it. */
  path: IxPath;
}

/**
 * A V2 input: the account hash inserted into a batched tree's input (nullifier) queue — Photon's
 * `batch_nullify_context` (light-event `BatchNullifyContext`), plus where it sits.
 */
export interface LightNullifierQueueEntry {
  accountHash: string;
  /** The transaction hash Light binds the nullifier to (insert_into_queues `tx_hash`). */
  txHash: string;
  /** Poseidon(accountHash, leafIndex, txHash) when a hasher was given, else null. */
  nullifier: string | null;
  /** The input account's leaf index (the nullifier's second input). */
  leafIndex: number;
  proveByIndex: boolean;
  /** Position in the tree's input queue; null when the transaction did not carry it (Photon's u64::MAX). */
  nullifierQueueIndex: number | null;
  /** The batched state tree (its input queue lives in the tree account). */
  tree: Address;
}

/** A V1 state-tree leaf nullified by the forester (`NullifierEvent`): the leaf becomes zero at `seq`. */
export interface LightLeafNullification {
  tree: Address;
  leafIndex: number;
  seq: number;
  signature: Signature;
}

/** An element of an indexed (address) Merkle tree. Values are 32-byte big-endian field elements, base58. */
export interface LightIndexedElement {
  index: number;
  value: string;
  nextIndex: number;
  nextValue: string;
}

/** A V1 address-tree leaf after an update (`IndexedMerkleTreeEvent`): Photon's `IndexedTreeLeafUpdate`. */
export interface LightIndexedTreeUpdate {
  tree: Address;
  treeType: LightTreeType;
  leaf: LightIndexedElement;
  /** The leaf hash after the update. */
  hash: string;
  seq: number;
  signature: Signature;
}

/** A new address a light transaction created, as `insert_into_queues` lists it (V1 and V2 address trees). */
export interface LightNewAddress {
  address: string;
  tree: Address;
  /** The address queue it went into (a V2 address tree is its own queue). */
  queue: Address;
  /** Position in a V2 address queue; null for V1 address trees, which are updated later by the forester's events. */
  queueIndex: number | null;
}

/** An address inserted into a V2 address tree's queue (Photon `batch_new_addresses`). */
export interface LightAddressQueueEntry {
  tree: Address;
  address: string;
  queueIndex: number;
}

/** A V2 batched tree root update (light-batched-merkle-tree `BatchEvent`, logged through the noop program). */
export interface LightBatchEvent {
  kind: 'batchAppend' | 'batchNullify' | 'batchAddressAppend';
  tree: Address;
  batchIndex: number;
  zkpBatchIndex: number;
  zkpBatchSize: number;
  oldNextIndex: number;
  newNextIndex: number;
  /** The root after the update (the event does not carry the previous root: it is the root of `sequenceNumber - 1`). */
  newRoot: string;
  /** Slot of `newRoot` in the tree's root history. */
  rootIndex: number;
  sequenceNumber: number;
  /** The output queue a batch append consumed; null for the other kinds. */
  outputQueue: Address | null;
  signature: Signature;
  path: IxPath;
}

/** A V1 state-tree change log (`MerkleTreeEvent::V1` / `ChangelogEvent`): the new paths, leaf first. */
export interface LightChangelog {
  tree: Address;
  seq: number;
  /** The event's `index` (the changelog index). */
  index: number;
  paths: { node: string; index: number }[][];
  path: IxPath;
}

/** A tree rollover: the account compression program replaced a full tree (and its queue) by a new one. */
export interface LightTreeRollover {
  treeType: LightTreeType;
  oldTree: Address;
  oldQueue: Address;
  newTree: Address;
  newQueue: Address;
  path: IxPath;
}

/** Photon's `transactions` row. */
export interface LightTransactionRecord {
  signature: Signature;
  slot: number;
  blockTime: number | null;
  /** True when any Light event was found (Photon's `uses_compression`). */
  usesCompression: boolean;
  /** Always null: failed transactions are skipped before this record is made, as Photon does. */
  error: null;
}

/** A transaction touched an account hash (created or consumed it): Photon's `account_transactions`. */
export interface LightAccountTransaction {
  hash: string;
  signature: Signature;
}

/** Everything one transaction changed in ZK Compression state. */
export interface LightStateUpdate {
  signature: Signature;
  slot: number;
  /**
   * The transaction row; null when Photon keeps none: failed transactions (skipped entirely) and vote transactions
   * without compression.
   */
  transaction: LightTransactionRecord | null;
  /** Hashes of the compressed accounts consumed (V1 and V2 trees): Photon `in_accounts`. */
  inputAccountHashes: string[];
  /** Compressed accounts created: Photon `out_accounts`. */
  outputAccounts: LightOutputAccount[];
  /** V2 inputs with their input-queue context: Photon `batch_nullify_context`. */
  nullifierQueue: LightNullifierQueueEntry[];
  /** Account ↔ transaction links (inputs and outputs): Photon `account_transactions`. */
  accountTransactions: LightAccountTransaction[];
  leafNullifications: LightLeafNullification[];
  /** V1 address-tree leaves, newest seq per (tree, leaf index): Photon `indexed_merkle_tree_updates`. */
  indexedTreeUpdates: LightIndexedTreeUpdate[];
  /** Every new address of the newer event form (the older form does not list them). */
  newAddresses: LightNewAddress[];
  /** V2 address-queue insertions: Photon `batch_new_addresses`. */
  batchNewAddresses: LightAddressQueueEntry[];
  /** Compressed ATAs: output account hash → wallet owner, when the event names them (Photon `ata_owners`). */
  ataOwners: { hash: string; owner: Address }[];
  /** V2 batch append / nullify / address append events: Photon `batch_merkle_tree_events`. */
  batchEvents: LightBatchEvent[];
  changelogs: LightChangelog[];
  treeRollovers: LightTreeRollover[];
  /**
   * Tree or queue keys outputs referred to that the tree lookup did not know; those outputs are left out (Photon's
   * `SKIP_UNKNOWN_TREES`). A caller can load the tree accounts and parse again.
   */
  unknownTrees: Address[];
  /** Light instructions or events that could not be decoded. Never thrown. */
  failures: ParseFailedEvent[];
}
