/**
 * The past of a resumed `transactionSubscribe` (src/api/ws/transactions.ts): the transactions of the filter's
 * addresses (account keys: `accountInclude`, or the first of `accountRequired`) or of its signature, from `fromSlot`
 * through the index's checkpoint, found in the history index and read back from the cluster (`getTransaction`), in
 * chain order. Refused — never silently cut — when the index does not hold that past completely (it began later and
 * the addresses' history was not backfilled, or retention dropped it) or when it is more than `max` transactions.
 */
import type { NormalizedTx } from '../core/model.js';
import type { Db } from '../store/db.js';
import { getCheckpoint } from '../store/chain.js';
import { addressTransactionsPage, transactionPosition } from '../store/chain-reads.js';
import { getIndexOrigin } from '../store/coverage.js';
import { getBackfills } from '../store/backfill.js';
import { retainedFrom } from '../store/partitions.js';
import { fetchTransactions, placeInBlocks } from '../sources/address-history.js';
import type { RpcClient } from '../sources/rpc-client.js';
import type { TransactionHistory } from '../core/transaction-filter.js';

export function createTransactionHistory(o: { db: Db; client: RpcClient; commitment: 'confirmed' | 'finalized'; concurrency?: number; max?: number }): TransactionHistory {
  const max = o.max ?? 10_000;
  return async (filter, fromSlot) => {
    const upTo = (await getCheckpoint(o.db)) ?? -1;
    const origin = await getIndexOrigin(o.db);
    const addresses = filter.accountInclude.size ? [...filter.accountInclude] : filter.accountRequired.slice(0, 1);
    if (origin !== null && origin > fromSlot && origin > 0) {
      const done = await getBackfills(o.db, addresses);
      const missing = addresses.filter((a) => done.get(a)?.status !== 'done');
      if (filter.signature !== undefined || missing.length)
        throw new Error(`Invalid params: the index holds transactions from slot ${origin} on${missing.length ? ` (the history of ${missing[0]} was not read back)` : ''}: resume from slot ${origin} or later`);
    }
    // Retention dropped the history below `kept` (docs/storage.md).
    const kept = await retainedFrom(o.db, 'history');
    if (kept !== null && kept > fromSlot) throw new Error(`Invalid params: the index keeps transactions from slot ${kept} on (retention): resume from slot ${kept} or later`);
    const found = new Map<string, { slot: number; index: number }>();
    if (filter.signature !== undefined) {
      const at = await transactionPosition(o.db, filter.signature);
      if (at && at.slot >= fromSlot && at.slot <= upTo) found.set(filter.signature, at);
    } else
      for (const address of addresses) {
        let after: { slot: number; index: number } | undefined;
        for (;;) {
          const page = await addressTransactionsPage(o.db, { address, desc: false, limit: 1000, after, slot: { gte: fromSlot, lte: upTo }, status: 'any', relations: [1] });
          for (const r of page.rows) found.set(r.signature, { slot: r.slot, index: r.txIndex });
          if (found.size > max) throw new Error(`Invalid params: more than ${max} transactions since slot ${fromSlot}: resume from a later slot`);
          if (!page.more || !page.rows.length) break;
          const last = page.rows[page.rows.length - 1];
          after = { slot: last.slot, index: last.txIndex };
        }
      }
    const signatures = [...found.keys()];
    const txs = await fetchTransactions(o.client, signatures, { commitment: o.commitment, concurrency: o.concurrency });
    const gone = txs.findIndex((t) => t === null);
    if (gone >= 0) throw new Error(`Invalid params: the cluster no longer serves transaction ${signatures[gone]}: resume from a later slot`);
    return { upTo, transactions: await placeInBlocks(o.client, txs as NormalizedTx[], { commitment: o.commitment, concurrency: o.concurrency }) };
  };
}
