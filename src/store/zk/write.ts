/**
 * Writes a {@link ZkWrite} inside the caller's transaction (the block's one SQL transaction, next to the other
 * families' rows and the checkpoint). The statements run in a fixed order, each bulk (unnest) and guarded:
 *
 * 1. batch events, state nodes, indexed elements, transactions, links (independent tables: one combined statement);
 * 2. accounts + token rows + balance increments (one statement);
 * 3. spends + balance decrements (one statement) — after 2, so a spend finds an account created in the same batch;
 * 4. queue flags of the batch's events, address-queue inserts and the entries its address appends consumed;
 * 5. signature lists of every account hash the batch created or linked.
 *
 * Applying the same ZkWrite twice, applying earlier ones again later, or merging several into one
 * ({@link mergeZkWrites}) gives identical tables. A glue that must read the tables between steps (e.g. to compute a
 * batch append's tree nodes from the queued accounts) can split one update into several calls in the same
 * transaction: every statement is idempotent and does not depend on which call carries its rows.
 */
import type { Queryable } from '../db.js';
import { combineStatements, run, type Statement } from '../bulk.js';
import type { ZkWrite } from './types.js';
import { accountsStatement, queueFlagStatements, spendsStatement } from './accounts.js';
import { batchEventsStatement } from './batch-events.js';
import { stateNodesStatement } from './state-tree.js';
import { addressQueueConsumedStatement, addressQueueStatement, indexedElementsStatement } from './indexed-tree.js';
import { accountTransactionsStatement, signatureIndexStatement, transactionsStatement } from './transactions.js';

const present = (s: (Statement | null)[]): Statement[] => s.filter((x): x is Statement => x !== null);

/** The statements of a ZkWrite in the order they must run (see the module comment). */
export function zkStatements(w: ZkWrite): Statement[] {
  const first = present([
    batchEventsStatement(w.batchEvents),
    stateNodesStatement(w.stateNodes),
    indexedElementsStatement(w.indexedElements),
    transactionsStatement(w.transactions),
    accountTransactionsStatement(w.accountTransactions),
  ]);
  return present([
    first.length > 1 ? combineStatements(first) : (first[0] ?? null),
    accountsStatement(w.accounts),
    spendsStatement(w.spends),
    ...queueFlagStatements(w.batchEvents),
    addressQueueStatement(w.addressQueue),
    addressQueueConsumedStatement(w.batchEvents),
    signatureIndexStatement([...w.accounts.map((a) => a.hash), ...w.accountTransactions.map((l) => l.hash)]),
  ]);
}

/** Writes the ZK rows of a block (or batch) through `q`, which must be a transaction. */
export async function writeZk(q: Queryable, w: ZkWrite): Promise<void> {
  for (const s of zkStatements(w)) await run(q, s);
}
