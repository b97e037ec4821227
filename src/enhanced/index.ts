/** Enhanced transactions (compat-facts §6): the shape and the pure classifier. */
export { classifyTransaction, classifyType, classifyTypeAndSwap, type ClassifyContext } from './classify.js';
export { TRANSACTION_TYPES, isTransactionType } from './transaction-types.js';
export type * from './types.js';
