/**
 * Writes BlockUpdates atomically: all rows of each update and the checkpoint in ONE SQL transaction, each table
 * family through its own guarded writer. Several updates may share a transaction (catch-up batches); each
 * update stays all-or-nothing either way.
 */
import type { Db, Queryable } from './db.js';
import { emptyUpdate, type AddressLinkRow, type BlockUpdate } from './block-update.js';
import { blocksStatement, checkpointStatement, transactionsStatement } from './chain.js';
import { addressLinksCopies, addressLinksStatements } from './address-links.js';
import {
  mintsStatement,
  solBalancesStatement,
  supplyChangesStatement,
  tokenAccountsStatement,
  tokenExtensionsStatement,
} from './tokens.js';
import { fundingStatement, transfersStatement } from './wallet-activity.js';
import { writeNameRecords } from './identities.js';
import { writeAssetAccounts } from './asset-accounts.js';
import { writeCnft } from './cnft.js';
import { combineStatements, dedupeBy, type Statement } from './bulk.js';
import { editionMintsStatement } from './editions.js';
import { dirtyStatement } from './das-index.js';
import { pythPricesStatement, swapPricesStatement } from './prices.js';

/** The row lists of a BlockUpdate (every field but `block` and `slot`). */
type RowField = Exclude<keyof BlockUpdate, 'block' | 'slot'>;
const ROW_FIELDS = Object.keys(emptyUpdate(null)).filter((k): k is RowField => k !== 'block' && k !== 'slot');

/**
 * Concatenates updates into one (rows keep their own positions, so merging is order-safe). By `concat`, which copies
 * each list's elements in bulk: pushing them one by one (`push(...list)`) into the merged list, which outgrows the
 * young generation (a batch of 8 mainnet blocks has ~66k links) and so is written through the generational write
 * barrier per element, took 3-4x the time (11 against 3 ms for a batch of 8 mainnet blocks).
 */
export function mergeUpdates(updates: BlockUpdate[]): BlockUpdate {
  if (updates.length === 1) return updates[0];
  const slots = updates.flatMap((u) => (u.slot === null ? [] : [u.slot]));
  const out = emptyUpdate(slots.length ? Math.max(...slots) : null);
  const into = out as unknown as Record<RowField, unknown[]>;
  for (const k of ROW_FIELDS) into[k] = ([] as unknown[]).concat(...updates.map((u) => u[k]));
  return out;
}

/**
 * The BlockUpdate fields `coreStatements` writes. An update whose other row lists are all empty is written as one
 * combined statement (see `writeUpdates`); anything else goes through `writeUpdateRows` in a transaction block.
 */
const CORE_FIELDS: ReadonlySet<string> = new Set([
  'block', 'slot', 'transactions', 'addressLinks', 'solBalances', 'mints', 'supplyChanges', 'tokenAccounts',
  'tokenExtensions', 'transfers', 'funding', 'pythPrices', 'swapPrices',
]);

/**
 * Fewest new address links written by COPY rather than in the plain statement (a mainnet block has about 8,000).
 * COPY takes about half of PostgreSQL's time for the links of a batch (0.51x for 8 blocks' 66k links in psql; 0.70x
 * of the server CPU of a 50-block replay), but needs a transaction of its own (BEGIN, COPY, the statement, COMMIT
 * instead of one round trip); for a single live block the one statement kept the tail of the block write lower in
 * the webhooks bench (block write p99 268-296 ms against 413-740 ms with COPY, two runs each, docs/benchmarks.md).
 */
export const COPY_MIN_LINKS = 10_000;

/**
 * The guarded inserts of the chain, token, wallet-activity and price families, and the checkpoint. `fresh`: the
 * address links and wallet transfers as plain inserts (see `writeUpdates`). `links`: the address links to insert
 * (none when they go by COPY).
 */
function coreStatements(u: BlockUpdate, blocks: BlockUpdate[], fresh = false, links: AddressLinkRow[] = dedupeLinks(u)): Statement[] {
  const stmts = [
    blocksStatement(blocks.flatMap((b) => (b.block ? [b.block] : []))),
    transactionsStatement(dedupeBy(u.transactions, (t) => t.signature, (a, b) => a.hasMeta || !b.hasMeta), fresh),
    ...addressLinksStatements(links, fresh),
    solBalancesStatement(u.solBalances),
    mintsStatement(u.mints),
    supplyChangesStatement(u.supplyChanges),
    tokenAccountsStatement(u.tokenAccounts),
    tokenExtensionsStatement(u.tokenExtensions),
    transfersStatement(u.transfers, fresh),
    fundingStatement(u.funding),
    pythPricesStatement(u.pythPrices),
    swapPricesStatement(u.swapPrices),
    u.slot !== null ? checkpointStatement(u.slot) : null,
  ];
  return stmts.filter((s): s is Statement => s !== null);
}

async function writeUpdateRows(q: Queryable, u: BlockUpdate, blocks: BlockUpdate[], extra: Statement[] = []): Promise<void> {
  // Not waiting for the WAL flush is safe here: the checkpoint commits with the rows, so after a crash the
  // ingester resumes from the last durable checkpoint and re-writes (idempotently) whatever was lost.
  await q.query('SET LOCAL synchronous_commit = off');
  let written = false;
  if (tryFresh(u, blocks)) {
    // A savepoint, so that a unique violation leaves the transaction usable for the guarded statement.
    await q.query('SAVEPOINT fresh_rows');
    try {
      await writeFresh(q, u, blocks, extra);
      written = true;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      await q.query('ROLLBACK TO SAVEPOINT fresh_rows');
    }
    await q.query('RELEASE SAVEPOINT fresh_rows');
  }
  if (!written) {
    const guarded = [...coreStatements(u, blocks), ...extra];
    if (guarded.length) {
      const all = combineStatements(guarded);
      await q.query(all.sql, all.params);
    }
  }
  await writeNameRecords(q, u.nameRecords);
  await writeAssetAccounts(q, u.assetAccounts);
  await writeCnft(q, { assets: u.cnftAssets, nodes: u.cnftNodes, signatures: u.cnftSignatures });
}

/**
 * Addresses whose rows this update changes that may describe DAS assets (the asset-index refresher resolves them
 * to asset ids): asset-program accounts and their assets, compressed NFTs, mints, token accounts (by mint when
 * known) and Token-2022 extension targets.
 */
export function dirtyKeys(u: BlockUpdate): Set<string> {
  const keys = new Set<string>();
  for (const a of u.assetAccounts) {
    keys.add(a.address);
    if (a.assetId) keys.add(a.assetId);
  }
  for (const c of u.cnftAssets) keys.add(c.assetId);
  for (const m of u.mints) keys.add(m.address);
  for (const s of u.supplyChanges) keys.add(s.mint);
  for (const t of u.tokenAccounts) keys.add(t.mint ?? t.address);
  for (const e of u.tokenExtensions) keys.add(e.target);
  return keys;
}

/**
 * Links of the same (address, tx) from several inputs collapse to the strongest relation (the written flag: the later
 * known one, as the SQL merge). A tx is its (slot, position), the table's key (migration 040). Kept in the order of
 * each key's first link. Keyed per transaction by address alone (a map per (slot, position), the last one reused
 * while consecutive links share it, as a block's do) rather than by a composed string: a batch of 8 mainnet blocks
 * has ~66k links, and building and hashing one key string per link was the ingest thread's largest single cost.
 */
function dedupeLinks(u: BlockUpdate) {
  type Link = BlockUpdate['addressLinks'][number];
  if (linksAreDistinct(u.addressLinks)) return u.addressLinks;
  const out: Link[] = [];
  const bySlot = new Map<number, Map<number, Map<string, number>>>();
  let lastSlot = NaN;
  let lastIndex = NaN;
  let at: Map<string, number> | undefined;
  for (const l of u.addressLinks) {
    if (l.slot !== lastSlot || l.txIndex !== lastIndex || !at) {
      let byIndex = bySlot.get(l.slot);
      if (!byIndex) bySlot.set(l.slot, (byIndex = new Map()));
      at = byIndex.get(l.txIndex);
      if (!at) byIndex.set(l.txIndex, (at = new Map()));
      lastSlot = l.slot;
      lastIndex = l.txIndex;
    }
    const i = at.get(l.address);
    if (i === undefined) {
      at.set(l.address, out.length);
      out.push(l);
    } else {
      const cur = out[i];
      out[i] = { ...cur, relation: Math.min(cur.relation, l.relation) as 1 | 2 | 3, changes: cur.changes ?? l.changes, writable: l.writable ?? cur.writable };
    }
  }
  return out;
}

/**
 * Whether no two links share a key, checked the way a batch of folded blocks has them: each transaction's links
 * consecutive (no position met again after another one), and no address twice among them. Then there is nothing
 * to collapse (the usual case: the fold makes one link per address of a transaction, and a batch's blocks are
 * distinct), and the check costs a comparison of the addresses within each transaction (hashed strings, mostly
 * unequal) and one set entry per transaction instead of a map entry per link.
 */
function linksAreDistinct(links: readonly AddressLinkRow[]): boolean {
  const positions = new Map<number, Set<number>>();
  let start = 0;
  while (start < links.length) {
    const { slot, txIndex } = links[start];
    let end = start + 1;
    while (end < links.length && links[end].slot === slot && links[end].txIndex === txIndex) end++;
    let seen = positions.get(slot);
    if (!seen) positions.set(slot, (seen = new Set()));
    if (seen.has(txIndex)) return false;
    seen.add(txIndex);
    for (let a = start + 1; a < end; a++) {
      const address = links[a].address;
      for (let b = start; b < a; b++) if (links[b].address === address) return false;
    }
    start = end;
  }
  return true;
}

/**
 * Writes one or more updates inside the caller's transaction `q` (checkpoint included), for a caller that writes
 * other families' rows (the ZK tables) in the same transaction.
 */
export async function writeUpdatesInTx(q: Queryable, updates: BlockUpdate[]): Promise<void> {
  if (!updates.length) return;
  const merged = mergeUpdates(updates);
  const extra = [await editionMintsStatement(merged.mints), dirtyStatement(dirtyKeys(merged))].filter((s): s is Statement => s !== null);
  await writeUpdateRows(q, merged, updates, extra);
}

/** A statement as the first, plain try of new rows runs it: its `plainSql` where it has one. */
const plain = (s: Statement): Statement => (s.plainSql ? { sql: s.plainSql, params: s.params, copy: s.copy } : s);

/**
 * The first, plain try of new rows in the transaction `q`: with {@link COPY_MIN_LINKS} links or more (a batch of
 * blocks) and a transaction that can COPY, the links and every plain statement that has a COPY form
 * (`Statement.copy`: transactions, wallet transfers, priority-fee samples) go by COPY — about half of PostgreSQL's
 * time for the same rows (docs/benchmarks.md#replay) — and the rest as one statement; otherwise all of it as one
 * statement. A stored key fails it with a unique violation, as the plain statement would.
 */
async function writeFresh(
  q: Queryable, u: BlockUpdate, blocks: BlockUpdate[], extra: Statement[], opts: { asyncCommit?: boolean } = {}, links = dedupeLinks(u),
): Promise<void> {
  const copying = q.copyFrom !== undefined && links.length >= COPY_MIN_LINKS;
  const copies = copying ? addressLinksCopies(links) : [];
  const rest: Statement[] = [];
  for (const s of [...coreStatements(u, blocks, true, copying ? [] : links), ...extra.map(plain)]) {
    if (copying && s.copy) copies.push(s.copy());
    else rest.push(s);
  }
  for (const c of copies) await q.copyFrom?.(c.table, c.columns, c.text);
  if (rest.length) {
    const one = combineStatements(rest, opts);
    await q.query(one.sql, one.params);
  }
}

/** PostgreSQL's unique_violation (both drivers report the SQLSTATE as `code`). */
function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}

/**
 * Whether to write the address links and wallet transfers (and the rows of further statements that have a plain
 * form, `Statement.plainSql`: the priority-fee samples) as plain inserts first: for whole blocks that move the
 * checkpoint (live, replay), whose rows are normally not stored yet. If any of them is (a block written again, a
 * concurrent writer) the plain statement fails as a whole with a unique violation, nothing of it is kept, and the
 * same rows are written with the guarded statement: the stored result is the guarded one's either way, and a
 * conflict costs one statement more (and a "duplicate key" ERROR line in PostgreSQL's log). The plain insert skips ON CONFLICT's speculative insertion: the combined
 * statement of 8 real blocks took 0.66x the time of the guarded one in ten alternating runs (docs/benchmarks.md#replay).
 */
function tryFresh(merged: BlockUpdate, updates: BlockUpdate[]): boolean {
  return merged.addressLinks.length > 0 && updates.every((u) => u.block !== null && u.slot !== null);
}

/**
 * Writes one or more updates in a single transaction, checkpoint included. The common case (only the core
 * families have rows) is ONE statement: every insert a data-modifying CTE of it, so it commits atomically as its
 * own implicit transaction, in one round trip (which matters when the ingester decodes the next blocks on the
 * same event loop while this write runs). `more`: further guarded statements of other families (independent of
 * these tables' new rows) to commit with the update.
 * Whole blocks are tried with plain inserts first (`tryFresh`); with {@link COPY_MIN_LINKS} links or more (a batch
 * of blocks: catch-up, replay) the links and the other rows with a COPY form go by COPY and the rest as that one
 * statement, in one transaction (`writeFresh`).
 */
export async function writeUpdates(db: Db, updates: BlockUpdate[], more: Statement[] = []): Promise<void> {
  if (!updates.length) return;
  const merged = mergeUpdates(updates);
  const editionLinks = await editionMintsStatement(merged.mints);
  const dirty = dirtyStatement(dirtyKeys(merged));
  const extra = [editionLinks, dirty, ...more].filter((s): s is Statement => s !== null);
  const onlyCore = Object.entries(merged).every(([k, v]) => CORE_FIELDS.has(k) || !Array.isArray(v) || v.length === 0);
  if (onlyCore) {
    // Asynchronous commit is safe for the reason given in writeUpdateRows.
    if (tryFresh(merged, updates)) {
      try {
        const links = dedupeLinks(merged);
        if (links.length >= COPY_MIN_LINKS) {
          // The new links and the other rows that can go by COPY, in a transaction with the one statement of the rest.
          await db.tx((q) => writeFresh(q, merged, updates, extra, { asyncCommit: true }, links));
        } else {
          const one = combineStatements([...coreStatements(merged, updates, true, links), ...extra.map(plain)], { asyncCommit: true });
          await db.query(one.sql, one.params);
        }
        return;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
    const all = [...coreStatements(merged, updates), ...extra];
    if (all.length) {
      const one = combineStatements(all, { asyncCommit: true });
      await db.query(one.sql, one.params);
    }
    return;
  }
  await db.tx((q) => writeUpdateRows(q, merged, updates, extra));
}
