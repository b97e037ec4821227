/**
 * The read side of `LocalChain` (`chain.ts`): slots, blocks and blockhashes at each commitment, the ledger's blocks
 * and transactions, account states (the newest, or at the end of a commitment's block) and epoch info, over the
 * state the chain keeps (declared here, owned and updated by `LocalChain`).
 */
import type { LiteSVM } from 'litesvm';
import type { AccountHistory } from './account-history.js';
import type { BlockStore } from './block-store.js';
import { levelOf, type Commitment } from './commitment.js';
import { readAccount } from './executor.js';
import type { LocalAccount, LocalBlock, LocalTx } from './types.js';

/** Number of blocks a blockhash stays usable (agave MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALIDITY = 150;
export const SLOTS_PER_EPOCH = 432_000n;

export abstract class LocalChainReads {
  protected abstract svm: LiteSVM;
  protected abstract readonly store: BlockStore;
  /** The newest confirmed and finalized blocks (the processed one is the store's last). */
  protected abstract readonly tips: { confirmed: LocalBlock; finalized: LocalBlock };
  protected abstract readonly history: AccountHistory;
  /** blockhash → block height, for the last BLOCKHASH_VALIDITY+1 blocks. */
  protected abstract readonly recentBlockhashes: Map<string, number>;
  /** The open slot's transactions. */
  protected abstract pending: LocalTx[];
  /** The slot collecting transactions. */
  protected abstract openSlot: number;

  /** Slot of the latest produced block (processed). */
  get slot(): number {
    return this.store.last.slot;
  }
  /** Slot of the newest block at `commitment`. */
  slotAt(commitment: Commitment): number {
    return this.blockAt(commitment).slot;
  }
  /** The newest block at `commitment`. */
  blockAt(commitment: Commitment): LocalBlock {
    return commitment === 'processed' ? this.store.last : this.tips[commitment];
  }
  /** The level a produced block at `slot` has reached. */
  levelOf(slot: number): Commitment {
    return levelOf(slot, { confirmed: this.tips.confirmed.slot, finalized: this.tips.finalized.slot });
  }
  /** Blocks produced after the one at `slot` (`getSignatureStatuses`' `confirmations` of a block not yet finalized). */
  blocksAfter(slot: number): number {
    return this.store.range(slot + 1, this.store.last.slot).length;
  }
  /** The slot currently collecting transactions. */
  get currentSlot(): number {
    return this.openSlot;
  }
  get blockHeight(): number {
    return this.store.last.blockHeight;
  }
  get firstAvailableBlock(): number {
    return this.store.first;
  }
  get transactionCount(): number {
    return this.store.transactionCount;
  }
  get pendingTransactions(): readonly LocalTx[] {
    return this.pending;
  }
  /** The blockhash of the newest block at `commitment` (default processed) and the last height it can land at. */
  latestBlockhash(commitment: Commitment = 'processed'): { blockhash: string; lastValidBlockHeight: number } {
    const b = this.blockAt(commitment);
    return { blockhash: b.blockhash, lastValidBlockHeight: b.blockHeight + BLOCKHASH_VALIDITY };
  }
  /** Whether a transaction may still use `blockhash`, as the bank at `commitment` (default processed) knows it. */
  isBlockhashValid(blockhash: string, commitment: Commitment = 'processed'): boolean {
    const height = this.recentBlockhashes.get(blockhash);
    return height !== undefined && height <= this.blockAt(commitment).blockHeight;
  }
  getBlock(slot: number): LocalBlock | undefined {
    return this.store.get(slot);
  }
  getBlocks(start: number, end: number, limit?: number): number[] {
    return this.store.range(start, end, limit);
  }
  getTransaction(signature: string): LocalTx | undefined {
    return this.store.transaction(signature);
  }
  getSignaturesForAddress(address: string, opts: { before?: string; until?: string; limit?: number; maxSlot?: number } = {}): LocalTx[] {
    return this.store.signaturesFor(address, { ...opts, limit: opts.limit ?? 1000 });
  }
  /** The newest state of an account (processed: the open slot's transactions included). */
  getAccount(address: string): LocalAccount | null {
    return readAccount(this.svm, address);
  }
  /** The state of an account at the end of `slot`, a slot not before the finalized block's. */
  accountAtSlot(address: string, slot: number): LocalAccount | null {
    return this.history.at(address, slot, () => this.getAccount(address));
  }
  /**
   * The accounts written after the newest block at `commitment` (none for processed): those whose state there may
   * differ from the newest one, e.g. owned by another program then (what a scan at that level adds to the indexes'
   * candidates).
   */
  accountsWrittenAfter(commitment: Commitment): string[] {
    return commitment === 'processed' ? [] : this.history.writtenSince(this.slotAt(commitment));
  }
  /** A reader of account states at `commitment`. */
  accountReader(commitment: Commitment): (address: string) => LocalAccount | null {
    if (commitment === 'processed') return (a) => this.getAccount(a);
    const slot = this.slotAt(commitment);
    if (!this.history.writtenAfter(slot)) return (a) => this.getAccount(a);
    return (a) => this.accountAtSlot(a, slot);
  }
  getBalance(address: string): bigint {
    return this.getAccount(address)?.lamports ?? 0n;
  }
  minimumBalanceForRentExemption(dataLen: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(dataLen));
  }
  /** Transactions in the blocks up to the newest one at `commitment`. */
  transactionCountAt(commitment: Commitment): number {
    let n = this.store.transactionCount;
    for (const s of this.store.range(this.slotAt(commitment) + 1, this.slot)) n -= this.store.get(s)?.transactions.length ?? 0;
    return n;
  }
  epochInfo(commitment: Commitment = 'processed'): { absoluteSlot: number; blockHeight: number; epoch: number; slotIndex: number; slotsInEpoch: number; transactionCount: number } {
    const b = this.blockAt(commitment);
    const per = Number(SLOTS_PER_EPOCH);
    return {
      absoluteSlot: b.slot, blockHeight: b.blockHeight, epoch: Math.floor(b.slot / per), slotIndex: b.slot % per,
      slotsInEpoch: per, transactionCount: this.transactionCountAt(commitment),
    };
  }
}
