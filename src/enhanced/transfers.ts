/**
 * `nativeTransfers` and `tokenTransfers` of an enhanced transaction, from the parsed System and token events (outer
 * instructions and CPIs alike, in execution order). Pure.
 *
 * Native: every System lamport movement (transfer, transfer-with-seed, the funding of a created account, nonce
 * withdrawal) with a positive amount. Direct lamport debits by owning programs are not instructions; they show only
 * in `accountData`.
 * Tokens: transfers, mints (empty `from…`) and burns (empty `to…`), with owners resolved from the transaction's
 * token balances, its account initialisations, or the caller's known accounts. A movement whose mint or decimals
 * cannot be resolved is left out (its UI amount cannot be stated).
 */
import { uiAmount } from '../core/encoding.js';
import type { Address } from '../core/model.js';
import type { DomainEvent } from '../parsers/events.js';
import type { ResolveTokenAccount } from './token-accounts.js';
import type { NativeTransfer, TokenStandard, TokenTransfer } from './types.js';

export function nativeTransfers(events: readonly DomainEvent[]): NativeTransfer[] {
  const out: NativeTransfer[] = [];
  for (const e of events)
    if (e.kind === 'sol.transfer' && e.lamports > 0n) out.push({ fromUserAccount: e.from, toUserAccount: e.to, amount: Number(e.lamports) });
  return out;
}

export interface TokenTransferOptions {
  resolve: ResolveTokenAccount;
  mintDecimals: (mint: Address) => number | null;
  /** Token standard of a mint; `Fungible` unless told otherwise (the standard lives in Token Metadata accounts). */
  tokenStandard?: (mint: Address) => TokenStandard | null;
}

/** A token movement with its raw amount, before it is put on the wire. */
export interface TokenMovement {
  kind: 'transfer' | 'mint' | 'burn';
  transfer: TokenTransfer;
  raw: bigint;
  decimals: number;
  authority: Address | null;
}

export function tokenMovements(events: readonly DomainEvent[], opts: TokenTransferOptions): TokenMovement[] {
  const out: TokenMovement[] = [];
  const standard = (mint: Address): TokenStandard => opts.tokenStandard?.(mint) ?? 'Fungible';
  for (const e of events) {
    if (e.kind === 'token.transfer') {
      if (e.amount <= 0n) continue;
      const src = opts.resolve(e.source);
      const dst = opts.resolve(e.destination);
      const mint = e.mint ?? src?.mint ?? dst?.mint ?? null;
      if (!mint) continue;
      const decimals = e.decimals ?? src?.decimals ?? dst?.decimals ?? opts.mintDecimals(mint);
      if (decimals === null) continue;
      out.push({
        kind: 'transfer',
        raw: e.amount,
        decimals,
        authority: e.authority,
        transfer: {
          fromUserAccount: src?.owner ?? '',
          toUserAccount: dst?.owner ?? '',
          fromTokenAccount: e.source,
          toTokenAccount: e.destination,
          tokenAmount: uiAmount(e.amount, decimals),
          mint,
          tokenStandard: standard(mint),
        },
      });
    } else if (e.kind === 'token.mintTo' || e.kind === 'token.burn') {
      if (e.amount <= 0n) continue;
      const acc = opts.resolve(e.account);
      const decimals = e.decimals ?? acc?.decimals ?? opts.mintDecimals(e.mint);
      if (decimals === null) continue;
      const owner = acc?.owner ?? '';
      const mint = e.kind === 'token.mintTo';
      out.push({
        kind: mint ? 'mint' : 'burn',
        raw: e.amount,
        decimals,
        authority: null,
        transfer: {
          fromUserAccount: mint ? '' : owner,
          toUserAccount: mint ? owner : '',
          fromTokenAccount: mint ? '' : e.account,
          toTokenAccount: mint ? e.account : '',
          tokenAmount: uiAmount(e.amount, decimals),
          mint: e.mint,
          tokenStandard: standard(e.mint),
        },
      });
    }
  }
  return out;
}
