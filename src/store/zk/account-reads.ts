/**
 * Reads of the "compressed accounts" table family (zk_accounts, zk_token_accounts): accounts by hash, by address and
 * by owner, token accounts by owner/delegate or by hash, and a token account's balance — the lookups behind Photon's
 * account methods. Keyset pages follow Photon's orders and cursors; the page queries (`ownerAccountsQuery`,
 * `tokenAccountsQuery`) are exported on their own so their plans can be checked with EXPLAIN. The list methods read
 * their pages as JSON text written by the database (`ownerAccountsPageText`, `tokenAccountsPageText`: migration 041,
 * one row per page, plans kept per connection); the object pages serve the other readers and are what that text is
 * tested against. The writes of the same tables are in `accounts.ts`, which re-exports everything here for existing
 * importers.
 */
import type { Queryable } from '../db.js';
import { CHECKPOINT_SLOT_SQL } from '../chain.js';
import type { ZkAccount, ZkPage, ZkTokenAccount, TreeTypeCode } from './types.js';
import { asBytes, b58, b58array, b58buf, b58n, big, bytesOrNull, numOrNull } from './codec.js';
import { checkLimit, decodeHashCursor, decodeTokenAccountCursor, encodeHashCursor, encodeTokenAccountCursor } from './cursors.js';
import { TOKEN_STATE } from './token-state.js';

/** The zk_accounts columns {@link toAccount} reads, for queries over `zk_accounts a`. */
export const ACCOUNT_SELECT = `a.hash, a.address, a.owner, a.lamports, a.discriminator, a.data, a.data_hash, a.tree,
  a.queue, a.tree_type, a.leaf_index, a.seq, a.slot_created, a.spent, a.nullifier, a.tx_hash, a.nullifier_queue_index,
  a.in_output_queue, a.nullified_in_tree`;

/** A zk_accounts row (selected with {@link ACCOUNT_SELECT}) as a ZkAccount. */
export function toAccount(r: Record<string, unknown>): ZkAccount {
  return {
    hash: b58(r.hash),
    address: b58n(r.address),
    owner: b58(r.owner),
    lamports: big(r.lamports),
    data:
      r.data_hash === null || r.data_hash === undefined
        ? null
        : { discriminator: big(r.discriminator), data: bytesOrNull(r.data) ?? new Uint8Array(), dataHash: b58(r.data_hash) },
    tree: b58(r.tree),
    queue: b58(r.queue),
    treeType: Number(r.tree_type) as TreeTypeCode,
    leafIndex: Number(r.leaf_index),
    seq: numOrNull(r.seq),
    slotCreated: Number(r.slot_created),
    spent: r.spent as boolean,
    nullifier: b58n(r.nullifier),
    txHash: b58n(r.tx_hash),
    nullifierQueueIndex: numOrNull(r.nullifier_queue_index),
    inOutputQueue: r.in_output_queue as boolean,
    nullifiedInTree: r.nullified_in_tree as boolean,
  };
}

/** Which accounts a by-hash read returns: unspent only (the default, as Photon's reads), spent only, or both. */
export type SpentFilter = 'unspent' | 'spent' | 'any';
const spentSql = (f: SpentFilter) => (f === 'unspent' ? ' AND NOT a.spent' : f === 'spent' ? ' AND a.spent' : '');

/** Accounts by hash (spend markers, which have no creation data yet, are never returned). */
export async function getAccountsByHash(q: Queryable, hashes: readonly string[], spent: SpentFilter = 'unspent'): Promise<Map<string, ZkAccount>> {
  const out = new Map<string, ZkAccount>();
  if (!hashes.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${ACCOUNT_SELECT} FROM zk_accounts a WHERE a.hash = ANY($1::bytea[]) AND a.owner IS NOT NULL${spentSql(spent)}`,
    [b58array(hashes)],
  );
  for (const r of rows) {
    const a = toAccount(r);
    out.set(a.hash, a);
  }
  return out;
}

/** The unspent account at each address (Photon: getCompressedAccount / getMultipleCompressedAccounts by address). */
export async function getAccountsByAddress(q: Queryable, addresses: readonly string[]): Promise<Map<string, ZkAccount>> {
  const out = new Map<string, ZkAccount>();
  if (!addresses.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${ACCOUNT_SELECT} FROM zk_accounts a WHERE a.address = ANY($1::bytea[]) AND NOT a.spent AND a.address IS NOT NULL`,
    [b58array(addresses)],
  );
  for (const r of rows) {
    const a = toAccount(r);
    out.set(a.address!, a);
  }
  return out;
}

/** A memcmp filter on account data (offset in bytes). */
export interface DataFilter {
  offset: number;
  bytes: Uint8Array;
}

/** Options of {@link getAccountsByOwner}. */
export interface OwnerAccountsOpts {
  /** Photon cursor: the hash (base58) of the last account of the previous page. */
  cursor?: string | null;
  limit: number;
  filters?: readonly DataFilter[];
  /** Return only this window of each account's data. */
  dataSlice?: { offset: number; length: number } | null;
}

/**
 * SQL of one page of an owner's unspent accounts in Photon's order, leaf index then hash: exposed for EXPLAIN. The
 * cursor is the hash of the previous page's last account; the page continues after that account's (leaf index,
 * hash), so paging neither skips nor repeats an account (a cursor naming no stored account gives an empty page).
 */
export function ownerAccountsQuery(owner: string, opts: OwnerAccountsOpts): { sql: string; params: unknown[] } {
  checkLimit(opts.limit);
  const params: unknown[] = [b58buf(owner)];
  const where = ['a.owner = $1', 'NOT a.spent'];
  if (opts.cursor !== undefined && opts.cursor !== null) {
    params.push(Buffer.from(decodeHashCursor(opts.cursor)));
    where.push(`(a.leaf_index, a.hash) > (SELECT c.leaf_index, c.hash FROM zk_accounts c WHERE c.hash = $${params.length})`);
  }
  for (const f of opts.filters ?? []) {
    params.push(Buffer.from(f.bytes));
    where.push(`substring(a.data FROM ${Math.trunc(f.offset) + 1} FOR ${f.bytes.length}) = $${params.length}`);
  }
  let select = ACCOUNT_SELECT;
  if (opts.dataSlice) {
    const { offset, length } = opts.dataSlice;
    select = select.replace('a.data,', `substring(a.data FROM ${Math.trunc(offset) + 1} FOR ${Math.trunc(length)}) AS data,`);
  }
  return {
    sql: `SELECT ${select} FROM zk_accounts a WHERE ${where.join(' AND ')} ORDER BY a.leaf_index, a.hash LIMIT ${Math.trunc(opts.limit)}`,
    params,
  };
}

/** One page of an owner's unspent accounts (getCompressedAccountsByOwner[V2]). */
export async function getAccountsByOwner(q: Queryable, owner: string, opts: OwnerAccountsOpts): Promise<ZkPage<ZkAccount>> {
  const { sql, params } = ownerAccountsQuery(owner, opts);
  const { rows } = await q.query<Record<string, unknown>>(sql, params);
  const items = rows.map(toAccount);
  const last = rows[rows.length - 1];
  return { items, cursor: items.length < opts.limit || !last ? null : encodeHashCursor(last.hash as Uint8Array) };
}

/** Options of the token-account lists. */
export interface TokenAccountsOpts {
  mint?: string | null;
  /** Photon cursor: base58 of mint ‖ hash of the last item of the previous page. */
  cursor?: string | null;
  limit: number;
}

/** SQL of one page of token accounts by owner or delegate in (mint, hash) order: exposed for EXPLAIN. */
export function tokenAccountsQuery(by: 'owner' | 'delegate', key: string, opts: TokenAccountsOpts): { sql: string; params: unknown[] } {
  checkLimit(opts.limit);
  const params: unknown[] = [b58buf(key)];
  const where = [`k.${by} = $1`, 'NOT k.spent'];
  if (by === 'delegate') where.push('k.delegate IS NOT NULL');
  if (opts.mint !== undefined && opts.mint !== null) {
    params.push(b58buf(opts.mint));
    where.push(`k.mint = $${params.length}`);
  }
  if (opts.cursor !== undefined && opts.cursor !== null) {
    const c = decodeTokenAccountCursor(opts.cursor);
    params.push(Buffer.from(c.mint), Buffer.from(c.hash));
    where.push(`(k.mint, k.hash) > ($${params.length - 1}::bytea, $${params.length}::bytea)`);
  }
  return {
    sql: `SELECT ${ACCOUNT_SELECT}, k.owner AS t_owner, k.mint AS t_mint, k.amount AS t_amount, k.delegate AS t_delegate,
                 k.state AS t_state, k.tlv AS t_tlv, ${CHECKPOINT_SLOT_SQL} AS ctx_slot
            FROM zk_token_accounts k JOIN zk_accounts a ON a.hash = k.hash
           WHERE ${where.join(' AND ')} ORDER BY k.mint, k.hash LIMIT ${Math.trunc(opts.limit)}`,
    params,
  };
}

function toTokenAccount(r: Record<string, unknown>): ZkTokenAccount {
  return {
    account: toAccount(r),
    token: {
      mint: b58(r.t_mint),
      owner: b58(r.t_owner),
      amount: big(r.t_amount),
      delegate: b58n(r.t_delegate),
      state: Number(r.t_state) === TOKEN_STATE.frozen ? 'frozen' : 'initialized',
      tlv: bytesOrNull(r.t_tlv),
    },
  };
}

/** One page of unspent token accounts by token owner or delegate, optionally of one mint. */
export async function getTokenAccounts(q: Queryable, by: 'owner' | 'delegate', key: string, opts: TokenAccountsOpts): Promise<ZkPage<ZkTokenAccount>> {
  const { sql, params } = tokenAccountsQuery(by, key, opts);
  const { rows } = await q.query<Record<string, unknown>>(sql, params);
  const items = rows.map(toTokenAccount);
  const last = rows[rows.length - 1];
  return {
    items,
    cursor: items.length < opts.limit || !last ? null : encodeTokenAccountCursor(last.t_mint as Uint8Array, last.hash as Uint8Array),
    ...(last ? { slot: numOrNull(last.ctx_slot) } : {}),
  };
}

/**
 * One page as `zk_token_accounts_page` / `zk_owner_accounts_page` (migration 041) write it: the items as JSON text
 * whose keys are placeholders (`\x01` a key that recurs across rows, `\x02` one of the row's own) and their 32-byte
 * values in `keys`, in the same order; with Photon's cursor and the indexed slot read by the same statement.
 */
export interface PageText {
  /** The items' text, comma-separated, without the brackets ('' for an empty page). */
  items: string;
  keys: Uint8Array;
  count: number;
  cursor: string | null;
  /** Null before anything was indexed. */
  slot: number | null;
}

const NO_BYTES = Buffer.alloc(0);
/** Above every 32-byte mint. */
const ABOVE_MINTS = Buffer.alloc(33, 0xff);

/**
 * The statement of one page of token accounts by owner or delegate (the rows of {@link getTokenAccounts}, in the same
 * order, paged the same way) as text in the V1 or V2 account shape, through `zk_token_accounts_page`, whose plans
 * each connection keeps.
 */
export function tokenAccountsPageQuery(by: 'owner' | 'delegate', key: string, opts: TokenAccountsOpts, version: 'v1' | 'v2'): { sql: string; params: unknown[] } {
  checkLimit(opts.limit);
  const mint = opts.mint !== undefined && opts.mint !== null ? b58buf(opts.mint) : null;
  const c = opts.cursor !== undefined && opts.cursor !== null ? decodeTokenAccountCursor(opts.cursor) : null;
  return {
    sql: 'SELECT items, keys, n, last_key, ctx_slot FROM zk_token_accounts_page($1, $2, $3, $4, $5, $6, $7, $8)',
    params: [
      by === 'delegate', b58buf(key), mint ?? NO_BYTES, mint ?? ABOVE_MINTS, c ? Buffer.from(c.mint) : NO_BYTES, c ? Buffer.from(c.hash) : NO_BYTES,
      Math.trunc(opts.limit), version === 'v2',
    ],
  };
}

/** Photon's cursor of the last item's mint ‖ hash. */
const lastKeyCursor = (k: Uint8Array) => encodeTokenAccountCursor(k.subarray(0, k.length - 32), k.subarray(k.length - 32));

/** One page of unspent token accounts by token owner or delegate, written by the database (see {@link PageText}). */
export async function tokenAccountsPageText(q: Queryable, by: 'owner' | 'delegate', key: string, opts: TokenAccountsOpts, version: 'v1' | 'v2'): Promise<PageText> {
  const { sql, params } = tokenAccountsPageQuery(by, key, opts, version);
  return pageText(q, sql, params, opts.limit, lastKeyCursor);
}

/**
 * The statement of one page of an owner's unspent accounts (the rows of {@link getAccountsByOwner}, in the same order,
 * paged, filtered and sliced the same way) as text in the V1 or V2 account shape, through `zk_owner_accounts_page`,
 * whose plans each connection keeps.
 */
export function ownerAccountsPageQuery(owner: string, opts: OwnerAccountsOpts, version: 'v1' | 'v2'): { sql: string; params: unknown[] } {
  checkLimit(opts.limit);
  const filters = opts.filters ?? [];
  const slice = opts.dataSlice ?? null;
  return {
    sql: 'SELECT items, keys, n, last_key, ctx_slot FROM zk_owner_accounts_page($1, $2, $3::int[], $4::bytea[], $5, $6, $7, $8)',
    params: [
      b58buf(owner),
      opts.cursor !== undefined && opts.cursor !== null ? Buffer.from(decodeHashCursor(opts.cursor)) : null,
      `{${filters.map((f) => Math.trunc(f.offset)).join(',')}}`,
      `{${filters.map((f) => `"\\\\x${Buffer.from(f.bytes).toString('hex')}"`).join(',')}}`,
      slice ? Math.trunc(slice.offset) : null,
      slice ? Math.trunc(slice.length) : null,
      Math.trunc(opts.limit),
      version === 'v2',
    ],
  };
}

/** One page of an owner's unspent accounts, written by the database (see {@link PageText}). */
export async function ownerAccountsPageText(q: Queryable, owner: string, opts: OwnerAccountsOpts, version: 'v1' | 'v2'): Promise<PageText> {
  const { sql, params } = ownerAccountsPageQuery(owner, opts, version);
  return pageText(q, sql, params, opts.limit, encodeHashCursor);
}

async function pageText(q: Queryable, sql: string, params: unknown[], limit: number, cursorOf: (lastKey: Uint8Array) => string): Promise<PageText> {
  const { rows } = await q.query<{ items: string | null; keys: Uint8Array | null; n: number; last_key: Uint8Array | null; ctx_slot: unknown }>(sql, params);
  const r = rows[0];
  const count = Number(r.n);
  if (count > 0 && (r.items === null || r.keys === null || r.last_key === null)) throw new Error('a page of accounts: an account without owner, tree or queue');
  return {
    items: r.items ?? '',
    keys: r.keys ?? NO_BYTES,
    count,
    cursor: count < limit || count === 0 ? null : cursorOf(asBytes(r.last_key)),
    slot: numOrNull(r.ctx_slot),
  };
}

/** Token accounts by hash (with their accounts), unspent by default. */
export async function getTokenAccountsByHash(q: Queryable, hashes: readonly string[], spent: SpentFilter = 'unspent'): Promise<Map<string, ZkTokenAccount>> {
  const out = new Map<string, ZkTokenAccount>();
  if (!hashes.length) return out;
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${ACCOUNT_SELECT}, k.owner AS t_owner, k.mint AS t_mint, k.amount AS t_amount, k.delegate AS t_delegate,
            k.state AS t_state, k.tlv AS t_tlv
       FROM zk_token_accounts k JOIN zk_accounts a ON a.hash = k.hash
      WHERE k.hash = ANY($1::bytea[])${spentSql(spent)}`,
    [b58array(hashes)],
  );
  for (const r of rows) {
    const t = toTokenAccount(r);
    out.set(t.account.hash, t);
  }
  return out;
}

/**
 * getCompressedTokenAccountBalance: the amount of the unspent token account with this hash, or — Photon's quirk for
 * an `address` — of the first unspent token account (in (mint, hash) order) whose token owner is that address.
 * Null when none.
 */
export async function getTokenAccountBalance(q: Queryable, id: { hash: string } | { owner: string }): Promise<bigint | null> {
  const byHash = 'hash' in id;
  const { rows } = await q.query<{ amount: string }>(
    byHash
      ? 'SELECT amount::text AS amount FROM zk_token_accounts WHERE hash = $1 AND NOT spent'
      : 'SELECT amount::text AS amount FROM zk_token_accounts WHERE owner = $1 AND NOT spent ORDER BY mint, hash LIMIT 1',
    [b58buf(byHash ? id.hash : id.owner)],
  );
  return rows.length ? BigInt(rows[0].amount) : null;
}
