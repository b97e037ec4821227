/**
 * The enhanced `transactionSubscribe` (compat-facts-rpc §6), served from the blocks the in-process ingester writes:
 * each committed block's transactions are matched against the subscriptions' filters — `vote` and `failed` (both
 * excluded unless true), `signature`, `accountInclude` (any of), `accountExclude` (none of), `accountRequired` (all
 * of; ≤ 50 000 addresses each) — and sent as `transactionNotification` `{transaction: {transaction, meta},
 * signature, slot, transactionIndex}`, in chain order. `transactionDetails` `full` (default), `accounts`
 * (`{signatures, accountKeys}`), `signatures` or `none`; `encoding` `base64` / `base58` (the wire bytes rebuilt
 * with kit's codecs) or `json` (the getTransaction `json` shape); `showRewards` gives `rewards: []` (the index keeps no
 * per-transaction rewards). Notifications come at the index's commitment.
 */
import {
  getBase58Decoder, getBase64Decoder, getCompiledTransactionMessageEncoder, getTransactionEncoder, type Address, type Blockhash,
  type SignatureBytes,
} from '@solana/kit';
import { base58ToBytes } from '../../core/encoding.js';
import type { Block, NormalizedTx } from '../../core/model.js';
import { rawTransaction } from '../../webhooks/raw-payload.js';
import type { TransactionFilter, TransactionHistory } from '../../core/transaction-filter.js';

export type { TransactionFilter, TransactionHistory } from '../../core/transaction-filter.js';

export interface TransactionOptions {
  encoding: 'base64' | 'base58' | 'json';
  transactionDetails: 'full' | 'signatures' | 'accounts' | 'none';
  showRewards: boolean;
}

export interface TransactionHub {
  /** Called by the ingester with each batch of committed blocks. */
  publish(blocks: readonly Block[]): void;
  /**
   * Registers a subscription; returns its cancel function. With `fromSlot`, the matching transactions the index
   * holds from that slot on are sent first, then the live ones (none twice, none skipped); the promise rejects when
   * the past cannot be read (the subscription is then cancelled).
   */
  subscribe(filter: TransactionFilter, send: (tx: NormalizedTx) => void, fromSlot?: number): { cancel(): void; ready: Promise<void> };
}

export function createTransactionHub(history?: TransactionHistory): TransactionHub {
  const subs = new Set<{ filter: TransactionFilter; send: (tx: NormalizedTx) => void }>();
  return {
    publish(blocks) {
      if (!subs.size) return;
      for (const b of blocks) for (const tx of b.transactions) for (const s of subs) if (matches(s.filter, tx)) s.send(tx);
    },
    subscribe(filter, send, fromSlot) {
      if (fromSlot === undefined) {
        const s = { filter, send };
        subs.add(s);
        return { cancel: () => void subs.delete(s), ready: Promise.resolve() };
      }
      // Live transactions wait while the past is read; those the past already holds are dropped.
      let buffer: NormalizedTx[] | null = [];
      let cancelled = false;
      const s = { filter, send: (tx: NormalizedTx) => (buffer ? buffer.push(tx) : send(tx)) };
      subs.add(s);
      const cancel = () => {
        cancelled = true;
        subs.delete(s);
      };
      const ready = (async () => {
        if (!history) throw new Error('Invalid params: fromSlot needs a server that can read its index\'s past (a cluster RPC)');
        const past = await history(filter, fromSlot);
        if (cancelled) return;
        for (const tx of past.transactions) if (matches(filter, tx)) send(tx);
        const live = buffer ?? [];
        buffer = null;
        for (const tx of live) if (tx.slot > past.upTo) send(tx);
      })();
      ready.catch(cancel);
      return { cancel, ready };
    },
  };
}

export function matches(f: TransactionFilter, tx: NormalizedTx): boolean {
  if (tx.isVote && !f.vote) return false;
  if (tx.meta?.err && !f.failed) return false;
  if (f.signature !== undefined && tx.signature !== f.signature) return false;
  if (f.accountInclude.size && !tx.accountKeys.some((k) => f.accountInclude.has(k))) return false;
  if (f.accountExclude.size && tx.accountKeys.some((k) => f.accountExclude.has(k))) return false;
  if (f.accountRequired.length && !f.accountRequired.every((k) => tx.accountKeys.includes(k as Address))) return false;
  return true;
}

/** The wire bytes of a transaction, rebuilt from the model with kit's codecs. */
function wireBytes(tx: NormalizedTx): Uint8Array {
  if (!tx.header) throw new Error('a transaction without a message header has no wire form');
  const msg = getCompiledTransactionMessageEncoder().encode({
    version: tx.version,
    header: { numSignerAccounts: tx.header.numRequiredSignatures, numReadonlySignerAccounts: tx.header.numReadonlySignedAccounts, numReadonlyNonSignerAccounts: tx.header.numReadonlyUnsignedAccounts },
    staticAccounts: tx.accountKeys.slice(0, tx.staticKeyCount) as Address[],
    lifetimeToken: (tx.recentBlockhash ?? '11111111111111111111111111111111') as Blockhash,
    instructions: tx.instructions.map((ix) => ({ programAddressIndex: ix.programIdIndex, accountIndices: ix.accounts, data: ix.data })),
    ...(tx.version === 0
      ? { addressTableLookups: tx.addressTableLookups.map((l) => ({ lookupTableAddress: l.accountKey as Address, writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) }
      : {}),
  } as never);
  const signers = tx.accountKeys.slice(0, tx.header.numRequiredSignatures);
  const signatures = Object.fromEntries(signers.map((k, i) => [k, base58ToBytes(tx.signatures[i]) as SignatureBytes]));
  return new Uint8Array(getTransactionEncoder().encode({ messageBytes: msg, signatures } as never));
}

/** The `result` of a transactionNotification. */
export function transactionNotification(tx: NormalizedTx, o: TransactionOptions): Record<string, unknown> {
  const raw = rawTransaction(tx);
  const meta = raw.meta ? { ...raw.meta, ...(o.showRewards ? {} : { rewards: undefined }) } : null;
  let transaction: unknown;
  if (o.transactionDetails === 'none') transaction = undefined;
  else if (o.transactionDetails === 'signatures') transaction = { signatures: tx.signatures };
  else if (o.transactionDetails === 'accounts') transaction = { signatures: tx.signatures, accountKeys: tx.accountKeys };
  else if (o.encoding === 'json') transaction = raw.transaction;
  else {
    const bytes = wireBytes(tx);
    transaction = [o.encoding === 'base64' ? getBase64Decoder().decode(bytes) : getBase58Decoder().decode(bytes), o.encoding];
  }
  return {
    transaction: { ...(transaction !== undefined ? { transaction } : {}), meta: o.transactionDetails === 'none' ? undefined : meta, version: tx.version },
    signature: tx.signature,
    slot: tx.slot,
    transactionIndex: tx.indexInBlock,
  };
}
