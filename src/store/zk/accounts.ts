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
 *   of event and account arrived first;
 * - a token row carries a copy of its account's fields (migration 045: a page of token accounts reads no zk_accounts
 *   row), written with it from the account row the same statement created or filled in; `in_output_queue`, the one
 *   that changes later, moves with the account's in every statement that changes it.
 *
 * This module holds the write statements; the reads of these tables are in `account-reads.ts` and re-exported here.
 */
import type { Statement } from '../bulk.js';
import type { ZkAccountRow, ZkBatchEventRow, ZkSpendRow, ZkTokenData } from './types.js';
import { b58hex, byteshex } from './codec.js';
import { unnestFrom, mergeBy, type Col } from './unnest.js';
import { EVENT_KIND } from './batch-events.js';
import { TOKEN_STATE } from './token-state.js';

export {
  ACCOUNT_SELECT,
  getAccountsByAddress,
  getAccountsByHash,
  getAccountsByOwner,
  getTokenAccountBalance,
  getTokenAccounts,
  getTokenAccountsByHash,
  ownerAccountsQuery,
  toAccount,
  ownerAccountsPageQuery,
  ownerAccountsPageText,
  tokenAccountsPageQuery,
  tokenAccountsPageText,
  tokenAccountsQuery,
  type DataFilter,
  type OwnerAccountsOpts,
  type SpentFilter,
  type TokenAccountsOpts,
  type PageText,
} from './account-reads.js';

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

/**
 * The account's fields a token row carries besides `account_owner` (migration 045), so that a page of token accounts
 * reads no zk_accounts row: copied from the account when the token row is written, `in_output_queue` kept in step.
 */
const ITEM_NAMES = ['address', 'lamports', 'discriminator', 'data', 'data_hash', 'tree', 'queue', 'tree_type', 'leaf_index', 'seq', 'slot_created', 'in_output_queue'];
const ITEM_COLS = ITEM_NAMES.join(', ');
const ITEM_FROM_INS = ITEM_NAMES.map((n) => `ins.${n}`).join(', ');

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
      RETURNING ${names.join(', ')}, spent
    ),
    tok AS (
      INSERT INTO zk_token_accounts (hash, owner, mint, amount, delegate, state, tlv, spent, account_owner, ${ITEM_COLS})
      SELECT k.hash, k.owner, k.mint, k.amount, k.delegate, k.state, k.tlv, ins.spent, ins.owner, ${ITEM_FROM_INS}
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
      RETURNING a.hash, a.owner, a.lamports, a.in_output_queue
    ),
    mark AS (
      INSERT INTO zk_accounts (hash, spent, nullifier, tx_hash, nullifier_queue_index)
      SELECT s.hash, true, s.nullifier, s.tx_hash, s.nqi FROM ${s.sql}
       WHERE NOT EXISTS (SELECT 1 FROM zk_accounts x WHERE x.hash = s.hash)
      ON CONFLICT (hash) DO NOTHING
    ),
    tok AS (
      UPDATE zk_token_accounts k SET spent = true, in_output_queue = COALESCE(u.in_output_queue, k.in_output_queue)
        FROM ${s.sql} LEFT JOIN upd u ON u.hash = s.hash
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

/** The token rows' copy of `in_output_queue` for the accounts `moved` (a CTE of hashes) just took out of the queue. */
const TOKEN_OUT_OF_QUEUE = `UPDATE zk_token_accounts k SET in_output_queue = false FROM moved WHERE k.hash = moved.hash AND k.in_output_queue`;

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
      sql: `WITH moved AS (
              UPDATE zk_accounts a SET in_output_queue = false FROM ${r.sql}
               WHERE a.in_output_queue AND a.tree = r.tree AND a.leaf_index >= r.lo AND a.leaf_index < r.hi
              RETURNING a.hash
            )
            ${TOKEN_OUT_OF_QUEUE}`,
      params: r.params,
    });
  }
  const nul = ranges(events, 'nullify');
  if (nul.length) {
    const r = unnestFrom('r', RANGE_COLS, nul);
    out.push({
      sql: `WITH moved AS (
              UPDATE zk_accounts a SET nullified_in_tree = true, in_output_queue = false FROM ${r.sql}
               WHERE a.nullifier_queue_index IS NOT NULL AND NOT a.nullified_in_tree AND a.tree = r.tree
                 AND a.nullifier_queue_index >= r.lo AND a.nullifier_queue_index < r.hi
              RETURNING a.hash
            )
            ${TOKEN_OUT_OF_QUEUE}`,
      params: r.params,
    });
  }
  return out;
}
