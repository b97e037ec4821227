/**
 * Which webhooks a transaction is delivered to, and the payloads it is delivered with. Pure: the subscriptions come
 * in from the store (src/store/webhook-events.ts), the classifier is the enhanced one; the shapes are in
 * src/core/webhook-types.ts.
 *
 * A webhook matches a transaction when one of its `accountAddresses` is among the transaction's account keys
 * (static and loaded from lookup tables) or owns one of its token accounts (the owners the execution meta records),
 * so a watched wallet also sees tokens arriving in its token accounts. Then:
 *  - `txnStatus`: `success` / `failed` keep only those; `all` both;
 *  - enhanced and discord webhooks never receive failed transactions (compat-facts §5) and keep only the
 *    `transactionTypes` listed (`ANY` = all);
 *  - raw webhooks receive every matching transaction their `txnStatus` allows.
 * Devnet variants (`rawDevnet`, ...) behave like their base type: the gateway indexes one cluster.
 */
import type { NormalizedTx } from '../core/model.js';
import type { EnhancedTransaction } from '../enhanced/types.js';
import { unknownIndexTiebreak } from '../core/tx-position.js';
import type { Matches, OutboxEvent, Payload, Subscription, WebhookType } from '../core/webhook-types.js';
import { rawTransaction } from './raw-payload.js';

/** Addresses of `tx` a webhook can watch: account keys and token-account owners. */
export function watchedAddresses(tx: NormalizedTx): string[] {
  const out = new Set(tx.accountKeys);
  for (const b of tx.meta?.preTokenBalances ?? []) if (b.owner) out.add(b.owner);
  for (const b of tx.meta?.postTokenBalances ?? []) if (b.owner) out.add(b.owner);
  return [...out];
}

const baseType = (t: WebhookType) => t.replace(/Devnet$/, '') as 'raw' | 'enhanced' | 'discord';

export function isFailed(tx: NormalizedTx): boolean {
  return tx.meta != null && tx.meta.err != null;
}

/**
 * The webhooks of `subs` (already matched by address) that take `tx`, typed by `classify` when needed (null: the
 * transaction could not be classified, so only raw webhooks take it).
 */
function accepts(s: Subscription, tx: NormalizedTx, type: () => string | null): boolean {
  const failed = isFailed(tx);
  if (s.txnStatus === 'success' && failed) return false;
  if (s.txnStatus === 'failed' && !failed) return false;
  if (baseType(s.webhookType) === 'raw') return true;
  if (failed) return false;
  const t = type();
  if (t === null) return false;
  return s.transactionTypes.length === 0 || s.transactionTypes.includes('ANY') || s.transactionTypes.includes(t);
}

/**
 * The outbox events and payloads of `txs` (transactions of written blocks, in chain order) given the active
 * subscriptions by watched address. `classify` is called at most once per transaction, only when a typed webhook
 * matched it or a payload is built; it returns null when the transaction cannot be classified (raw webhooks still
 * get it, typed ones do not).
 */
export function matchTransactions<T extends { tx: NormalizedTx }>(
  items: readonly T[],
  byAddress: ReadonlyMap<string, readonly Subscription[]>,
  classify: (item: T) => EnhancedTransaction | null,
): Matches {
  const events: OutboxEvent[] = [];
  const payloads: Payload[] = [];
  if (!byAddress.size) return { events, payloads };
  for (const item of items) {
    const tx = item.tx;
    if (tx.isVote) continue;
    const hit = new Map<string, Subscription>();
    for (const a of watchedAddresses(tx)) for (const s of byAddress.get(a) ?? []) hit.set(s.id, s);
    if (!hit.size) continue;
    let enhanced: EnhancedTransaction | null | undefined;
    const enhance = () => (enhanced === undefined ? (enhanced = classify(item)) : enhanced);
    const position = tx.slot * 1_000_000 + (tx.indexInBlock ?? unknownIndexTiebreak(tx.signature));
    let any = false;
    for (const s of hit.values()) {
      if (!accepts(s, tx, () => enhance()?.type ?? null)) continue;
      events.push({ webhookId: s.id, signature: tx.signature, slot: tx.slot, position });
      any = true;
    }
    if (!any) continue;
    payloads.push({
      signature: tx.signature,
      slot: tx.slot,
      raw: JSON.stringify(rawTransaction(tx)),
      enhanced: isFailed(tx) ? null : ((e) => (e ? JSON.stringify(e) : null))(enhance()),
    });
  }
  return { events, payloads };
}
