/**
 * `accountData`: per account key (runtime order: static keys, then lookup-table-loaded writable, then readonly),
 * its signed lamport change and, on a token account's own entry, its token balance change(s), all read from the
 * execution meta — the ground truth that includes fees, rent and direct lamport debits no instruction shows.
 * A transaction without meta (Geyser-style record) has no known balance changes: the list is empty.
 */
import type { NormalizedTx } from '../core/model.js';
import { indexedTokenDeltas } from '../parsers/balances.js';
import type { AccountData, TokenBalanceChange } from './types.js';

export function accountData(tx: NormalizedTx): AccountData[] {
  const meta = tx.meta;
  if (!meta) return [];
  const tokenChanges = new Map<number, TokenBalanceChange[]>();
  for (const d of indexedTokenDeltas(tx)) {
    if (!d.changed) continue;
    const list = tokenChanges.get(d.index) ?? [];
    list.push({
      userAccount: d.owner ?? '',
      tokenAccount: d.account,
      mint: d.mint,
      rawTokenAmount: { tokenAmount: d.delta.toString(), decimals: d.decimals },
    });
    tokenChanges.set(d.index, list);
  }
  return tx.accountKeys.map((account, i) => {
    const pre = meta.preBalances[i];
    const post = meta.postBalances[i];
    return {
      account,
      nativeBalanceChange: pre === undefined || post === undefined ? 0 : Number(post - pre),
      tokenBalanceChanges: tokenChanges.get(i) ?? [],
    };
  });
}
