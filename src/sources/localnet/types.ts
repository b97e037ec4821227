/**
 * Internal records of the localnet chain. They keep exactly what a Solana RPC node stores per transaction
 * (message parts plus status meta) so the RPC server can render any encoding from them and the block source
 * can map them to the shared `core/model` shapes without re-executing anything.
 */

/** The JSON form of a `TransactionError` as the RPC returns it (`"BlockhashNotFound"`, `{InstructionError:[0,{Custom:1}]}`). */
export type RpcTransactionError = string | Record<string, unknown>;

export interface LocalInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  /** Invocation depth; top-level instructions record `null` like the RPC does in `message.instructions`. */
  stackHeight: number | null;
}

export interface LocalInnerInstructions {
  index: number;
  instructions: LocalInstruction[];
}

export interface LocalTokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

export interface LocalReturnData {
  programId: string;
  data: Uint8Array;
}

export interface LocalTxMeta {
  err: RpcTransactionError | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: LocalTokenBalance[];
  postTokenBalances: LocalTokenBalance[];
  innerInstructions: LocalInnerInstructions[];
  logMessages: string[];
  computeUnitsConsumed: bigint;
  returnData: LocalReturnData | null;
}

export interface LocalMessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface LocalAddressTableLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

/** A decoded wire transaction (before execution). */
export interface DecodedTx {
  /** The exact bytes received; re-served verbatim for `base64`/`base58` encodings. */
  wire: Uint8Array;
  messageBytes: Uint8Array;
  signatures: string[];
  version: 'legacy' | 0;
  header: LocalMessageHeader;
  staticKeys: string[];
  recentBlockhash: string;
  instructions: LocalInstruction[];
  addressTableLookups: LocalAddressTableLookup[];
}

/** A transaction recorded in a block (committed: succeeded, or failed with its fee charged). */
export interface LocalTx extends DecodedTx {
  signature: string;
  loadedAddresses: { writable: string[]; readonly: string[] };
  slot: number;
  indexInBlock: number;
  blockTime: number;
  meta: LocalTxMeta;
  /** The `memo` field of `getSignaturesForAddress` (`"[len] text"`), or null. */
  memo: string | null;
}

export interface LocalBlock {
  slot: number;
  parentSlot: number;
  blockhash: string;
  previousBlockhash: string;
  blockTime: number;
  blockHeight: number;
  transactions: LocalTx[];
}

/** Result of a simulation (also the `data` of a preflight failure). */
export interface LocalSimulation {
  err: RpcTransactionError | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: LocalReturnData | null;
  innerInstructions: LocalInnerInstructions[];
  /** Account states after the simulated execution, by address (only accounts the runtime touched). */
  postAccounts: Map<string, LocalAccount>;
  /** Set when `replaceRecentBlockhash` swapped the blockhash. */
  replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null;
  /** Account keys (static + loaded) when the message could be resolved. */
  accountKeys: string[];
}

export interface LocalAccount {
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
}
