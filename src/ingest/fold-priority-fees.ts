/**
 * Priority-fee samples of blocks (for getPriorityFeeEstimate): per slot, the compute-unit price of every successful
 * non-vote transaction — globally (account `*`, with the slot's vote count) and under each account it writes
 * (static and lookup-table-loaded writable keys). Failed transactions are left out, as the reference estimator does.
 * Pure.
 */
import { isWritable, type Block } from '../core/model.js';
import { computeUnitPrice } from '../parsers/compute-budget.js';
import type { PriorityFeeRow } from '../store/priority-fees.js';

export const GLOBAL_ACCOUNT = '*';

export function foldPriorityFees(blocks: readonly Block[]): PriorityFeeRow[] {
  const out: PriorityFeeRow[] = [];
  for (const b of blocks) {
    const global: bigint[] = [];
    const byAccount = new Map<string, bigint[]>();
    let votes = 0;
    for (const tx of b.transactions) {
      if (tx.isVote) {
        votes++;
        continue;
      }
      if (tx.meta?.err) continue;
      const price = computeUnitPrice(tx);
      global.push(price);
      const seen = new Set<string>();
      tx.accountKeys.forEach((k, i) => {
        if (isWritable(tx, i) !== true || seen.has(k)) return;
        seen.add(k);
        (byAccount.get(k) ?? byAccount.set(k, []).get(k)!).push(price);
      });
    }
    out.push({ slot: b.slot, account: GLOBAL_ACCOUNT, rates: global, votes });
    for (const [account, rates] of byAccount) out.push({ slot: b.slot, account, rates, votes: 0 });
  }
  return out;
}
