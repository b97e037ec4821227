/**
 * Writes BlockUpdates atomically: all rows of each update and the checkpoint in ONE SQL transaction, each table
 * family through its own guarded writer. Several updates may share a transaction (catch-up batches); each
 * update stays all-or-nothing either way.
 */
import type { Db, Queryable } from './db.js';
import { emptyUpdate, type BlockUpdate } from './block-update.js';
import { advanceCheckpoint, writeAddressLinks, writeBlocks, writeTransactions } from './chain.js';
import {
  writeMints,
  writeSolBalances,
  writeSupplyChanges,
  writeTokenAccounts,
  writeTokenExtensions,
} from './tokens.js';
import { writeFunding, writeTransfers } from './wallet-activity.js';
import { writeNameRecords } from './identities.js';
import { dedupeBy } from './bulk.js';

/** Concatenates updates into one (rows keep their own positions, so merging is order-safe). */
export function mergeUpdates(updates: BlockUpdate[]): BlockUpdate {
  if (updates.length === 1) return updates[0];
  const slots = updates.flatMap((u) => (u.slot === null ? [] : [u.slot]));
  const out = emptyUpdate(slots.length ? Math.max(...slots) : null);

  for (const u of updates) {
    out.transactions.push(...u.transactions);
    out.addressLinks.push(...u.addressLinks);
    out.solBalances.push(...u.solBalances);
    out.mints.push(...u.mints);
    out.supplyChanges.push(...u.supplyChanges);
    out.tokenAccounts.push(...u.tokenAccounts);
    out.tokenExtensions.push(...u.tokenExtensions);
    out.transfers.push(...u.transfers);
    out.funding.push(...u.funding);
    out.nameRecords.push(...u.nameRecords);
  }
  return out;
}

async function writeUpdateRows(q: Queryable, u: BlockUpdate, blocks: BlockUpdate[]): Promise<void> {
  // Not waiting for the WAL flush is safe here: the checkpoint commits with the rows, so after a crash the
  // ingester resumes from the last durable checkpoint and re-writes (idempotently) whatever was lost.
  await q.query('SET LOCAL synchronous_commit = off');
  await writeBlocks(q, blocks.flatMap((b) => (b.block ? [b.block] : [])));
  await writeTransactions(q, dedupeBy(u.transactions, (t) => t.signature, (a, b) => a.hasMeta || !b.hasMeta));
  await writeAddressLinks(q, dedupeLinks(u));
  await writeSolBalances(q, u.solBalances);
  await writeMints(q, u.mints);
  await writeSupplyChanges(q, u.supplyChanges);
  await writeTokenAccounts(q, u.tokenAccounts);
  await writeTokenExtensions(q, u.tokenExtensions);
  await writeTransfers(q, u.transfers);
  await writeFunding(q, u.funding);
  await writeNameRecords(q, u.nameRecords);
  if (u.slot !== null) await advanceCheckpoint(q, u.slot);
}

/** Links of the same (address, tx) from several inputs collapse to the strongest relation. */
function dedupeLinks(u: BlockUpdate) {
  const m = new Map<string, BlockUpdate['addressLinks'][number]>();
  for (const l of u.addressLinks) {
    const k = `${l.address}|${l.signature}`;
    const cur = m.get(k);
    if (!cur) m.set(k, l);
    else m.set(k, { ...cur, relation: Math.min(cur.relation, l.relation) as 1 | 2 | 3, changes: cur.changes ?? l.changes });
  }
  return [...m.values()];
}

/** Writes one or more updates in a single transaction, checkpoint included. */
export async function writeUpdates(db: Db, updates: BlockUpdate[]): Promise<void> {
  if (!updates.length) return;
  const merged = mergeUpdates(updates);
  await db.tx((q) => writeUpdateRows(q, merged, updates));
}
