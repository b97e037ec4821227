/**
 * Table family "tokens": native SOL balances, mints (with supply changes), token accounts and Token-2022
 * extensions. Every write is guarded by the position of the change, so replays and out-of-order inputs can
 * never roll state back.
 */
import type { Queryable } from './db.js';
import { bulkInsertStatement, run, type Statement, dedupeBy, guardedSet, newer } from './bulk.js';
import type {
  MintPatch,
  SolBalanceRow,
  SupplyChangeRow,
  TokenAccountPatch,
  TokenExtensionRow,
} from './block-update.js';

export function solBalancesStatement(rows: SolBalanceRow[]): Statement | null {
  const uniq = dedupeBy(rows, (r) => r.address, (a, b) => a.pos >= b.pos);
  return bulkInsertStatement(
    'sol_balances',
    [
      { name: 'address', type: 'text', get: (r: SolBalanceRow) => r.address },
      { name: 'lamports', type: 'numeric', get: (r) => r.lamports },
      { name: 'pos', type: 'bigint', get: (r) => r.pos },
    ],
    uniq,
    `ON CONFLICT (address) DO UPDATE SET lamports = EXCLUDED.lamports, pos = EXCLUDED.pos WHERE EXCLUDED.pos >= t.pos`,
  );
}

export async function writeSolBalances(q: Queryable, rows: SolBalanceRow[]): Promise<void> {
  await run(q, solBalancesStatement(rows));
}

/** Merges patches of the same key: each field group keeps its newest value (later patches win ties). */
export function mergePatches<P extends { address: string }>(patches: P[], groups: (keyof P)[][]): P[] {
  const grouped = new Set<keyof P>(groups.flat());
  const out = new Map<string, P>();
  for (const p of patches) {
    const cur = out.get(p.address);
    if (!cur) {
      out.set(p.address, { ...p });
      continue;
    }
    for (const g of groups) {
      const posKey = g[0];
      const np = p[posKey] as number | undefined;
      const cp = cur[posKey] as number | undefined;
      if (np !== undefined && (cp === undefined || np >= cp)) {
        cur[posKey] = p[posKey];
        for (let i = 1; i < g.length; i++) if (p[g[i]] !== undefined) cur[g[i]] = p[g[i]];
      }
    }
    // Immutable facts: keep the first known value.
    for (const k in p) if (cur[k] === undefined && p[k] !== undefined && !grouped.has(k)) cur[k] = p[k];
  }
  return [...out.values()];
}

/** The field groups of a mint patch, each newest by its position (the first field), as `mintsStatement` merges them. */
export const MINT_GROUPS: (keyof MintPatch)[][] = [
  ['mintAuthorityPos', 'mintAuthority'],
  ['freezeAuthorityPos', 'freezeAuthority'],
  ['supplyPos', 'supplyOrd', 'supplyBase'],
];

export function mintsStatement(patches: MintPatch[]): Statement | null {
  const rows = mergePatches(patches, MINT_GROUPS);
  return bulkInsertStatement(
    'mints',
    [
      { name: 'address', type: 'text', get: (r: MintPatch) => r.address },
      { name: 'program', type: 'text', get: (r) => r.program },
      { name: 'decimals', type: 'smallint', get: (r) => r.decimals },
      { name: 'init_pos', type: 'bigint', get: (r) => r.initPos },
      { name: 'mint_authority', type: 'text', get: (r) => r.mintAuthority },
      { name: 'mint_authority_pos', type: 'bigint', get: (r) => r.mintAuthorityPos },
      { name: 'freeze_authority', type: 'text', get: (r) => r.freezeAuthority },
      { name: 'freeze_authority_pos', type: 'bigint', get: (r) => r.freezeAuthorityPos },
      { name: 'supply_base', type: 'numeric', get: (r) => r.supplyBase },
      { name: 'supply_pos', type: 'bigint', get: (r) => r.supplyPos },
      { name: 'supply_ord', type: 'int', get: (r) => r.supplyOrd },
    ],
    rows,
    `ON CONFLICT (address) DO UPDATE SET
      program = COALESCE(t.program, EXCLUDED.program),
      decimals = COALESCE(t.decimals, EXCLUDED.decimals),
      init_pos = LEAST(t.init_pos, EXCLUDED.init_pos),
      ${guardedSet('mint_authority_pos', ['mint_authority'])},
      ${guardedSet('freeze_authority_pos', ['freeze_authority'])},
      supply_base = CASE WHEN ${supplyNewer()} THEN EXCLUDED.supply_base ELSE t.supply_base END,
      supply_ord = CASE WHEN ${supplyNewer()} THEN EXCLUDED.supply_ord ELSE t.supply_ord END,
      supply_pos = CASE WHEN ${supplyNewer()} THEN EXCLUDED.supply_pos ELSE t.supply_pos END`,
  );
}

export async function writeMints(q: Queryable, patches: MintPatch[]): Promise<void> {
  await run(q, mintsStatement(patches));
}

function supplyNewer(): string {
  return `(EXCLUDED.supply_pos IS NOT NULL AND (t.supply_pos IS NULL OR (EXCLUDED.supply_pos, EXCLUDED.supply_ord) >= (t.supply_pos, t.supply_ord)))`;
}

export function supplyChangesStatement(rows: SupplyChangeRow[]): Statement | null {
  return bulkInsertStatement(
    'mint_supply_changes',
    [
      { name: 'mint', type: 'text', get: (r: SupplyChangeRow) => r.mint },
      { name: 'signature', type: 'text', get: (r) => r.signature },
      { name: 'ord', type: 'int', get: (r) => r.ord },
      { name: 'pos', type: 'bigint', get: (r) => r.pos },
      { name: 'delta', type: 'numeric', get: (r) => r.delta },
    ],
    rows,
    'ON CONFLICT (mint, signature, ord) DO NOTHING',
  );
}

export async function writeSupplyChanges(q: Queryable, rows: SupplyChangeRow[]): Promise<void> {
  await run(q, supplyChangesStatement(rows));
}

const TA_GROUPS: (keyof TokenAccountPatch)[][] = [
  ['ownerPos', 'mint', 'owner', 'program', 'closed'],
  ['amountPos', 'amount'],
  ['delegatePos', 'delegate', 'delegatedAmount'],
  ['frozenPos', 'frozen'],
  ['closeAuthorityPos', 'closeAuthority'],
];

export function tokenAccountsStatement(patches: TokenAccountPatch[]): Statement | null {
  const rows = mergePatches(patches, TA_GROUPS);
  const own = newer('owner_pos');
  return bulkInsertStatement(
    'token_accounts',
    [
      { name: 'address', type: 'text', get: (r: TokenAccountPatch) => r.address },
      { name: 'mint', type: 'text', get: (r) => r.mint },
      { name: 'owner', type: 'text', get: (r) => r.owner },
      { name: 'program', type: 'text', get: (r) => r.program },
      { name: 'closed', type: 'bool', get: (r) => r.closed ?? false },
      { name: 'owner_pos', type: 'bigint', get: (r) => r.ownerPos },
      { name: 'amount', type: 'numeric', get: (r) => r.amount ?? 0n },
      { name: 'amount_pos', type: 'bigint', get: (r) => r.amountPos },
      { name: 'delegate', type: 'text', get: (r) => r.delegate },
      { name: 'delegated_amount', type: 'numeric', get: (r) => r.delegatedAmount },
      { name: 'delegate_pos', type: 'bigint', get: (r) => r.delegatePos },
      { name: 'frozen', type: 'bool', get: (r) => r.frozen ?? false },
      { name: 'frozen_pos', type: 'bigint', get: (r) => r.frozenPos },
      { name: 'close_authority', type: 'text', get: (r) => r.closeAuthority },
      { name: 'close_authority_pos', type: 'bigint', get: (r) => r.closeAuthorityPos },
    ],
    rows,
    `ON CONFLICT (address) DO UPDATE SET
      mint = CASE WHEN ${own} THEN COALESCE(EXCLUDED.mint, t.mint) ELSE COALESCE(t.mint, EXCLUDED.mint) END,
      owner = CASE WHEN ${own} THEN COALESCE(EXCLUDED.owner, t.owner) ELSE COALESCE(t.owner, EXCLUDED.owner) END,
      program = CASE WHEN ${own} THEN COALESCE(EXCLUDED.program, t.program) ELSE COALESCE(t.program, EXCLUDED.program) END,
      closed = CASE WHEN ${own} THEN EXCLUDED.closed ELSE t.closed END,
      owner_pos = CASE WHEN ${own} THEN EXCLUDED.owner_pos ELSE t.owner_pos END,
      ${guardedSet('amount_pos', ['amount'])},
      ${guardedSet('delegate_pos', ['delegate', 'delegated_amount'])},
      ${guardedSet('frozen_pos', ['frozen'])},
      ${guardedSet('close_authority_pos', ['close_authority'])}`,
  );
}

export async function writeTokenAccounts(q: Queryable, patches: TokenAccountPatch[]): Promise<void> {
  await run(q, tokenAccountsStatement(patches));
}

export function tokenExtensionsStatement(rows: TokenExtensionRow[]): Statement | null {
  const uniq = dedupeBy(rows, (r) => `${r.target}/${r.extension}`, (a, b) => a.pos >= b.pos);
  return bulkInsertStatement(
    'token_extensions',
    [
      { name: 'target', type: 'text', get: (r: TokenExtensionRow) => r.target },
      { name: 'extension', type: 'text', get: (r) => r.extension },
      { name: 'data', type: 'jsonb', get: (r) => JSON.stringify(r.data) },
      { name: 'pos', type: 'bigint', get: (r) => r.pos },
    ],
    uniq,
    `ON CONFLICT (target, extension) DO UPDATE SET data = EXCLUDED.data, pos = EXCLUDED.pos WHERE EXCLUDED.pos >= t.pos`,
  );
}

export async function writeTokenExtensions(q: Queryable, rows: TokenExtensionRow[]): Promise<void> {
  await run(q, tokenExtensionsStatement(rows));
}

/** A wallet's holding of one mint (summed over its open token accounts). */
export interface Holding {
  mint: string;
  /** Raw amount, base units. */
  amount: bigint;
  decimals: number | null;
  program: string;
  /** Current supply when known (base + later changes). */
  supply: bigint | null;
}

/** Every mint a wallet holds through open token accounts (zero balances included; caller filters). */
export async function queryHoldings(q: Queryable, owner: string): Promise<Holding[]> {
  const { rows } = await q.query<{ mint: string; amount: string; decimals: number | null; program: string; supply: string | null }>(
    `SELECT h.mint, h.amount::text AS amount, m.decimals, h.program,
            (m.supply_base + COALESCE((SELECT sum(c.delta) FROM mint_supply_changes c
               WHERE c.mint = h.mint AND (c.pos, c.ord) > (m.supply_pos, m.supply_ord)), 0))::text AS supply
       FROM (SELECT ta.mint, sum(ta.amount) AS amount, min(ta.program) AS program
               FROM token_accounts ta WHERE ta.owner = $1 AND NOT ta.closed AND ta.mint IS NOT NULL
              GROUP BY ta.mint) h
       LEFT JOIN mints m ON m.address = h.mint`,
    [owner],
  );
  return rows.map((r) => ({
    mint: r.mint,
    amount: BigInt(r.amount),
    decimals: r.decimals,
    program: r.program,
    supply: r.supply == null ? null : BigInt(r.supply),
  }));
}

export async function querySolBalance(q: Queryable, address: string): Promise<bigint | null> {
  const { rows } = await q.query<{ lamports: string }>('SELECT lamports::text AS lamports FROM sol_balances WHERE address = $1', [address]);
  return rows.length ? BigInt(rows[0].lamports) : null;
}

/** Known token accounts by address (owner/mint/decimals), for resolving transfers that carry no meta. */
export async function queryTokenAccountInfo(
  q: Queryable,
  addresses: string[],
): Promise<Map<string, { owner: string | null; mint: string | null; decimals: number | null; program: string | null }>> {
  const out = new Map<string, { owner: string | null; mint: string | null; decimals: number | null; program: string | null }>();
  if (!addresses.length) return out;
  const { rows } = await q.query<{ address: string; owner: string | null; mint: string | null; decimals: number | null; program: string | null }>(
    `SELECT ta.address, ta.owner, ta.mint, m.decimals, ta.program
       FROM token_accounts ta LEFT JOIN mints m ON m.address = ta.mint WHERE ta.address = ANY($1::text[])`,
    [addresses],
  );
  for (const r of rows) out.set(r.address, { owner: r.owner, mint: r.mint, decimals: r.decimals, program: r.program });
  return out;
}

/** Decimals of known mints. */
export async function queryMintDecimals(q: Queryable, mints: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!mints.length) return out;
  const { rows } = await q.query<{ address: string; decimals: number | null }>(
    'SELECT address, decimals FROM mints WHERE address = ANY($1::text[])',
    [mints],
  );
  for (const r of rows) if (r.decimals != null) out.set(r.address, r.decimals);
  return out;
}

/** An indexed SOL balance or token account as the drift detector compares it (`pos` = position of its last change). */
export interface IndexedBalance {
  address: string;
  lamports: bigint;
  pos: number;
}
export interface IndexedTokenAccount {
  address: string;
  mint: string | null;
  owner: string | null;
  amount: bigint;
  closed: boolean;
  pos: number;
}

/** Up to `n` addresses of `sol_balances` from `from` on (address order, wrapping to the start): a cheap sample. */
export async function sampleBalanceAddresses(q: Queryable, from: string, n: number): Promise<string[]> {
  const { rows } = await q.query<{ address: string }>(
    `(SELECT address FROM sol_balances WHERE address >= $1 ORDER BY address LIMIT $2)
     UNION ALL (SELECT address FROM sol_balances WHERE address < $1 ORDER BY address LIMIT $2)`,
    [from, n],
  );
  return rows.slice(0, n).map((r) => r.address);
}

/** Up to `n` open token accounts from `from` on (address order, wrapping to the start). */
export async function sampleTokenAccountAddresses(q: Queryable, from: string, n: number): Promise<string[]> {
  const { rows } = await q.query<{ address: string }>(
    `(SELECT address FROM token_accounts WHERE address >= $1 AND NOT closed ORDER BY address LIMIT $2)
     UNION ALL (SELECT address FROM token_accounts WHERE address < $1 AND NOT closed ORDER BY address LIMIT $2)`,
    [from, n],
  );
  return rows.slice(0, n).map((r) => r.address);
}

export async function readBalances(q: Queryable, addresses: string[]): Promise<Map<string, IndexedBalance>> {
  const { rows } = await q.query<{ address: string; lamports: string; pos: string }>(
    'SELECT address, lamports::text AS lamports, pos::text AS pos FROM sol_balances WHERE address = ANY($1::text[])',
    [addresses],
  );
  return new Map(rows.map((r) => [r.address, { address: r.address, lamports: BigInt(r.lamports), pos: Number(r.pos) }]));
}

export async function readTokenAccounts(q: Queryable, addresses: string[]): Promise<Map<string, IndexedTokenAccount>> {
  const { rows } = await q.query<{ address: string; mint: string | null; owner: string | null; amount: string; closed: boolean; pos: string }>(
    `SELECT address, mint, owner, amount::text AS amount, closed, GREATEST(COALESCE(owner_pos, 0), COALESCE(amount_pos, 0))::text AS pos
       FROM token_accounts WHERE address = ANY($1::text[])`,
    [addresses],
  );
  return new Map(rows.map((r) => [r.address, { address: r.address, mint: r.mint, owner: r.owner, amount: BigInt(r.amount), closed: r.closed, pos: Number(r.pos) }]));
}
