/**
 * What a transaction itself says about its token accounts: owner, mint and decimals from the execution meta
 * (`pre/postTokenBalances`), then from token-account initialisations inside it; the caller's context fills in
 * accounts neither mentions (meta-less records). Pure.
 */
import type { Address, NormalizedTx } from '../core/model.js';
import type { DomainEvent } from '../parsers/events.js';

export interface TokenAccountInfo {
  owner: Address | null;
  mint: Address | null;
  decimals: number | null;
}

/** Facts from outside the transaction (the store), for accounts the transaction does not describe. */
export interface KnownAccounts {
  tokenAccounts?: ReadonlyMap<Address, TokenAccountInfo>;
  mintDecimals?: ReadonlyMap<Address, number>;
}

export type ResolveTokenAccount = (account: Address) => TokenAccountInfo | null;

/**
 * A resolver of token accounts: post balances win over pre balances (an account re-opened for another mint is
 * described as it is after the transaction), then `initAccount` events, then `known`.
 */
export function tokenAccountResolver(tx: NormalizedTx, events: readonly DomainEvent[], known: KnownAccounts = {}): ResolveTokenAccount {
  const info = new Map<Address, TokenAccountInfo>();
  const meta = tx.meta;
  for (const list of [meta?.preTokenBalances ?? [], meta?.postTokenBalances ?? []])
    for (const b of list) {
      const account = tx.accountKeys[b.accountIndex];
      if (account !== undefined) info.set(account, { owner: b.owner ?? info.get(account)?.owner ?? null, mint: b.mint, decimals: b.decimals });
    }
  const decimalsOf = new Map<Address, number>();
  for (const i of info.values()) if (i.mint && i.decimals !== null) decimalsOf.set(i.mint, i.decimals);
  for (const e of events) if (e.kind === 'token.initMint') decimalsOf.set(e.mint, e.decimals);
  for (const e of events)
    if (e.kind === 'token.initAccount' && !info.has(e.account))
      info.set(e.account, { owner: e.owner, mint: e.mint, decimals: decimalsOf.get(e.mint) ?? known.mintDecimals?.get(e.mint) ?? null });
  return (account) => {
    const own = info.get(account);
    const ext = known.tokenAccounts?.get(account) ?? null;
    if (!own) return ext;
    if (own.owner !== null && own.mint !== null && own.decimals !== null) return own;
    return {
      owner: own.owner ?? ext?.owner ?? null,
      mint: own.mint ?? ext?.mint ?? null,
      decimals: own.decimals ?? ext?.decimals ?? (own.mint ? (decimalsOf.get(own.mint) ?? known.mintDecimals?.get(own.mint)) : undefined) ?? null,
    };
  };
}

/** Decimals of `mint` as the transaction or `known` states them. */
export function mintDecimalsResolver(tx: NormalizedTx, events: readonly DomainEvent[], known: KnownAccounts = {}): (mint: Address) => number | null {
  const m = new Map<Address, number>();
  for (const list of [tx.meta?.preTokenBalances ?? [], tx.meta?.postTokenBalances ?? []]) for (const b of list) m.set(b.mint, b.decimals);
  for (const e of events) {
    if (e.kind === 'token.initMint') m.set(e.mint, e.decimals);
    else if ((e.kind === 'token.transfer' || e.kind === 'token.mintTo' || e.kind === 'token.burn') && e.mint && e.decimals !== null && !m.has(e.mint))
      m.set(e.mint, e.decimals);
  }
  return (mint) => m.get(mint) ?? known.mintDecimals?.get(mint) ?? null;
}
