/**
 * The DomainEvent union: what pure parsers produce from instructions and accounts.
 * `ingest/fold-block.ts` groups these into per-table rows; nothing here touches a database.
 */
import type { Address } from '../core/model.js';

/** Where an instruction sits in its transaction: outer index, and inner index (null for the outer one). */
export interface IxPath {
  outer: number;
  inner: number | null;
}

interface Base {
  /** Position in the transaction, for stable ordering of rows derived from one transaction. */
  path: IxPath;
}

/** Lamports moved by the System program (transfer, transfer-with-seed, create-account funding, nonce withdraw). */
export interface SolTransferEvent extends Base {
  kind: 'sol.transfer';
  from: Address;
  to: Address;
  lamports: bigint;
  /** The System instruction that moved them (e.g. `transfer`, `createAccount`). */
  instruction: string;
}

/** An account created by the System program (createAccount / createAccountWithSeed). */
export interface SolCreateAccountEvent extends Base {
  kind: 'sol.createAccount';
  funder: Address;
  account: Address;
  lamports: bigint;
  space: bigint;
  owner: Address;
  seed: string | null;
  base: Address | null;
}

export interface TokenInitMintEvent extends Base {
  kind: 'token.initMint';
  program: Address;
  mint: Address;
  decimals: number;
  mintAuthority: Address | null;
  freezeAuthority: Address | null;
}

export interface TokenInitAccountEvent extends Base {
  kind: 'token.initAccount';
  program: Address;
  account: Address;
  mint: Address;
  owner: Address;
}

/** transfer / transferChecked (and their Token-2022 fee variants). `mint`/`decimals` are null for plain `transfer`. */
export interface TokenTransferEvent extends Base {
  kind: 'token.transfer';
  program: Address;
  source: Address;
  destination: Address;
  authority: Address;
  amount: bigint;
  mint: Address | null;
  decimals: number | null;
  /** Token-2022 transfer-fee withheld on this transfer, when the instruction states it. */
  fee: bigint | null;
}

export interface TokenMintToEvent extends Base {
  kind: 'token.mintTo';
  program: Address;
  mint: Address;
  account: Address;
  amount: bigint;
  decimals: number | null;
}

export interface TokenBurnEvent extends Base {
  kind: 'token.burn';
  program: Address;
  mint: Address;
  account: Address;
  amount: bigint;
  decimals: number | null;
}

export interface TokenCloseAccountEvent extends Base {
  kind: 'token.closeAccount';
  program: Address;
  account: Address;
  destination: Address;
}

export interface TokenApproveEvent extends Base {
  kind: 'token.approve';
  program: Address;
  account: Address;
  delegate: Address;
  amount: bigint;
}

export interface TokenRevokeEvent extends Base {
  kind: 'token.revoke';
  program: Address;
  account: Address;
}

export interface TokenFreezeEvent extends Base {
  kind: 'token.freeze' | 'token.thaw';
  program: Address;
  account: Address;
  mint: Address;
}

/** AuthorityType names as in the token program: mintTokens, freezeAccount, accountOwner, closeAccount, ... */
export interface TokenSetAuthorityEvent extends Base {
  kind: 'token.setAuthority';
  program: Address;
  /** Mint or token account whose authority changed. */
  target: Address;
  authorityType: string;
  newAuthority: Address | null;
}

/** A Token-2022 extension instruction (initialize or update); recorded per mint or account. */
export interface TokenExtensionEvent extends Base {
  kind: 'token.extension';
  program: Address;
  /** Mint or token account the extension applies to. */
  target: Address;
  /** Extension name, e.g. `transferFeeConfig`, `metadataPointer`, `nonTransferable`, `permanentDelegate`. */
  extension: string;
  /** Instruction within the extension, e.g. `initialize`, `update`. */
  action: string;
  /** Decoded fields, JSON-safe (bigints as strings). */
  data: Record<string, unknown>;
}

/** An instruction of a known program that could not be decoded. Never thrown; recorded. */
export interface ParseFailedEvent extends Base {
  kind: 'parse.failed';
  program: Address;
  reason: string;
}

export type DomainEvent =
  | SolTransferEvent
  | SolCreateAccountEvent
  | TokenInitMintEvent
  | TokenInitAccountEvent
  | TokenTransferEvent
  | TokenMintToEvent
  | TokenBurnEvent
  | TokenCloseAccountEvent
  | TokenApproveEvent
  | TokenRevokeEvent
  | TokenFreezeEvent
  | TokenSetAuthorityEvent
  | TokenExtensionEvent
  | ParseFailedEvent;

/** An instruction resolved to addresses, as parsers receive it. */
export interface TracedInstruction {
  path: IxPath;
  programId: Address;
  /** Account addresses in instruction order. */
  accounts: Address[];
  data: Uint8Array;
  /**
   * Set by the walker when the instruction could not be fully resolved (an account index outside
   * `accountKeys`); `accounts` is then empty and parsers of known programs report `parse.failed` with this reason.
   */
  unresolved?: string;
}

/** A pure instruction parser for one program. */
export type InstructionParser = (ix: TracedInstruction) => DomainEvent[];
