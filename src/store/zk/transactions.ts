/**
 * Table family "compression transactions": zk_transactions (signature, slot, block time, uses_compression, error),
 * the account-hash ↔ transaction links (zk_account_transactions) and the signature lists derived from them
 * (zk_signature_index: by owner, token owner and address), as Photon's transactions / account_transactions and
 * its signature searches (src/api/method/utils.rs `search_for_signatures`).
 *
 * Every list is newest first — slot desc, then signature bytes desc — paged by the cursor slot ‖ signature, and
 * walks one index backwards. The derived lists are filled from both sides: when links are written (for accounts
 * already stored) and when accounts are written (for links already stored), so neither arrival order loses a row.
 */
import type { Queryable } from '../db.js';
import type { Statement } from '../bulk.js';
import type { ZkAccount, ZkAccountTransactionRow, ZkPage, ZkSignatureInfo, ZkTransactionRow } from './types.js';
import { b58, b58array, b58buf, b58hex, numOrNull } from './codec.js';
import { mergeBy, unnestFrom, type Col } from './unnest.js';
import { checkLimit, decodeSignatureCursor, encodeSignatureCursor } from './cursors.js';
import { ACCOUNT_SELECT, toAccount } from './accounts.js';
import { getCheckpoint } from '../chain.js';

const TX_COLS: Col<ZkTransactionRow>[] = [
  { name: 'signature', type: 'bytea', get: (r) => b58hex(r.signature) },
  { name: 'slot', type: 'bigint', get: (r) => r.slot },
  { name: 'block_time', type: 'bigint', get: (r) => r.blockTime },
  { name: 'uses_compression', type: 'boolean', get: (r) => r.usesCompression },
  { name: 'error', type: 'text', get: (r) => r.error },
];

/**
 * Records transactions. A signature keeps its first slot; uses_compression only turns on, error and block time are
 * filled when missing — so the same transaction written twice (or by two sources) converges. Null without rows.
 */
export function transactionsStatement(rows: readonly ZkTransactionRow[]): Statement | null {
  const txs = mergeBy(rows, (r) => r.signature, (a, b) => ({
    ...a,
    usesCompression: a.usesCompression || b.usesCompression,
    error: a.error ?? b.error,
    blockTime: a.blockTime ?? b.blockTime,
  }));
  if (!txs.length) return null;
  const u = unnestFrom('u', TX_COLS, txs);
  const names = TX_COLS.map((c) => c.name).join(', ');
  return {
    sql: `INSERT INTO zk_transactions AS t (${names}) SELECT ${names} FROM ${u.sql}
          ON CONFLICT (signature) DO UPDATE SET uses_compression = t.uses_compression OR EXCLUDED.uses_compression,
            error = COALESCE(t.error, EXCLUDED.error), block_time = COALESCE(t.block_time, EXCLUDED.block_time)
          WHERE (EXCLUDED.uses_compression AND NOT t.uses_compression)
             OR (t.error IS NULL AND EXCLUDED.error IS NOT NULL)
             OR (t.block_time IS NULL AND EXCLUDED.block_time IS NOT NULL)`,
    params: u.params,
  };
}

const LINK_COLS: Col<ZkAccountTransactionRow>[] = [
  { name: 'hash', type: 'bytea', get: (r) => b58hex(r.hash) },
  { name: 'signature', type: 'bytea', get: (r) => b58hex(r.signature) },
  { name: 'slot', type: 'bigint', get: (r) => r.slot },
  { name: 'opened', type: 'boolean', get: (r) => r.opened },
  { name: 'closed', type: 'boolean', get: (r) => r.closed },
];

/** Records account ↔ transaction links (opened / closed flags only turn on). Null without rows. */
export function accountTransactionsStatement(rows: readonly ZkAccountTransactionRow[]): Statement | null {
  const links = mergeBy(rows, (r) => `${r.hash}|${r.signature}`, (a, b) => ({
    ...a,
    opened: a.opened || b.opened,
    closed: a.closed || b.closed,
  }));
  if (!links.length) return null;
  const u = unnestFrom('u', LINK_COLS, links);
  const names = LINK_COLS.map((c) => c.name).join(', ');
  return {
    sql: `INSERT INTO zk_account_transactions AS t (${names}) SELECT ${names} FROM ${u.sql}
          ON CONFLICT (hash, signature) DO UPDATE SET opened = t.opened OR EXCLUDED.opened, closed = t.closed OR EXCLUDED.closed
          WHERE (EXCLUDED.opened AND NOT t.opened) OR (EXCLUDED.closed AND NOT t.closed)`,
    params: u.params,
  };
}

/** zk_signature_index.kind codes. */
export const SIGNATURE_KIND = { owner: 1, tokenOwner: 2, address: 3 } as const;
export type SignatureListKind = keyof typeof SIGNATURE_KIND;

/**
 * Derives the signature-list rows of these account hashes: every link of a hash, listed under the account's owner,
 * its address and its token owner. Run after the batch's accounts and links. Null without hashes.
 */
export function signatureIndexStatement(hashes: Iterable<string>): Statement | null {
  const uniq = [...new Set(hashes)];
  if (!uniq.length) return null;
  return {
    sql: `INSERT INTO zk_signature_index (kind, key, slot, signature)
          SELECT x.kind, x.key, l.slot, l.signature
            FROM (SELECT DISTINCT unnest($1::bytea[]) AS hash) h
            JOIN zk_account_transactions l ON l.hash = h.hash
            JOIN LATERAL (
              SELECT ${SIGNATURE_KIND.owner}::smallint AS kind, a.owner AS key FROM zk_accounts a
               WHERE a.hash = h.hash AND a.owner IS NOT NULL
              UNION ALL
              SELECT ${SIGNATURE_KIND.address}::smallint, a.address FROM zk_accounts a
               WHERE a.hash = h.hash AND a.address IS NOT NULL
              UNION ALL
              SELECT ${SIGNATURE_KIND.tokenOwner}::smallint, k.owner FROM zk_token_accounts k WHERE k.hash = h.hash
            ) x ON true
          ON CONFLICT DO NOTHING`,
    params: [b58array(uniq)],
  };
}

// ---------------------------------------------------------------------------------------------- reads

const I64_MAX = 9223372036854775807n;

/** Options of a signature list page. */
export interface SignaturePageOpts {
  /** Photon cursor: base58 of slot (u64 LE) ‖ signature of the last item of the previous page. */
  cursor?: string | null;
  limit: number;
}

function toSig(r: Record<string, unknown>): ZkSignatureInfo {
  return { signature: b58(r.signature), slot: Number(r.slot), blockTime: numOrNull(r.block_time), error: (r.error as string | null) ?? null };
}

function page(rows: Record<string, unknown>[], limit: number): ZkPage<ZkSignatureInfo> {
  const last = rows[rows.length - 1];
  return {
    items: rows.map(toSig),
    cursor: rows.length < limit || !last ? null : encodeSignatureCursor(BigInt(last.slot as number), last.signature as Uint8Array),
  };
}

/** `(slot, signature) < cursor` for a newest-first page, with its parameters appended to `params`. */
function cursorBound(cols: [string, string], cursor: string | null | undefined, params: unknown[]): string | null {
  if (cursor === undefined || cursor === null) return null;
  const c = decodeSignatureCursor(cursor);
  params.push((c.slot > I64_MAX ? I64_MAX : c.slot).toString(), Buffer.from(c.signature));
  return `(${cols[0]}, ${cols[1]}) < ($${params.length - 1}::bigint, $${params.length}::bytea)`;
}

/** SQL of one page of a derived signature list (by owner, token owner or address): exposed for EXPLAIN. */
export function signatureListQuery(kind: SignatureListKind, key: string, opts: SignaturePageOpts): { sql: string; params: unknown[] } {
  checkLimit(opts.limit);
  const params: unknown[] = [SIGNATURE_KIND[kind], b58buf(key)];
  const where = ['s.kind = $1', 's.key = $2'];
  const bound = cursorBound(['s.slot', 's.signature'], opts.cursor, params);
  if (bound) where.push(bound);
  return {
    sql: `SELECT s.slot, s.signature, t.block_time, t.error
            FROM zk_signature_index s LEFT JOIN zk_transactions t ON t.signature = s.signature
           WHERE ${where.join(' AND ')}
           ORDER BY s.slot DESC, s.signature DESC LIMIT ${Math.trunc(opts.limit)}`,
    params,
  };
}

/**
 * One page of the signatures touching accounts owned by `key` (getCompressionSignaturesForOwner), token accounts
 * owned by `key` (…ForTokenOwner) or accounts at address `key` (…ForAddress), spent accounts included.
 */
export async function getSignaturesFor(q: Queryable, kind: SignatureListKind, key: string, opts: SignaturePageOpts): Promise<ZkPage<ZkSignatureInfo>> {
  const { sql, params } = signatureListQuery(kind, key, opts);
  const { rows } = await q.query<Record<string, unknown>>(sql, params);
  return page(rows, opts.limit);
}

/** The signatures of one account hash (its creation and its spend), newest first (getCompressionSignaturesForAccount). */
export async function getSignaturesForAccount(q: Queryable, hash: string): Promise<ZkSignatureInfo[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT l.slot, l.signature, t.block_time, t.error
       FROM zk_account_transactions l LEFT JOIN zk_transactions t ON t.signature = l.signature
      WHERE l.hash = $1 ORDER BY l.slot DESC, l.signature DESC`,
    [b58buf(hash)],
  );
  return rows.map(toSig);
}

/** SQL of one page of the latest transactions (all, or compression only): exposed for EXPLAIN. */
export function latestSignaturesQuery(opts: SignaturePageOpts & { onlyCompression: boolean }): { sql: string; params: unknown[] } {
  checkLimit(opts.limit);
  const params: unknown[] = [];
  const where: string[] = [];
  if (opts.onlyCompression) where.push('t.uses_compression');
  const bound = cursorBound(['t.slot', 't.signature'], opts.cursor, params);
  if (bound) where.push(bound);
  return {
    sql: `SELECT t.slot, t.signature, t.block_time, t.error FROM zk_transactions t
          ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
          ORDER BY t.slot DESC, t.signature DESC LIMIT ${Math.trunc(opts.limit)}`,
    params,
  };
}

/** One page of the latest transactions (getLatestCompressionSignatures / getLatestNonVotingSignatures). */
export async function getLatestSignatures(q: Queryable, opts: SignaturePageOpts & { onlyCompression: boolean }): Promise<ZkPage<ZkSignatureInfo>> {
  const { sql, params } = latestSignaturesQuery(opts);
  const { rows } = await q.query<Record<string, unknown>>(sql, params);
  return page(rows, opts.limit);
}

/** Stored transactions by signature. */
export async function getTransactions(q: Queryable, signatures: readonly string[]): Promise<Map<string, ZkTransactionRow>> {
  const out = new Map<string, ZkTransactionRow>();
  if (!signatures.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(
    'SELECT signature, slot, block_time, uses_compression, error FROM zk_transactions WHERE signature = ANY($1::bytea[])',
    [b58array(signatures)],
  );
  for (const r of rows) {
    const t = { signature: b58(r.signature), slot: Number(r.slot), blockTime: numOrNull(r.block_time), usesCompression: r.uses_compression as boolean, error: (r.error as string | null) ?? null };
    out.set(t.signature, t);
  }
  return out;
}

/**
 * The accounts a transaction created (opened) and consumed (closed), from its links, each in (tree, leaf index)
 * order. Accounts not stored (or only known from a spend) are left out.
 */
export async function getTransactionAccounts(q: Queryable, signature: string): Promise<{ opened: ZkAccount[]; closed: ZkAccount[] }> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT l.opened AS l_opened, l.closed AS l_closed, ${ACCOUNT_SELECT}
       FROM zk_account_transactions l JOIN zk_accounts a ON a.hash = l.hash
      WHERE l.signature = $1 AND a.owner IS NOT NULL ORDER BY a.tree, a.leaf_index`,
    [b58buf(signature)],
  );
  const opened: ZkAccount[] = [];
  const closed: ZkAccount[] = [];
  for (const r of rows) {
    if (r.l_opened) opened.push(toAccount(r));
    if (r.l_closed) closed.push(toAccount(r));
  }
  return { opened, closed };
}

/** SQL of {@link pruneNonCompressionTransactions} (both steps walk zk_transactions_non_compression_idx): exposed for EXPLAIN. */
export function pruneNonCompressionQuery(keep: number): { sql: string; params: unknown[] } {
  return {
    sql: `WITH edge AS (
       SELECT slot, signature FROM zk_transactions WHERE NOT uses_compression
        ORDER BY slot DESC, signature DESC OFFSET $1 LIMIT 1
     ), del AS (
       DELETE FROM zk_transactions t USING edge
        WHERE NOT t.uses_compression AND (t.slot, t.signature) <= (edge.slot, edge.signature)
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM del`,
    params: [Math.max(0, Math.trunc(keep))],
  };
}

/**
 * Keeps only the newest `keep` non-compression transactions (Photon keeps its page limit, 1000, for
 * getLatestNonVotingSignatures). The kept set depends only on what was written, not on the order.
 */
export async function pruneNonCompressionTransactions(q: Queryable, keep = 1000): Promise<number> {
  const { sql, params } = pruneNonCompressionQuery(keep);
  const { rows } = await q.query<{ n: number }>(sql, params);
  return rows[0].n;
}

/**
 * The slot the indexer has committed: the chain checkpoint, which moves in the same transaction as the ZK rows of
 * each block (Photon's getIndexerSlot; null before anything was ingested).
 */
export const getIndexerSlot: (q: Queryable) => Promise<number | null> = getCheckpoint;
