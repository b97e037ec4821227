/**
 * Reads of the "tokens" family used by the DAS API (mint facts and current holders of NFT-like mints).
 * Kept apart from tokens.ts's writers; same tables.
 */
import type { Queryable } from './db.js';

export interface MintInfo {
  address: string;
  program: string | null;
  decimals: number | null;
  supply: bigint | null;
  mintAuthority: string | null;
  freezeAuthority: string | null;
}

export async function queryMints(q: Queryable, mints: string[]): Promise<Map<string, MintInfo>> {
  const out = new Map<string, MintInfo>();
  if (!mints.length) return out;
  const { rows } = await q.query<{ address: string; program: string | null; decimals: number | null; supply: string | null; mint_authority: string | null; freeze_authority: string | null }>(
    `SELECT m.address, m.program, m.decimals, m.mint_authority, m.freeze_authority,
            (m.supply_base + COALESCE((SELECT sum(c.delta) FROM mint_supply_changes c
               WHERE c.mint = m.address AND (c.pos, c.ord) > (m.supply_pos, m.supply_ord)), 0))::text AS supply
       FROM mints m WHERE m.address = ANY($1::text[])`,
    [mints],
  );
  for (const r of rows)
    out.set(r.address, { address: r.address, program: r.program, decimals: r.decimals, supply: r.supply == null ? null : BigInt(r.supply), mintAuthority: r.mint_authority, freezeAuthority: r.freeze_authority });
  return out;
}

export interface Holder {
  mint: string;
  tokenAccount: string;
  owner: string;
  frozen: boolean;
  delegate: string | null;
}

/**
 * The token account holding each mint, for single-owner assets: the open account with the largest amount, the
 * latest-updated one among equals (the reference keeps the owner of an emptied account too). Only NFT-like mints
 * (0 decimals, or not indexed yet) are looked at: a fungible mint has no single holder, and scanning its (possibly
 * millions of) accounts would be wasted work.
 */
export async function queryHolders(q: Queryable, mints: string[]): Promise<Map<string, Holder>> {
  const out = new Map<string, Holder>();
  if (!mints.length) return out;
  const { rows } = await q.query<{ mint: string; address: string; owner: string; frozen: boolean; delegate: string | null }>(
    `SELECT m.mint, h.address, h.owner, h.frozen, h.delegate
       FROM (SELECT DISTINCT unnest($1::text[]) AS mint) m
       LEFT JOIN mints mi ON mi.address = m.mint
       CROSS JOIN LATERAL (SELECT address, owner, frozen, delegate FROM token_accounts
                            WHERE mint = m.mint AND NOT closed AND owner IS NOT NULL
                            ORDER BY amount DESC, amount_pos DESC NULLS LAST, address LIMIT 1) h
      WHERE COALESCE(mi.decimals, 0) = 0`,
    [mints],
  );
  for (const r of rows) out.set(r.mint, { mint: r.mint, tokenAccount: r.address, owner: r.owner, frozen: r.frozen, delegate: r.delegate });
  return out;
}

/** A Token-2022 extension row. */
export interface ExtensionRow {
  extension: string;
  data: Record<string, unknown>;
}

/** Token-2022 extensions by mint or token-account address (addresses without any are absent). */
export async function queryExtensions(q: Queryable, targets: string[]): Promise<Map<string, ExtensionRow[]>> {
  const out = new Map<string, ExtensionRow[]>();
  if (!targets.length) return out;
  const { rows } = await q.query<{ target: string; extension: string; data: Record<string, unknown> }>(
    'SELECT target, extension, data FROM token_extensions WHERE target = ANY($1::text[]) ORDER BY target, extension',
    [targets],
  );
  for (const r of rows) {
    let list = out.get(r.target);
    if (!list) out.set(r.target, (list = []));
    list.push({ extension: r.extension, data: r.data });
  }
  return out;
}

/** A token account as the DAS token-account list reads it. */
export interface TokenAccountInfo {
  address: string;
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  delegatedAmount: bigint;
  frozen: boolean;
  closeAuthority: string | null;
}

export interface TokenAccountQuery {
  owner?: string;
  mint?: string;
  showZeroBalance: boolean;
  /** Extra WHERE conditions on `address` (keyset) and the ORDER BY / LIMIT tail, with `$n` from `params`. */
  where: string[];
  order: string;
  limitOffset: string;
  params: unknown[];
}

/** Open token accounts by owner and/or mint, one page. */
export async function queryTokenAccounts(q: Queryable, t: TokenAccountQuery): Promise<TokenAccountInfo[]> {
  const params = [...t.params];
  const where = ['NOT closed', 'mint IS NOT NULL', 'owner IS NOT NULL', ...t.where];
  if (t.owner !== undefined) where.push(`owner = $${params.push(t.owner)}`);
  if (t.mint !== undefined) where.push(`mint = $${params.push(t.mint)}`);
  if (!t.showZeroBalance) where.push('amount > 0');
  const { rows } = await q.query<{ address: string; mint: string; owner: string; amount: string; delegate: string | null; delegated_amount: string | null; frozen: boolean; close_authority: string | null }>(
    `SELECT address, mint, owner, amount::text, delegate, delegated_amount::text, frozen, close_authority FROM token_accounts
      WHERE ${where.join(' AND ')} ORDER BY ${t.order} ${t.limitOffset}`,
    params,
  );
  return rows.map((r) => ({
    address: r.address, mint: r.mint, owner: r.owner, amount: BigInt(r.amount), delegate: r.delegate,
    delegatedAmount: r.delegate && r.delegated_amount ? BigInt(r.delegated_amount) : 0n, frozen: r.frozen, closeAuthority: r.close_authority,
  }));
}
