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
} from '../../vendor/solana-kit.js';
import { base58ToBytes } from '../../core/encoding.js';
import type { Block, NormalizedTx } from '../../core/model.js';
import { rawTransaction } from '../../webhooks/raw-payload.js';
import type { TransactionFilter, TransactionHistory } from '../../core/transaction-filter.js';
import type { Demand } from '../../core/demand.js';
import { orderedChain } from '../../core/ordered-chain.js';
import type { UpstreamRpc } from '../../core/upstream.js';
import { stringifyRpc } from '../wire/json.js';
import { zstdCompress } from '../../core/zstd.js';
import { isWritable } from '../../core/model.js';
import { isAddress, isSignature } from '../../core/encoding.js';

export type { TransactionFilter, TransactionHistory } from '../../core/transaction-filter.js';

export interface TransactionOptions {
  encoding: 'base64' | 'base58' | 'base64+zstd' | 'json' | 'jsonParsed';
  transactionDetails: 'full' | 'signatures' | 'accounts' | 'none';
  showRewards: boolean;
}

export interface TransactionHub {
  /** Called by the ingester with each batch of committed blocks. */
  publish(blocks: readonly Block[]): void;
  /**
   * Registers a subscription; returns its cancel function. With `fromSlot`, the matching transactions the index
   * holds from that slot on (from position `fromIndex` in that slot, default 0) are sent first, then the live ones
   * (none twice, none skipped, none before that position); the promise rejects when the past cannot be read (the
   * subscription is then cancelled).
   */
  subscribe(filter: TransactionFilter, send: (tx: NormalizedTx) => void, fromSlot?: number, fromIndex?: number): { cancel(): void; ready: Promise<void> };
}

/**
 * `history` reads a resumed subscription's past; `demand` counts the subscriptions (a process without an ingester
 * reads committed blocks from the cluster only while there are some).
 */
export function createTransactionHub(history?: TransactionHistory, o: { demand?: Demand } = {}): TransactionHub {
  const subs = new Set<{ filter: TransactionFilter; send: (tx: NormalizedTx) => void }>();
  const add = (s: { filter: TransactionFilter; send: (tx: NormalizedTx) => void }) => {
    subs.add(s);
    const release = o.demand?.acquire();
    return () => {
      subs.delete(s);
      release?.();
    };
  };
  return {
    publish(blocks) {
      if (!subs.size) return;
      for (const b of blocks) for (const tx of b.transactions) for (const s of subs) if (matches(s.filter, tx)) s.send(tx);
    },
    subscribe(filter, send, fromSlot, fromIndex = 0) {
      if (fromSlot === undefined) return { cancel: add({ filter, send }), ready: Promise.resolve() };
      const wanted = (tx: NormalizedTx) => tx.slot > fromSlot || (tx.slot === fromSlot && (tx.indexInBlock ?? 0) >= fromIndex);
      // Live transactions wait while the past is read; those the past already holds are dropped.
      let buffer: NormalizedTx[] | null = [];
      let cancelled = false;
      const remove = add({ filter, send: (tx: NormalizedTx) => (buffer ? buffer.push(tx) : wanted(tx) && send(tx)) });
      const cancel = () => {
        cancelled = true;
        remove();
      };
      const ready = (async () => {
        if (!history) throw new Error('Invalid params: fromSlot needs a server that can read its index\'s past (a cluster RPC)');
        await o.demand?.started();
        const past = await history(filter, fromSlot);
        if (cancelled) return;
        for (const tx of past.transactions) if (matches(filter, tx) && wanted(tx)) send(tx);
        const live = buffer ?? [];
        buffer = null;
        for (const tx of live) if (tx.slot > past.upTo && wanted(tx)) send(tx);
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

/** Each transaction's notification text per options, built once however many subscriptions it goes to. */
const texts = new WeakMap<NormalizedTx, Map<string, string>>();

/** The JSON text of `transactionNotification(tx, o)` (bigints exact), cached per transaction and options. */
export function notificationText(tx: NormalizedTx, o: TransactionOptions): string {
  const key = `${o.encoding} ${o.transactionDetails} ${o.showRewards}`;
  let m = texts.get(tx);
  if (!m) texts.set(tx, (m = new Map()));
  let text = m.get(key);
  if (text === undefined) m.set(key, (text = stringifyRpc(transactionNotification(tx, o))));
  return text;
}

/** The fetcher of a transaction's `jsonParsed` form (the cluster's parse: getTransaction with encoding jsonParsed). */
export type ParsedFetch = (tx: NormalizedTx) => Promise<{ transaction: unknown; meta: unknown }>;

const parsedTexts = new WeakMap<NormalizedTx, Map<string, Promise<string>>>();

/**
 * The JSON text of a `jsonParsed` notification with `transactionDetails` `full`: the transaction and meta as the
 * cluster parses them (every program agave knows), read once per transaction however many subscriptions it goes to.
 */
export function parsedNotificationText(tx: NormalizedTx, o: TransactionOptions, fetch: ParsedFetch): Promise<string> {
  const key = String(o.showRewards);
  let m = parsedTexts.get(tx);
  if (!m) parsedTexts.set(tx, (m = new Map()));
  let text = m.get(key);
  if (text === undefined) {
    text = fetch(tx).then((p) => {
      const meta = p.meta && typeof p.meta === 'object' && !o.showRewards ? { ...(p.meta as Record<string, unknown>), rewards: undefined } : p.meta;
      return stringifyRpc({ transaction: { transaction: p.transaction, meta, version: tx.version }, signature: tx.signature, slot: tx.slot, transactionIndex: tx.indexInBlock });
    });
    text.catch(() => m!.delete(key));
    m.set(key, text);
  }
  return text;
}

/** The cluster's `jsonParsed` form of an indexed transaction (retried while a node has not caught up with the index). */
export function parsedFetch(upstream: UpstreamRpc, commitment: 'confirmed' | 'finalized'): ParsedFetch {
  return async (tx) => {
    for (let attempt = 0; ; attempt++) {
      const r = await upstream.forward('getTransaction', [tx.signature, { encoding: 'jsonParsed', commitment, maxSupportedTransactionVersion: 0 }], 0, true);
      const v = r.result as { transaction: unknown; meta: unknown } | null | undefined;
      if (v) return v;
      if (attempt >= 4) throw new Error(`the cluster RPC does not serve transaction ${tx.signature} in jsonParsed${r.error ? ` (${r.error.message})` : ''}`);
      await new Promise((res) => setTimeout(res, 250 * 2 ** attempt));
    }
  };
}

/** Most parsed notifications one subscription may have waiting for the cluster before it is ended. */
const MAX_PARSE_BACKLOG = 10_000;

/**
 * A subscription's sender of `jsonParsed` notifications: each transaction's parse is asked for at once, and the
 * notifications go out in the order of the transactions. A parse that cannot be had (or a backlog over
 * MAX_PARSE_BACKLOG) ends the subscription through `fail` rather than skipping a transaction.
 */
export function orderedParsedSender(o: TransactionOptions, fetch: ParsedFetch, send: (text: string) => void, fail: (e: Error) => void): (tx: NormalizedTx) => void {
  const chain = orderedChain(
    MAX_PARSE_BACKLOG, () => new Error(`more than ${MAX_PARSE_BACKLOG} notifications wait for the cluster's jsonParsed form; subscribe again`), fail,
  );
  return (tx) =>
    chain.add(() => {
      const text = parsedNotificationText(tx, o, fetch);
      text.catch(() => {});
      return async () => {
        try {
          if (!chain.ended) send(await text);
        } catch (e) {
          chain.end(e as Error);
        }
      };
    });
}

/** Whether the notification needs the cluster's parse (`jsonParsed` with full details). */
export const needsParse = (o: TransactionOptions): boolean => o.encoding === 'jsonParsed' && o.transactionDetails === 'full';

/** agave's account list of `transactionDetails` `accounts`: each key with writable, signer and where it came from. */
function accountList(tx: NormalizedTx): { pubkey: string; writable: boolean; signer: boolean; source: 'transaction' | 'lookupTable' }[] {
  const signers = tx.header?.numRequiredSignatures ?? 1;
  return tx.accountKeys.map((pubkey, i) => ({
    pubkey, writable: isWritable(tx, i) !== false, signer: i < signers, source: i < tx.staticKeyCount ? 'transaction' : 'lookupTable',
  }));
}

/** The `result` of a transactionNotification (`jsonParsed` with full details comes from parsedNotificationText). */
export function transactionNotification(tx: NormalizedTx, o: TransactionOptions): Record<string, unknown> {
  const raw = rawTransaction(tx);
  let meta: Record<string, unknown> | null = raw.meta ? { ...raw.meta, ...(o.showRewards ? {} : { rewards: undefined }) } : null;
  let transaction: unknown;
  if (o.transactionDetails === 'none') transaction = undefined;
  else if (o.transactionDetails === 'signatures') transaction = { signatures: tx.signatures };
  else if (o.transactionDetails === 'accounts') {
    transaction = { signatures: tx.signatures, accountKeys: accountList(tx) };
    // agave's meta of an account list: the status, fee and balances, without instructions and logs.
    if (meta) meta = { ...meta, innerInstructions: undefined, logMessages: undefined, loadedAddresses: undefined, computeUnitsConsumed: undefined };
  } else if (o.encoding === 'json' || o.encoding === 'jsonParsed') transaction = raw.transaction;
  else {
    const bytes = wireBytes(tx);
    const text = o.encoding === 'base58' ? getBase58Decoder().decode(bytes) : getBase64Decoder().decode(o.encoding === 'base64+zstd' ? zstdCompress(bytes) : bytes);
    transaction = [text, o.encoding];
  }
  return {
    transaction: { ...(transaction !== undefined ? { transaction } : {}), meta: o.transactionDetails === 'none' ? undefined : meta, version: tx.version },
    signature: tx.signature,
    slot: tx.slot,
    transactionIndex: tx.indexInBlock,
  };
}

const MAX_FILTER_ADDRESSES = 50_000;

/** `[filter, options?]` of transactionSubscribe, checked (throws with the -32602 message). */
export function transactionParams(params: unknown): {
  filter: TransactionFilter; options: TransactionOptions; commitment: 'processed' | 'confirmed' | 'finalized'; fromSlot?: number; fromIndex?: number;
} {
  const fail = (m: string): never => {
    throw new Error(`Invalid params: ${m}`);
  };
  if (!Array.isArray(params) || params.length < 1 || params.length > 2) fail('expected [filter, options?]');
  const [f, o] = params as [Record<string, unknown>, Record<string, unknown> | undefined];
  if (!f || typeof f !== 'object' || Array.isArray(f)) fail('filter must be an object');
  for (const k of Object.keys(f)) if (!['vote', 'failed', 'signature', 'accountInclude', 'accountExclude', 'accountRequired'].includes(k)) fail(`unknown field \`${k}\` of the filter`);
  const list = (k: string): string[] => {
    const v = f[k];
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.length > MAX_FILTER_ADDRESSES || v.some((x) => typeof x !== 'string' || !isAddress(x))) fail(`${k} must be a list of at most ${MAX_FILTER_ADDRESSES} base58 addresses`);
    return v as string[];
  };
  for (const k of ['vote', 'failed']) if (f[k] !== undefined && typeof f[k] !== 'boolean') fail(`${k} must be a boolean`);
  if (f.signature !== undefined && (typeof f.signature !== 'string' || !isSignature(f.signature))) fail('signature must be a base58 transaction signature');
  const opts = o ?? {};
  if (typeof opts !== 'object' || Array.isArray(opts)) fail('options must be an object');
  for (const k of Object.keys(opts)) if (!['commitment', 'encoding', 'transactionDetails', 'showRewards', 'maxSupportedTransactionVersion', 'fromSlot', 'fromTransactionIndex'].includes(k)) fail(`unknown option \`${k}\``);
  if (opts.fromSlot !== undefined) {
    if (!Number.isSafeInteger(opts.fromSlot) || (opts.fromSlot as number) < 0) fail('fromSlot must be a non-negative integer');
    if (!f.signature && !(f.accountInclude as unknown[] | undefined)?.length && !(f.accountRequired as unknown[] | undefined)?.length)
      fail('fromSlot needs accountInclude, accountRequired or signature (the index finds the past by address)');
  }
  if (opts.fromTransactionIndex !== undefined) {
    if (opts.fromSlot === undefined) fail('fromTransactionIndex needs fromSlot');
    if (!Number.isSafeInteger(opts.fromTransactionIndex) || (opts.fromTransactionIndex as number) < 0) fail('fromTransactionIndex must be a non-negative integer');
  }
  const encoding = (opts.encoding ?? 'base64') as string;
  if (!['base64', 'base58', 'base64+zstd', 'json', 'jsonParsed'].includes(encoding)) fail('encoding must be base64, base58, base64+zstd, json or jsonParsed');
  const details = (opts.transactionDetails ?? 'full') as string;
  if (!['full', 'signatures', 'accounts', 'none'].includes(details)) fail('transactionDetails must be full, signatures, accounts or none');
  if ((details === 'full' || details === 'accounts') && opts.maxSupportedTransactionVersion === undefined)
    fail('maxSupportedTransactionVersion is required with transactionDetails full or accounts');
  if (opts.maxSupportedTransactionVersion !== undefined && opts.maxSupportedTransactionVersion !== 0 && opts.maxSupportedTransactionVersion !== 1) fail('maxSupportedTransactionVersion must be 0 or 1');
  if (opts.commitment !== undefined && !['processed', 'confirmed', 'finalized'].includes(opts.commitment as string)) fail('commitment must be processed, confirmed or finalized');
  return {
    filter: {
      vote: f.vote === true, failed: f.failed === true, signature: f.signature as string | undefined,
      accountInclude: new Set(list('accountInclude')), accountExclude: new Set(list('accountExclude')), accountRequired: list('accountRequired'),
    },
    options: { encoding: encoding as TransactionOptions['encoding'], transactionDetails: details as TransactionOptions['transactionDetails'], showRewards: opts.showRewards === true },
    commitment: (opts.commitment ?? 'confirmed') as 'processed' | 'confirmed' | 'finalized',
    fromSlot: opts.fromSlot as number | undefined,
    fromIndex: opts.fromTransactionIndex as number | undefined,
  };
}
