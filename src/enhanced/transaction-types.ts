/**
 * Every enhanced transaction type, as the webhook `transactionTypes` list of the service interface gives them
 * (/work/shared/spec/service-interface.md, "Allowed transactionTypes values"; the same list as the `TransactionType`
 * enum of the reference's OpenAPI definition). `ANY` is only a webhook filter value; the classifier never emits it.
 * Generated from that list; keep it in the list's order (split by first letter over `transaction-types-a-j.ts` and
 * `transaction-types-k-z.ts`, one half of the list each).
 */
import { TRANSACTION_TYPES_A_TO_J } from './transaction-types-a-j.js';
import { TRANSACTION_TYPES_K_TO_Z } from './transaction-types-k-z.js';

export const TRANSACTION_TYPES = [...TRANSACTION_TYPES_A_TO_J, ...TRANSACTION_TYPES_K_TO_Z] as const;

/** One enhanced transaction type (`type` of an EnhancedTransaction, of an `nft` event, of a `compressed` event). */
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(TRANSACTION_TYPES);

/** Whether `s` is one of the listed transaction types (e.g. to validate a webhook's `transactionTypes`). */
export function isTransactionType(s: string): s is TransactionType {
  return KNOWN.has(s);
}
