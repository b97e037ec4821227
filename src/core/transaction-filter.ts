/** The filter of an enhanced `transactionSubscribe` and the reader of its past (shared by api/ws and ingest). */
import type { NormalizedTx } from './model.js';

export interface TransactionFilter {
  vote: boolean;
  failed: boolean;
  signature?: string;
  accountInclude: Set<string>;
  accountExclude: Set<string>;
  accountRequired: string[];
}

/**
 * The indexed past of a subscription (resume from a slot): the transactions of the filter's addresses (or signature)
 * from `fromSlot` through the index's checkpoint, in chain order, read back from the cluster; `upTo` is that
 * checkpoint. Throws an Error whose message is the client's -32602 reason (e.g. too many transactions).
 */
export type TransactionHistory = (filter: TransactionFilter, fromSlot: number) => Promise<{ upTo: number; transactions: NormalizedTx[] }>;
