/**
 * The compression event of a transaction in the shape both event forms reduce to (light-event
 * `PublicTransactionEvent` / `BatchPublicTransactionEvent`), before tree resolution.
 */
import type { Address } from '../../core/model.js';
import type { RawOutputAccount } from './codecs.js';

/** light-event `PublicTransactionEvent` (the parts Photon reads). */
export interface TxEvent {
  inputHashes: Uint8Array[];
  outputHashes: Uint8Array[];
  outputAccounts: RawOutputAccount[];
  outputLeafIndices: number[];
  /** Per output tree: the sequence number of its first append in this event (V1) or its first queue index (V2). */
  sequenceNumbers: { treePubkey: Address; seq: bigint }[];
  /** The accounts `merkleTreeIndex` of each output indexes into. */
  pubkeyArray: Address[];
  /** Compressed ATAs: output index → wallet owner (current events only). */
  ataOwners: { outputIndex: number; walletOwner: Address }[];
}

/** A V2 input inserted into a batched tree's input queue (light-event `BatchNullifyContext` and its origin). */
export interface BatchInput {
  accountHash: Uint8Array;
  leafIndex: number;
  proveByIndex: boolean;
  tree: Address;
  /** null = not assigned (u64::MAX upstream). */
  queueIndex: bigint | null;
}

/** light-event `BatchPublicTransactionEvent`: a `TxEvent` reconstructed from instruction data, plus queue context. */
export interface BatchTxEvent {
  event: TxEvent;
  txHash: Uint8Array;
  /** Every new address with its tree; `queueIndex` null for V1 address trees (u64::MAX upstream). */
  newAddresses: { address: Uint8Array; tree: Address; queue: Address; queueIndex: bigint | null }[];
  batchInputs: BatchInput[];
}
