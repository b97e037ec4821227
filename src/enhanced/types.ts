/**
 * The enhanced transaction shape (compat-facts §6: the reference's OpenAPI `EnhancedTransaction`, its Rust SDK's
 * `enhanced_transaction_types.rs`, and the webhook example). Field names and enum spellings are the wire names;
 * numbers are JSON numbers as the reference sends them (lamports and UI token amounts), signed raw token amounts
 * are decimal strings. Lamport counts above 2^53 (≈9 million SOL) lose precision as JSON numbers.
 */
import type { Address, Signature } from '../core/model.js';
import type { TransactionType } from './transaction-types.js';

export type { TransactionType } from './transaction-types.js';

/**
 * Who the transaction is attributed to (`source`). The reference's enum is open-ended (its SDKs accept any string);
 * these are the values of its Rust SDK's `Source` enum that this classifier can emit or that callers filter on.
 */
export type TransactionSource =
  | 'UNKNOWN'
  | 'SYSTEM_PROGRAM'
  | 'SOLANA_PROGRAM_LIBRARY'
  | 'STAKE_PROGRAM'
  | 'BUBBLEGUM'
  | 'METAPLEX'
  | 'CANDY_MACHINE_V1'
  | 'CANDY_MACHINE_V2'
  | 'CANDY_MACHINE_V3'
  | 'MAGIC_EDEN'
  | 'TENSOR'
  | 'JUPITER'
  | 'RAYDIUM'
  | 'ORCA'
  | 'BPF_LOADER'
  | 'BPF_UPGRADEABLE_LOADER';

/** Token standard of a transferred token or NFT (Metaplex `TokenStandard` names, plus the reference's fallback). */
export type TokenStandard =
  | 'Fungible'
  | 'FungibleAsset'
  | 'NonFungible'
  | 'NonFungibleEdition'
  | 'ProgrammableNonFungible'
  | 'UnknownStandard';

/** `saleType` of an `nft` event. */
export type SaleType = 'AUCTION' | 'INSTANT_SALE' | 'OFFER' | 'GLOBAL_OFFER' | 'MINT' | 'UNKNOWN';

/** Lamports moved by the System program (transfers, account funding). */
export interface NativeTransfer {
  fromUserAccount: Address;
  toUserAccount: Address;
  /** Lamports. */
  amount: number;
}

/**
 * Tokens moved, minted or burned. For a mint the `from…` fields are `""`; for a burn the `to…` fields are `""`.
 * `fromUserAccount`/`toUserAccount` are the owners of the token accounts (`""` when unknown).
 */
export interface TokenTransfer {
  fromUserAccount: Address | '';
  toUserAccount: Address | '';
  fromTokenAccount: Address | '';
  toTokenAccount: Address | '';
  /** UI amount: raw amount / 10^decimals. */
  tokenAmount: number;
  mint: Address;
  tokenStandard: TokenStandard;
}

export interface RawTokenAmount {
  /** Signed raw amount (base units) as a decimal string. */
  tokenAmount: string;
  decimals: number;
}

export interface TokenBalanceChange {
  /** Owner of the token account (`""` when the meta did not record it). */
  userAccount: Address | '';
  tokenAccount: Address;
  mint: Address;
  rawTokenAmount: RawTokenAmount;
}

/** Balance changes of one account key of the transaction. */
export interface AccountData {
  account: Address;
  /** Signed lamport change, the fee included for the fee payer. */
  nativeBalanceChange: number;
  /** Token balance changes of this account when it is a token account (listed on the token account's entry). */
  tokenBalanceChanges: TokenBalanceChange[];
}

/** An instruction invoked by an outer instruction (any depth), in invocation order. */
export interface InnerInstruction {
  accounts: Address[];
  /** Instruction data, base58. */
  data: string;
  programId: Address;
}

/** An outer instruction with the instructions it invoked. */
export interface EnhancedInstruction extends InnerInstruction {
  innerInstructions: InnerInstruction[];
}

/** `events.compressed[]`: one Bubblegum operation on a compressed NFT (or tree). */
export interface CompressedNftEvent {
  type: TransactionType;
  treeId: Address;
  assetId: Address | null;
  leafIndex: number | null;
  seq: number | null;
  /** Index of the outer instruction the Bubblegum instruction is or was invoked by. */
  instructionIndex: number;
  /** Index among that outer instruction's inner instructions; `null` when it is the outer instruction itself. */
  innerInstructionIndex: number | null;
  newLeafOwner: Address | null;
  oldLeafOwner: Address | null;
  newLeafDelegate: Address | null;
  oldLeafDelegate: Address | null;
  treeDelegate: Address | null;
}

/** `events.setAuthority[]`: an authority change (token program SetAuthority). */
export interface SetAuthorityEvent {
  /** The mint or token account whose authority changed. */
  account: Address;
  /** Previous authority (`""` when the transaction does not show it). */
  from: Address | '';
  /** New authority (`""` when the authority was removed). */
  to: Address | '';
  instructionIndex: number;
  innerInstructionIndex: number | null;
}

export interface NativeBalanceChange {
  account: Address;
  /** Lamports, as a decimal string (the reference's swap events carry strings here). */
  amount: string;
}

export interface SwapTokenAmount {
  userAccount: Address | '';
  tokenAccount: Address;
  mint: Address;
  rawTokenAmount: RawTokenAmount;
}

export interface ProgramInfo {
  source: TransactionSource;
  account: Address;
  programName: string;
  instructionName: string;
}

export interface InnerSwap {
  tokenInputs: TokenTransfer[];
  tokenOutputs: TokenTransfer[];
  tokenFees: TokenTransfer[];
  nativeFees: NativeTransfer[];
  programInfo: ProgramInfo;
}

/** `events.swap`: the fee payer's side of a swap (see swaps.ts). */
export interface SwapEvent {
  nativeInput: NativeBalanceChange | null;
  nativeOutput: NativeBalanceChange | null;
  tokenInputs: SwapTokenAmount[];
  tokenOutputs: SwapTokenAmount[];
  tokenFees: SwapTokenAmount[];
  nativeFees: NativeBalanceChange[];
  innerSwaps: InnerSwap[];
}

/** `events.nft`: a marketplace operation or an NFT mint (see marketplaces.ts, classify.ts). */
export interface NftEvent {
  description: string;
  type: TransactionType;
  source: TransactionSource;
  amount: number;
  fee: number;
  feePayer: Address;
  signature: Signature;
  slot: number;
  timestamp: number;
  saleType: SaleType;
  buyer: Address | '';
  seller: Address | '';
  staker: Address | '';
  nfts: { mint: Address; tokenStandard: TokenStandard }[];
}

/** Events of the transaction; a key is present only when the transaction has such an event. */
export interface EnhancedEvents {
  nft?: NftEvent;
  swap?: SwapEvent;
  /** An array, as the Rust SDK models it (the OpenAPI document shows a single object). */
  compressed?: CompressedNftEvent[];
  distributeCompressionRewards?: { amount: number };
  setAuthority?: SetAuthorityEvent[];
}

/** The RPC error value of a failed transaction, e.g. `{InstructionError: [0, {Custom: 1}]}`. */
export type TransactionError = Record<string, unknown> | string;

export interface EnhancedTransaction {
  description: string;
  type: TransactionType;
  source: TransactionSource;
  /** Lamports; 0 when the source recorded no execution meta. */
  fee: number;
  feePayer: Address;
  signature: Signature;
  slot: number;
  /** Block time (Unix seconds); 0 when unknown. */
  timestamp: number;
  nativeTransfers: NativeTransfer[];
  tokenTransfers: TokenTransfer[];
  /** One entry per account key; empty when the source recorded no execution meta. */
  accountData: AccountData[];
  transactionError: TransactionError | null;
  instructions: EnhancedInstruction[];
  events: EnhancedEvents;
}
