/**
 * BlockUpdate: everything one block (or one batch of recorded transactions, or one batch of account updates)
 * changes, grouped by table family. Built purely by `ingest/fold-block.ts`, written atomically by
 * `store/write-block.ts`. `pos` = slot * 1e6 + index in block orders state changes; in a patch, a field group is
 * present only when its `*Pos` is set.
 */
import type { AssetAccountRow } from './asset-accounts.js';
import type { CnftAssetPatch, CnftNodeRow, CnftSignatureRow } from './cnft.js';
import type { PythPriceRow, SwapPriceRow } from './prices.js';

/** A change to one balance of a wallet in one transaction (raw signed amount). */
export interface BalanceChange {
  mint: string;
  amount: string;
  decimals: number;
}

export interface BlockRow {
  slot: number;
  parentSlot: number | null;
  blockhash: string | null;
  blockTime: number | null;
  blockHeight: number | null;
  txCount: number;
}

export interface TxRow {
  signature: string;
  slot: number;
  txIndex: number;
  blockTime: number | null;
  fee: bigint | null;
  feePayer: string;
  err: unknown | null;
  hasMeta: boolean;
  /** The enhanced transaction type (`classifyTransaction(...).type`); null when not classified. */
  enhancedType: string | null;
  /** agave's memo string (src/parsers/memo.ts); null when none. */
  memo: string | null;
}

/**
 * relation: 1 direct reference, 2 changed an owned token account's balance, 3 touched an owned token account. The
 * transaction is its position (slot, txIndex); its row in `transactions` holds the signature (migration 044).
 */
export interface AddressLinkRow {
  address: string;
  slot: number;
  txIndex: number;
  relation: 1 | 2 | 3;
  changes: BalanceChange[] | null;
  /** The transaction's enhanced type, repeated on each link so a wallet's history filters by type on one index. */
  enhancedType: string | null;
  /**
   * Relation 1: whether the transaction wrote the address (a writable key of a successful transaction, the fee payer
   * or nonce account of a failed one); null when not known (no message header) and on relations 2 and 3.
   */
  writable: boolean | null;
}

export interface SolBalanceRow {
  address: string;
  lamports: bigint;
  pos: number;
}

export interface MintPatch {
  address: string;
  /** Immutable facts, filled in whenever known. */
  program?: string;
  decimals?: number;
  initPos?: number;
  mintAuthority?: string | null;
  mintAuthorityPos?: number;
  freezeAuthority?: string | null;
  freezeAuthorityPos?: number;
  /** Absolute supply as of (supplyPos, supplyOrd). */
  supplyBase?: bigint;
  supplyPos?: number;
  supplyOrd?: number;
}

export interface SupplyChangeRow {
  mint: string;
  signature: string;
  ord: number;
  pos: number;
  delta: bigint;
}

export interface TokenAccountPatch {
  address: string;
  /** Identity/lifecycle group. */
  mint?: string | null;
  owner?: string | null;
  program?: string | null;
  closed?: boolean;
  ownerPos?: number;
  amount?: bigint;
  amountPos?: number;
  delegate?: string | null;
  delegatedAmount?: bigint | null;
  delegatePos?: number;
  frozen?: boolean;
  frozenPos?: number;
  closeAuthority?: string | null;
  closeAuthorityPos?: number;
}

export interface TokenExtensionRow {
  target: string;
  extension: string;
  data: Record<string, unknown>;
  pos: number;
}

export interface WalletTransferRow {
  wallet: string;
  slot: number;
  txIndex: number;
  signature: string;
  ord: number;
  direction: 'i' | 'o';
  counterparty: string;
  mint: string;
  amount: bigint;
  decimals: number;
  blockTime: number | null;
}

export interface FundingRow {
  wallet: string;
  funder: string;
  lamports: bigint;
  signature: string;
  slot: number;
  txIndex: number;
  ord: number;
  blockTime: number | null;
}

export interface NameRecordRow {
  address: string;
  parent: string;
  owner: string;
  class: string;
  reverseName: string | null;
  slot: number;
  writeVersion: bigint;
}

export interface BlockUpdate {
  /** The block row, when the input was a whole block (recorded transactions have none). */
  block: BlockRow | null;
  /**
   * Highest slot of the transactions/blocks this update covers; the checkpoint moves to max(checkpoint, this).
   * Null for account-only updates: account state says nothing about which blocks were ingested.
   */
  slot: number | null;
  transactions: TxRow[];
  addressLinks: AddressLinkRow[];
  solBalances: SolBalanceRow[];
  mints: MintPatch[];
  supplyChanges: SupplyChangeRow[];
  tokenAccounts: TokenAccountPatch[];
  tokenExtensions: TokenExtensionRow[];
  transfers: WalletTransferRow[];
  funding: FundingRow[];
  nameRecords: NameRecordRow[];
  /** Decoded DAS asset-program accounts (Token Metadata, MPL Core, inscriptions). */
  assetAccounts: AssetAccountRow[];
  /** Compressed NFTs (Bubblegum): seq-guarded per-asset patches, Merkle nodes, signatures per asset. */
  cnftAssets: CnftAssetPatch[];
  cnftNodes: CnftNodeRow[];
  cnftSignatures: CnftSignatureRow[];
  /** Pyth price updates (PriceUpdateV2 accounts) and swap-derived prices (src/store/prices.ts). */
  pythPrices: PythPriceRow[];
  swapPrices: SwapPriceRow[];
}

export function emptyUpdate(slot: number | null): BlockUpdate {
  return {
    block: null,
    slot,
    transactions: [],
    addressLinks: [],
    solBalances: [],
    mints: [],
    supplyChanges: [],
    tokenAccounts: [],
    tokenExtensions: [],
    transfers: [],
    funding: [],
    nameRecords: [],
    assetAccounts: [],
    cnftAssets: [],
    cnftNodes: [],
    cnftSignatures: [],
    pythPrices: [],
    swapPrices: [],
  };
}

/** The order key of a state change: slot, then position in the block. */
export function posOf(slot: number, txIndex: number): number {
  return slot * 1_000_000 + txIndex;
}

/** Position of an account snapshot: after every transaction of its slot. */
export function accountPos(slot: number): number {
  return slot * 1_000_000 + 999_999;
}
