/**
 * The normalised chain model every source emits and every parser reads.
 *
 * One shape for all inputs (JSON-RPC `getBlock`/`getTransaction` in base64 or json encoding, Geyser-style
 * records without balance meta, the built-in localnet), so parsers and the store never see the wire format.
 * Amounts are `bigint`; addresses, signatures and hashes are base58 strings; instruction data is raw bytes.
 */

/** Base58 account address. */
export type Address = string;
/** Base58 transaction signature (64 bytes). */
export type Signature = string;

/** An instruction as compiled into a message: indexes into `NormalizedTx.accountKeys`. */
export interface CompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  /** Invocation depth (1 = top level); null when the source does not record it. */
  stackHeight: number | null;
}

export interface InnerInstructions {
  /** Index of the outer instruction these were invoked by. */
  index: number;
  instructions: CompiledInstruction[];
}

/** One entry of `preTokenBalances`/`postTokenBalances`. */
export interface TokenBalance {
  accountIndex: number;
  mint: Address;
  owner: Address | null;
  programId: Address | null;
  /** Raw amount in base units. */
  amount: bigint;
  decimals: number;
}

/**
 * The execution result of a transaction. Absent (`null` on the tx) for Geyser-style records that carry no meta;
 * such transactions are indexed from their instructions only.
 */
export interface TxMeta {
  /** `null` on success, else the RPC error value (e.g. `{InstructionError:[0,{Custom:1}]}`). */
  err: unknown | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  /** `null` when the source did not record token balances. */
  preTokenBalances: TokenBalance[] | null;
  postTokenBalances: TokenBalance[] | null;
  computeUnitsConsumed: bigint | null;
}

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface AddressTableLookup {
  accountKey: Address;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface NormalizedTx {
  /** First signature: the transaction id. */
  signature: Signature;
  signatures: Signature[];
  slot: number;
  /** Position inside its block; `null` when the source does not say (single recorded transactions). */
  indexInBlock: number | null;
  blockTime: number | null;
  version: 'legacy' | 0;
  /** Static keys, then lookup-table-loaded writable keys, then loaded readonly keys (the runtime order). */
  accountKeys: Address[];
  /** Number of static keys (the rest were loaded from address lookup tables). */
  staticKeyCount: number;
  /** `null` for Geyser-style records, which carry no header. */
  header: MessageHeader | null;
  recentBlockhash: string | null;
  addressTableLookups: AddressTableLookup[];
  instructions: CompiledInstruction[];
  innerInstructions: InnerInstructions[];
  logMessages: string[] | null;
  meta: TxMeta | null;
  isVote: boolean;
}

export interface Block {
  slot: number;
  parentSlot: number | null;
  blockhash: string | null;
  previousBlockhash: string | null;
  blockTime: number | null;
  blockHeight: number | null;
  transactions: NormalizedTx[];
  /**
   * Account states fetched after this block (live RPC mode: the accounts its transactions wrote for the asset
   * programs). Each carries its own slot — the fetch's context slot, which may be later than the block's — so it
   * is ordered after every transaction of that slot and applied independently of the block. Absent when the
   * source fetched nothing.
   */
  accounts?: AccountUpdate[];
}

/** The state of one account at a slot (snapshot, replay file, or a fetch after a block). */
export interface AccountUpdate {
  pubkey: Address;
  owner: Address;
  lamports: bigint;
  data: Uint8Array;
  executable: boolean;
  slot: number;
  /** Orders updates within a slot; 0 when the source has none. */
  writeVersion: bigint;
}

/** Whether account `i` of `tx` is writable; `null` when unknown (no header). */
export function isWritable(tx: NormalizedTx, i: number): boolean | null {
  const h = tx.header;
  if (!h) return null;
  const n = tx.staticKeyCount;
  if (i >= n) {
    // Loaded keys: writable ones come first.
    const loadedWritable = tx.addressTableLookups.reduce((s, l) => s + l.writableIndexes.length, 0);
    return i - n < loadedWritable;
  }
  if (i < h.numRequiredSignatures) return i < h.numRequiredSignatures - h.numReadonlySignedAccounts;
  return i < n - h.numReadonlyUnsignedAccounts;
}

/** Whether account `i` signed `tx`; `null` when unknown. */
export function isSigner(tx: NormalizedTx, i: number): boolean | null {
  if (!tx.header) return null;
  return i < tx.header.numRequiredSignatures;
}

/** The fee payer: always the first account key. */
export function feePayer(tx: NormalizedTx): Address {
  return tx.accountKeys[0];
}
