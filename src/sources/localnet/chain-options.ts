/** The options of a `LocalChain`, the outcome of its `sendTransaction` and the metadata of its snapshots. */
import type { LocalBlock, LocalSimulation, LocalTx, RpcTransactionError } from './types.js';

export interface LocalChainOptions {
  /** Slot duration in ms for the production timer; 0 disables the timer (call `produceSlot()`). Default 400. */
  slotMs?: number;
  /**
   * Slots after a block's own until it is confirmed (`commitment.ts`). Default 1 with the slot timer; 0 for a manual
   * chain (`slotMs: 0`), where every produced block is finalized at once unless a depth is given.
   */
  confirmedDepth?: number;
  /**
   * Slots after a block is confirmed until it is finalized (rooted). Default 4 with the slot timer (a real cluster
   * roots about 32 slots behind: `CLUSTER_FINALIZED_DEPTH`); 0 for a manual chain.
   */
  finalizedDepth?: number;
  /** What to do with a slot that has no transactions: produce an empty block (default) or skip the slot. */
  emptySlots?: 'produce' | 'skip';
  /** Produced blocks retained (the ledger limit, like `--limit-ledger-size`); older ones are dropped. Default: all. */
  maxBlocks?: number;
  /** Most recent blocks kept in memory; older retained blocks are read back from the ledger files. Default 256. */
  hotBlocks?: number;
  /**
   * Directory of the ledger files, owned by the chain (emptied when the first block is written to disk, removed by
   * `close()`). Default: a temporary directory.
   */
  ledgerDir?: string;
  /** Slot of the genesis block. Default 0. */
  startSlot?: number;
  /** Faucet balance at genesis in lamports. Default 500 million SOL. */
  faucetLamports?: bigint;
  /** 32-byte private key of the faucet (deterministic faucet address); random by default. */
  faucetSeed?: Uint8Array;
  /** Wall clock in ms (blockTime source); tests may inject one. */
  now?: () => number;
  /**
   * Load the Light Protocol (ZK Compression) programs and genesis tree accounts at genesis, as
   * `light test-validator` does (see `light.ts`). Default false. Ignored when restoring a snapshot, which
   * carries its own accounts.
   */
  light?: boolean;
  /**
   * Accounts installed at genesis as they are, like `solana-test-validator --account ADDRESS FILE`: e.g. recorded
   * accounts of programs the chain cannot run (Token Metadata, MPL Core), so `getProgramAccounts` and the account
   * methods serve them. Ignored when restoring a snapshot, which carries its own accounts.
   */
  accounts?: GenesisAccount[];
  warn?: (message: string, context: Record<string, unknown>) => void;
}

/** An account installed at genesis (`LocalChainOptions.accounts`). */
export interface GenesisAccount {
  address: string;
  lamports: bigint;
  owner: string;
  data: Uint8Array;
  executable?: boolean;
}

/** Outcome of `sendTransaction`. */
export type SendOutcome =
  /** Executed and recorded in the open slot (successfully or with `meta.err`). */
  | { kind: 'committed'; signature: string; tx: LocalTx }
  /** Rejected before execution (bad blockhash, duplicate, signature, fee payer…); never lands, like a real cluster. */
  | { kind: 'dropped'; signature: string; err: RpcTransactionError }
  /** Preflight simulation failed; nothing was executed. */
  | { kind: 'preflight-failed'; signature: string; simulation: LocalSimulation };

/** Metadata stored next to LiteSVM's bytes in a snapshot. */
export interface ChainSnapshotMeta {
  version: 1;
  genesisHash: string;
  faucetSeed: string;
  openSlot: number;
  openTime: number;
  lastBlock: Omit<LocalBlock, 'transactions'>;
  recentBlockhashes: [string, number][];
  slotHashes: [number, string][];
}
