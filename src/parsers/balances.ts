/**
 * Balance changes of a transaction, read from its execution meta (`pre/postBalances`, `pre/postTokenBalances`).
 * These are the ground truth for balances: they include effects no instruction parser sees (fees, rent, direct
 * lamport debits by owning programs, syncNative). Pure; a transaction without meta has no known deltas.
 */
import type { Address, NormalizedTx, TokenBalance } from '../core/model.js';

/** A lamport balance change of one account. */
export interface SolDelta {
  account: Address;
  pre: bigint;
  post: bigint;
  /** `post - pre`. */
  delta: bigint;
}

/** The token balance of one token account before and after a transaction. */
export interface TokenDelta {
  account: Address;
  mint: Address;
  owner: Address | null;
  programId: Address | null;
  decimals: number;
  /** Raw amount before (0 when the account did not hold this mint before, e.g. created in this transaction). */
  pre: bigint;
  /** Raw amount after (0 when the account was closed in this transaction). */
  post: bigint;
  delta: bigint;
  /** False when the account was touched (listed in the token balances) but its amount did not change. */
  changed: boolean;
}

/**
 * Accounts whose lamport balance changed, in `accountKeys` order (fee payer included: the fee is part of its
 * delta). Empty when the transaction has no meta. Entries beyond the shorter of the two balance arrays or beyond
 * `accountKeys` are ignored.
 */
export function solDeltas(tx: NormalizedTx): SolDelta[] {
  const meta = tx.meta;
  if (!meta) return [];
  const n = Math.min(meta.preBalances.length, meta.postBalances.length, tx.accountKeys.length);
  const out: SolDelta[] = [];
  for (let i = 0; i < n; i++) {
    const pre = meta.preBalances[i];
    const post = meta.postBalances[i];
    if (pre !== post) out.push({ account: tx.accountKeys[i], pre, post, delta: post - pre });
  }
  return out;
}

/**
 * Per token account listed in `preTokenBalances` or `postTokenBalances`, its amount before and after, ordered by
 * account index. An account only in `post` has `pre` 0 (opened here); only in `pre` has `post` 0 (closed here).
 * If one account index holds a different mint before and after (closed and re-opened in one transaction), it
 * yields two entries, one per mint. Includes unchanged entries with `changed: false`. Empty without meta, or when
 * the source recorded no token balances.
 */
export function tokenDeltas(tx: NormalizedTx): TokenDelta[] {
  return indexedTokenDeltas(tx).map(({ index: _index, ...d }) => d);
}

/** {@link tokenDeltas}, each entry also carrying the index of its account in `accountKeys`. */
export function indexedTokenDeltas(tx: NormalizedTx): (TokenDelta & { index: number })[] {
  const meta = tx.meta;
  if (!meta || (!meta.preTokenBalances && !meta.postTokenBalances)) return [];
  const pre = byIndex(meta.preTokenBalances ?? []);
  const post = byIndex(meta.postTokenBalances ?? []);
  const indexes = pre.size === 0 ? [...post.keys()] : post.size === 0 ? [...pre.keys()] : [...new Set([...pre.keys(), ...post.keys()])];
  indexes.sort((a, b) => a - b);
  const out: (TokenDelta & { index: number })[] = [];
  for (const i of indexes) {
    const account = tx.accountKeys[i];
    if (account === undefined) continue;
    const a = pre.get(i);
    const b = post.get(i);
    if (a && b && a.mint !== b.mint) {
      out.push(delta(i, account, a, a.amount, 0n), delta(i, account, b, 0n, b.amount));
    } else {
      out.push(delta(i, account, (b ?? a) as TokenBalance, a?.amount ?? 0n, b?.amount ?? 0n, a));
    }
  }
  return out;
}

function byIndex(list: readonly TokenBalance[]): Map<number, TokenBalance> {
  const m = new Map<number, TokenBalance>();
  for (const b of list) m.set(b.accountIndex, b);
  return m;
}

function delta(index: number, account: Address, info: TokenBalance, pre: bigint, post: bigint, fallback?: TokenBalance): TokenDelta & { index: number } {
  return {
    index,
    account,
    mint: info.mint,
    owner: info.owner ?? fallback?.owner ?? null,
    programId: info.programId ?? fallback?.programId ?? null,
    decimals: info.decimals,
    pre,
    post,
    delta: post - pre,
    changed: post !== pre,
  };
}
