/**
 * History source: an address's transactions read back from the cluster RPC, newest to oldest —
 * `getSignaturesForAddress` pages (≤ 1000, `before` = the oldest signature of the previous page) and
 * `getTransaction` for each signature (base64, `maxSupportedTransactionVersion: 0`, a bounded number in flight),
 * normalised exactly as recorded transactions are. A transaction the cluster no longer serves comes back null (its
 * ledger was pruned below that point); the caller decides what that means for completeness. `getTransaction` does
 * not say where in its block a transaction ran; `fetchBlockSignatures` does (one `getBlock` of signatures per slot).
 */
import type { NormalizedTx } from '../core/model.js';
import { normalizeRpcTransaction } from './normalize-rpc.js';
import { mapLimit } from '../core/map-limit.js';
import { isSkippedSlotError, type RpcClient } from './rpc-client.js';

/** One entry of a `getSignaturesForAddress` page. */
export interface SignatureInfo {
  signature: string;
  slot: number;
}

export interface HistoryOptions {
  commitment: 'confirmed' | 'finalized';
  signal?: AbortSignal;
}

/** The real RPC's largest page. */
export const MAX_SIGNATURES_PER_PAGE = 1000;

/** One page of `address`'s signatures older than `before` (newest first); fewer than `limit` = the oldest page. */
export async function fetchSignaturePage(
  client: RpcClient,
  address: string,
  before: string | null,
  opts: HistoryOptions & { limit?: number },
): Promise<SignatureInfo[]> {
  const cfg: Record<string, unknown> = { limit: opts.limit ?? MAX_SIGNATURES_PER_PAGE, commitment: opts.commitment };
  if (before) cfg.before = before;
  const res = await client.call<unknown>('getSignaturesForAddress', [address, cfg], opts.signal);
  if (!Array.isArray(res)) throw new Error(`getSignaturesForAddress: expected a list, got ${JSON.stringify(res)?.slice(0, 200)}`);
  return res.map((e: { signature?: unknown; slot?: unknown }) => {
    if (typeof e?.signature !== 'string' || !Number.isSafeInteger(e?.slot)) throw new Error(`getSignaturesForAddress: malformed entry ${JSON.stringify(e)?.slice(0, 200)}`);
    return { signature: e.signature, slot: e.slot as number };
  });
}

/** `getTransaction` of each signature (null where the cluster has none), at most `concurrency` in flight. */
export async function fetchTransactions(
  client: RpcClient,
  signatures: readonly string[],
  opts: HistoryOptions & { concurrency?: number },
): Promise<(NormalizedTx | null)[]> {
  return mapLimit(signatures, opts.concurrency ?? 8, async (signature) => {
    const res = await client.call<unknown>('getTransaction', [signature, { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: opts.commitment }], opts.signal);
    return res === null || res === undefined ? null : normalizeRpcTransaction(res);
  });
}

/**
 * The signatures of the block at `slot` in block order (`getBlock` with `transactionDetails: "signatures"`), to
 * give backfilled transactions their true position in the block; null when the cluster has no block there.
 */
export async function fetchBlockSignatures(client: RpcClient, slot: number, opts: HistoryOptions): Promise<string[] | null> {
  try {
    const res = await client.call<{ signatures?: unknown } | null>(
      'getBlock',
      [slot, { transactionDetails: 'signatures', rewards: false, maxSupportedTransactionVersion: 0, commitment: opts.commitment }],
      opts.signal,
    );
    if (!res || !Array.isArray(res.signatures)) return null;
    return res.signatures as string[];
  } catch (e) {
    if (isSkippedSlotError(e)) return null;
    throw e;
  }
}

/**
 * `txs` with their position in their block (`indexInBlock`, from one `getBlock` of signatures per slot) and sorted in
 * chain order; a transaction whose block the cluster lacks keeps the unknown position (and sorts first in its slot).
 */
export async function placeInBlocks(client: RpcClient, txs: readonly NormalizedTx[], opts: HistoryOptions & { concurrency?: number }): Promise<NormalizedTx[]> {
  const slots = [...new Set(txs.map((t) => t.slot))];
  const lists = await mapLimit(slots, opts.concurrency ?? 8, (s) => fetchBlockSignatures(client, s, opts));
  const bySlot = new Map(slots.map((s, i) => [s, lists[i]]));
  const placed = txs.map((t) => {
    const i = bySlot.get(t.slot)?.indexOf(t.signature) ?? -1;
    return i >= 0 ? { ...t, indexInBlock: i } : t;
  });
  return placed.sort((a, b) => a.slot - b.slot || (a.indexInBlock ?? -1) - (b.indexInBlock ?? -1));
}
