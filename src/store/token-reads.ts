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

/** The token account holding each mint (non-zero amount, open), for single-owner assets. */
export async function queryHolders(q: Queryable, mints: string[]): Promise<Map<string, Holder>> {
  const out = new Map<string, Holder>();
  if (!mints.length) return out;
  const { rows } = await q.query<{ mint: string; address: string; owner: string; frozen: boolean; delegate: string | null }>(
    `SELECT DISTINCT ON (mint) mint, address, owner, frozen, delegate FROM token_accounts
      WHERE mint = ANY($1::text[]) AND amount > 0 AND NOT closed AND owner IS NOT NULL
      ORDER BY mint, amount DESC, address`,
    [mints],
  );
  for (const r of rows) out.set(r.mint, { mint: r.mint, tokenAccount: r.address, owner: r.owner, frozen: r.frozen, delegate: r.delegate });
  return out;
}
