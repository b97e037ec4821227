/**
 * Table family "compressed accounts": zk_accounts, zk_token_accounts and the balance tables derived from them
 * (zk_owner_balances, zk_token_owner_balances), as Photon persists a state update (src/ingester/persist/mod.rs,
 * spend.rs, persisted_batch_event/*.rs) — with the guards that make any replay a no-op:
 *
 * - an account row is created once; a second creation of the same hash changes nothing, except that it fills in a
 *   spend marker (a spend seen before the creation: owner NULL, spent true), keeping the marker's spend state;
 * - `spent` only goes false → true; the V2 input-queue fields (nullifier, tx hash, queue index) are set once;
 * - balances move by exactly the rows a statement created unspent (+) or flipped to spent (−), read back with
 *   RETURNING in the same statement, so a replayed creation or spend moves nothing; every created account ensures
 *   its owner's balance row (0 when everything was spent), so merged and separate batches give the same rows;
 * - V2 queue flags follow from zk_batch_events: `in_output_queue` is false once an append (or a nullify of the
 *   account's input-queue entry) covers the account, `nullified_in_tree` true once a nullify covers it, whichever
 *   of event and account arrived first.
 */
import type { Queryable } from '../db.js';
import type { Statement } from '../bulk.js';
import type { ZkAccount, ZkAccountRow, ZkBatchEventRow, ZkPage, ZkSpendRow, ZkTokenAccount, ZkTokenData, TreeTypeCode } from './types.js';
import { b58, b58array, b58buf, b58hex, b58n, big, byteshex, bytesOrNull, numOrNull } from './codec.js';
import { unnestFrom, mergeBy, type Col } from './unnest.js';
import { checkLimit, decodeHashCursor, decodeTokenAccountCursor, encodeHashCursor, encodeTokenAccountCursor } from './cursors.js';
import { EVENT_KIND } from './batch-events.js';

/** Batch-event coverage of a leaf index (append) or an input-queue index (nullify) of a tree. */
const covered = (kind: number, tree: string, index: string) =>
  `EXISTS (SELECT 1 FROM zk_batch_events e WHERE e.tree = ${tree} AND e.kind = ${kind}
             AND e.old_next_index <= ${index} AND ${index} < e.new_next_index)`;

const ACCOUNT_COLS: Col<ZkAccountRow>[] = [
  { name: 'hash', type: 'bytea', get: (r) => b58hex(r.hash) },
  { name: 'address', type: 'bytea', get: (r) => b58hex(r.address) },
  { name: 'owner', type: 'bytea', get: (r) => b58hex(r.owner) },
  { name: 'lamports', type: 'numeric', get: (r) => r.lamports },
  { name: 'discriminator', type: 'numeric', get: (r) => r.data?.discriminator ?? null },
  { name: 'data', type: 'bytea', get: (r) => byteshex(r.data?.data) },
  { name: 'data_hash', type: 'bytea', get: (r) => b58hex(r.data?.dataHash) },
  { name: 'tree', type: 'bytea', get: (r) => b58hex(r.tree) },
  { name: 'queue', type: 'bytea', get: (r) => b58hex(r.queue) },
  { name: 'tree_type', type: 'smallint', get: (r) => r.treeType },
  { name: 'leaf_index', type: 'bigint', get: (r) => r.leafIndex },
  { name: 'seq', type: 'bigint', get: (r) => r.seq },
  { name: 'slot_created', type: 'bigint', get: (r) => r.slotCreated },
  { name: 'in_output_queue', type: 'boolean', get: (r) => r.inOutputQueue },
];

const TOKEN_STATE = { initialized: 0, frozen: 1 } as const;
type TokenRow = ZkTokenData & { hash: string };
const TOKEN_COLS: Col<TokenRow>[] = [
  { name: 'hash', type: 'bytea', get: (r) => b58hex(r.hash) },
  { name: 'owner', type: 'bytea', get: (r) => b58hex(r.owner) },
  { name: 'mint', type: 'bytea', get: (r) => b58hex(r.mint) },
  { name: 'amount', type: 'numeric', get: (r) => r.amount },
  { name: 'delegate', type: 'bytea', get: (r) => b58hex(r.delegate) },
  { name: 'state', type: 'smallint', get: (r) => TOKEN_STATE[r.state] },
  { name: 'tlv', type: 'bytea', get: (r) => byteshex(r.tlv) },
];

/**
 * Creates output accounts, their token rows and the balance changes, as ONE statement: new rows (and filled spend
 * markers) come back from the insert and feed the token insert and both balance upserts. Null without rows.
 */
export function accountsStatement(rows: readonly ZkAccountRow[]): Statement | null {
  const accounts = mergeBy(rows, (r) => r.hash, (_a, b) => b);
  if (!accounts.length) return null;
  const tokens: TokenRow[] = accounts.flatMap((a) => (a.token ? [{ ...a.token, hash: a.hash }] : []));
  const acc = unnestFrom('u', ACCOUNT_COLS, accounts);
  const tok = unnestFrom('k', TOKEN_COLS, tokens, acc.params.length);
  const names = ACCOUNT_COLS.map((c) => c.name);
  const fill = names.filter((n) => n !== 'hash' && n !== 'in_output_queue').map((n) => `${n} = EXCLUDED.${n}`);
  const nullified = covered(EVENT_KIND.nullify, 'EXCLUDED.tree', 't.nullifier_queue_index');
  const sql = `WITH ins AS (
      INSERT INTO zk_accounts AS t (${names.join(', ')})
      SELECT ${names.filter((n) => n !== 'in_output_queue').map((n) => `u.${n}`).join(', ')},
             u.in_output_queue AND NOT ${covered(EVENT_KIND.append, 'u.tree', 'u.leaf_index')}
        FROM ${acc.sql}
      ON CONFLICT (hash) DO UPDATE SET ${fill.join(', ')},
        nullified_in_tree = t.nullified_in_tree OR ${nullified},
        in_output_queue = EXCLUDED.in_output_queue AND NOT ${nullified}
      WHERE t.owner IS NULL
      RETURNING hash, owner, lamports, spent
    ),
    tok AS (
      INSERT INTO zk_token_accounts (hash, owner, mint, amount, delegate, state, tlv, spent)
      SELECT k.hash, k.owner, k.mint, k.amount, k.delegate, k.state, k.tlv, ins.spent
        FROM ${tok.sql} JOIN ins ON ins.hash = k.hash
      ON CONFLICT (hash) DO NOTHING
      RETURNING owner, mint, amount, spent
    ),
    bal AS (
      INSERT INTO zk_owner_balances AS b (owner, lamports)
      SELECT owner, sum(CASE WHEN spent THEN 0 ELSE lamports END) FROM ins GROUP BY owner
      ON CONFLICT (owner) DO UPDATE SET lamports = b.lamports + EXCLUDED.lamports
    ),
    tbal AS (
      INSERT INTO zk_token_owner_balances AS b (owner, mint, amount)
      SELECT owner, mint, sum(CASE WHEN spent THEN 0 ELSE amount END) FROM tok GROUP BY owner, mint
      ON CONFLICT (owner, mint) DO UPDATE SET amount = b.amount + EXCLUDED.amount
    )
    SELECT count(*)::int AS n FROM ins`;
  return { sql, params: [...acc.params, ...tok.params] };
}

const SPEND_COLS: Col<ZkSpendRow>[] = [
  { name: 'hash', type: 'bytea', get: (r) => b58hex(r.hash) },
  { name: 'nullifier', type: 'bytea', get: (r) => b58hex(r.nullifier) },
  { name: 'tx_hash', type: 'bytea', get: (r) => b58hex(r.txHash) },
  { name: 'nqi', type: 'bigint', get: (r) => r.nullifierQueueIndex },
];

/**
 * Marks input accounts spent (with their V2 input-queue entry) and subtracts what they held from the balances,
 * as ONE statement; unknown hashes get a spend marker that a later creation fills in. Run it after
 * {@link accountsStatement} of the same batch, so a spend of an account created in the batch finds it.
 */
export function spendsStatement(rows: readonly ZkSpendRow[]): Statement | null {
  const spends = mergeBy(rows, (r) => r.hash, (a, b) => ({
    hash: a.hash,
    nullifier: a.nullifier ?? b.nullifier,
    txHash: a.txHash ?? b.txHash,
    nullifierQueueIndex: a.nullifierQueueIndex ?? b.nullifierQueueIndex,
  }));
  if (!spends.length) return null;
  const s = unnestFrom('s', SPEND_COLS, spends);
  const nullified = covered(EVENT_KIND.nullify, 'a.tree', 'COALESCE(a.nullifier_queue_index, s.nqi)');
  const sql = `WITH upd AS (
      UPDATE zk_accounts a SET spent = true,
        nullifier = COALESCE(a.nullifier, s.nullifier),
        tx_hash = COALESCE(a.tx_hash, s.tx_hash),
        nullifier_queue_index = COALESCE(a.nullifier_queue_index, s.nqi),
        nullified_in_tree = a.nullified_in_tree OR ${nullified},
        in_output_queue = a.in_output_queue AND NOT ${nullified}
      FROM ${s.sql}
      WHERE a.hash = s.hash AND NOT a.spent
      RETURNING a.owner, a.lamports
    ),
    mark AS (
      INSERT INTO zk_accounts (hash, spent, nullifier, tx_hash, nullifier_queue_index)
      SELECT s.hash, true, s.nullifier, s.tx_hash, s.nqi FROM ${s.sql}
       WHERE NOT EXISTS (SELECT 1 FROM zk_accounts x WHERE x.hash = s.hash)
      ON CONFLICT (hash) DO NOTHING
    ),
    tok AS (
      UPDATE zk_token_accounts k SET spent = true FROM ${s.sql}
      WHERE k.hash = s.hash AND NOT k.spent
      RETURNING k.owner, k.mint, k.amount
    ),
    bal AS (
      INSERT INTO zk_owner_balances AS b (owner, lamports)
      SELECT owner, -sum(lamports) FROM upd GROUP BY owner
      ON CONFLICT (owner) DO UPDATE SET lamports = b.lamports + EXCLUDED.lamports
    ),
    tbal AS (
      INSERT INTO zk_token_owner_balances AS b (owner, mint, amount)
      SELECT owner, mint, -sum(amount) FROM tok GROUP BY owner, mint
      ON CONFLICT (owner, mint) DO UPDATE SET amount = b.amount + EXCLUDED.amount
    )
    SELECT count(*)::int AS n FROM upd`;
  return { sql, params: s.params };
}

type EventRange = { tree: string; lo: number; hi: number };
const RANGE_COLS: Col<EventRange>[] = [
  { name: 'tree', type: 'bytea', get: (r) => b58hex(r.tree) },
  { name: 'lo', type: 'bigint', get: (r) => r.lo },
  { name: 'hi', type: 'bigint', get: (r) => r.hi },
];
const ranges = (events: readonly ZkBatchEventRow[], kind: ZkBatchEventRow['kind']): EventRange[] =>
  events.filter((e) => e.kind === kind).map((e) => ({ tree: e.tree, lo: e.oldNextIndex, hi: e.newNextIndex }));

/**
 * Applies a batch's V2 events to the accounts already stored: appends take accounts out of the output queue,
 * nullifies mark input-queue entries nullified in the tree (and out of the output queue). Two statements (an
 * account may be covered by both), run after the batch's accounts and spends. Accounts that arrive later get the
 * same flags from the stored events when they are written.
 */
export function queueFlagStatements(events: readonly ZkBatchEventRow[]): Statement[] {
  const out: Statement[] = [];
  const app = ranges(events, 'append');
  if (app.length) {
    const r = unnestFrom('r', RANGE_COLS, app);
    out.push({
      sql: `UPDATE zk_accounts a SET in_output_queue = false FROM ${r.sql}
             WHERE a.in_output_queue AND a.tree = r.tree AND a.leaf_index >= r.lo AND a.leaf_index < r.hi`,
      params: r.params,
    });
  }
  const nul = ranges(events, 'nullify');
  if (nul.length) {
    const r = unnestFrom('r', RANGE_COLS, nul);
    out.push({
      sql: `UPDATE zk_accounts a SET nullified_in_tree = true, in_output_queue = false FROM ${r.sql}
             WHERE a.nullifier_queue_index IS NOT NULL AND NOT a.nullified_in_tree AND a.tree = r.tree
               AND a.nullifier_queue_index >= r.lo AND a.nullifier_queue_index < r.hi`,
      params: r.params,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- reads

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
                 k.state AS t_state, k.tlv AS t_tlv
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
