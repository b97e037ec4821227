/**
 * Reads of the balance tables (zk_owner_balances, zk_token_owner_balances), which accounts.ts keeps in step with
 * every creation and spend. Lists page as Photon does: token balances by owner in mint order (cursor = mint), the
 * holders of a mint by balance desc then owner desc (cursor = balance u64 LE ‖ owner); each page is one index
 * range scan. Rows that went back to 0 are listed (Photon keeps them too).
 */
import type { Queryable } from '../db.js';
import type { ZkPage } from './types.js';
import { b58, b58buf } from './codec.js';
import { checkLimit, decodeHolderCursor, decodeMintCursor, encodeHolderCursor, encodeMintCursor } from './cursors.js';

/** Unspent lamports of an owner's compressed accounts (0 when unknown). */
export async function getOwnerBalance(q: Queryable, owner: string): Promise<bigint> {
  const { rows } = await q.query<{ lamports: string }>('SELECT lamports::text AS lamports FROM zk_owner_balances WHERE owner = $1', [b58buf(owner)]);
  return rows.length ? BigInt(rows[0].lamports) : 0n;
}

/** SQL of one page of an owner's token balances in mint order: exposed for EXPLAIN. */
export function tokenBalancesQuery(owner: string, opts: { mint?: string | null; cursor?: string | null; limit: number }): { sql: string; params: unknown[] } {
  checkLimit(opts.limit);
  const params: unknown[] = [b58buf(owner)];
  const where = ['owner = $1'];
  if (opts.mint !== undefined && opts.mint !== null) {
    params.push(b58buf(opts.mint));
    where.push(`mint = $${params.length}`);
  }
  if (opts.cursor !== undefined && opts.cursor !== null) {
    params.push(Buffer.from(decodeMintCursor(opts.cursor)));
    where.push(`mint > $${params.length}`);
  }
  return {
    sql: `SELECT mint, amount::text AS balance FROM zk_token_owner_balances WHERE ${where.join(' AND ')}
          ORDER BY mint LIMIT ${Math.trunc(opts.limit)}`,
    params,
  };
}

/** One page of an owner's token balances per mint (getCompressedTokenBalancesByOwner[V2]). */
export async function getTokenBalancesByOwner(
  q: Queryable,
  owner: string,
  opts: { mint?: string | null; cursor?: string | null; limit: number },
): Promise<ZkPage<{ mint: string; balance: bigint }>> {
  const { sql, params } = tokenBalancesQuery(owner, opts);
  const { rows } = await q.query<{ mint: Uint8Array; balance: string }>(sql, params);
  const last = rows[rows.length - 1];
  return {
    items: rows.map((r) => ({ mint: b58(r.mint), balance: BigInt(r.balance) })),
    cursor: rows.length < opts.limit || !last ? null : encodeMintCursor(last.mint),
  };
}

/** SQL of one page of a mint's holders, balance desc then owner desc: exposed for EXPLAIN. */
export function mintHoldersQuery(mint: string, opts: { cursor?: string | null; limit: number }): { sql: string; params: unknown[] } {
  checkLimit(opts.limit);
  const params: unknown[] = [b58buf(mint)];
  const where = ['b.mint = $1'];
  if (opts.cursor !== undefined && opts.cursor !== null) {
    const c = decodeHolderCursor(opts.cursor);
    params.push(c.balance.toString(), Buffer.from(c.owner));
    where.push(`(b.amount, b.owner) < ($2::numeric, $3::bytea)`);
  }
  return {
    sql: `SELECT b.owner, b.amount::text AS balance FROM zk_token_owner_balances b WHERE ${where.join(' AND ')}
          ORDER BY b.amount DESC, b.owner DESC LIMIT ${Math.trunc(opts.limit)}`,
    params,
  };
}

/** One page of the token owners of a mint with their balances (getCompressedMintTokenHolders). */
export async function getMintTokenHolders(
  q: Queryable,
  mint: string,
  opts: { cursor?: string | null; limit: number },
): Promise<ZkPage<{ owner: string; balance: bigint }>> {
  const { sql, params } = mintHoldersQuery(mint, opts);
  const { rows } = await q.query<{ owner: Uint8Array; balance: string }>(sql, params);
  const last = rows[rows.length - 1];
  return {
    items: rows.map((r) => ({ owner: b58(r.owner), balance: BigInt(r.balance) })),
    cursor: rows.length < opts.limit || !last ? null : encodeHolderCursor(BigInt(last.balance), last.owner),
  };
}
