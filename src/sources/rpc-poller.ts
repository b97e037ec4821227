/**
 * The live source: follows a cluster over plain Solana JSON-RPC (no Geyser plugin needed).
 *
 * Skipped slots are learnt from `getBlocks(start, end)` (they are simply absent), so the poller never asks
 * for a block that does not exist; the blocks themselves are fetched with `getBlock` in base64 encoding with
 * a bounded prefetch window (`concurrency` requests in flight) yet yielded in strict slot order, so the
 * ingester can checkpoint after every block. When caught up it polls `getSlot` every `pollIntervalMs`.
 *
 * With `fetchAccounts` (default on), each block also carries `accounts`: the state, fetched right after the
 * block with `getMultipleAccounts` (`minContextSlot` = its slot), of the accounts its transactions wrote for the
 * asset programs (see `account-fetch.ts`), because transactions alone do not carry account-derived asset data.
 */
import type { Logger } from 'pino';
import type { AccountUpdate, Block } from '../core/model.js';
import { SYSTEM_PROGRAM } from '../core/programs.js';
import { fetchAccountsAtSlot, selectAccountsToFetch } from './account-fetch.js';
import { normalizeAccountSnapshot, normalizeRpcBlock } from './normalize-rpc.js';
import {
  createRpcClient,
  isSkippedSlotError,
  type FetchLike,
  type RetryOptions,
  type RpcClient,
} from './rpc-client.js';
import type { BlockSource } from './source.js';

export type PollerCommitment = 'confirmed' | 'finalized';

export interface RpcPollerOptions extends RetryOptions {
  url: string;
  /** `getBlocks` accepts only confirmed or finalized (default confirmed). */
  commitment?: PollerCommitment;
  /** `getBlock` requests in flight (prefetch window), default 8. */
  concurrency?: number;
  /** Delay between `getSlot` polls once caught up with the tip, default 400 ms (one slot). */
  pollIntervalMs?: number;
  /** Slots per `getBlocks` range, default 1000 (the RPC allows up to 500 000). */
  windowSize?: number;
  /**
   * After each block, fetch the accounts its transactions wrote for the asset programs (Token Metadata, MPL Core,
   * inscriptions, Token-2022 mints) and attach them as `block.accounts` (default true).
   */
  fetchAccounts?: boolean;
  fetchImpl?: FetchLike;
  logger?: Pick<Logger, 'warn' | 'debug' | 'info'>;
}

/** Live counters for metrics; mutated in place by the poller. */
export interface RpcPollerStats {
  blocksFetched: number;
  /** Retried attempts (rate limits, 5xx, network errors, blocks not yet available). */
  retries: number;
  /** Failed attempts, retried or not. */
  errors: number;
  /** Slots found empty: absent from `getBlocks`, or reported skipped by `getBlock`. */
  skippedSlots: number;
  /** Last tip seen from `getSlot`. */
  tip: number | null;
  /** Last slot yielded. */
  lastSlot: number | null;
  /** Account states fetched after blocks (`fetchAccounts`). */
  accountsFetched: number;
}

export interface RpcPoller extends BlockSource {
  readonly stats: Readonly<RpcPollerStats>;
  /** Closes keep-alive connections. */
  close(): Promise<void>;
}

const MAX_GET_BLOCKS_RANGE = 500_000;
/** Full transactions as wire bytes (cheapest to decode); v0 accepted so -32015 can never occur. */
const GET_BLOCK_CONFIG = {
  encoding: 'base64',
  transactionDetails: 'full',
  rewards: false,
  maxSupportedTransactionVersion: 0,
} as const;
/** Slots below the tip within which `getBlocks` results are not trusted to be final (see `blocks`). */
const TAIL_MARGIN = 150;

/**
 * Creates the JSON-RPC block source. `blocks(fromSlot, signal)` starts at `fromSlot` (the ingester passes its
 * checkpoint + 1), yields every existing block in strictly increasing slot order with no gaps, and never ends
 * on its own; it returns (without throwing) promptly once `signal` aborts. It throws when a request fails
 * for good (retries exhausted or a non-retryable RPC error), leaving the restart decision to the caller.
 */
export function createRpcPoller(opts: RpcPollerOptions): RpcPoller {
  const commitment = opts.commitment ?? 'confirmed';
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const pollIntervalMs = opts.pollIntervalMs ?? 400;
  const windowSize = Math.min(MAX_GET_BLOCKS_RANGE, Math.max(1, opts.windowSize ?? 1000));
  const log = opts.logger;
  const fetchAccountsOn = opts.fetchAccounts ?? true;
  const stats: RpcPollerStats = { blocksFetched: 0, retries: 0, errors: 0, skippedSlots: 0, tip: null, lastSlot: null, accountsFetched: 0 };
  const client = createRpcClient({
    ...opts,
    connections: concurrency + 2,
    onRetry: () => void stats.retries++,
    onError: ({ error }) => {
      if (!isSkippedSlotError(error)) stats.errors++;
    },
  });

  async function getTip(signal: AbortSignal): Promise<number> {
    const tip = await client.call<number>('getSlot', [{ commitment }], signal);
    if (!Number.isSafeInteger(tip) || tip < 0) throw new Error(`getSlot: unexpected result ${JSON.stringify(tip)}`);
    stats.tip = tip;
    return tip;
  }

  /** Existing slots in [start, end], ascending and unique whatever the node returned. */
  async function existingSlots(start: number, end: number, signal: AbortSignal): Promise<number[]> {
    const res = await client.call<unknown>('getBlocks', [start, end, { commitment }], signal);
    if (!Array.isArray(res)) {
      throw new Error(`getBlocks(${start}, ${end}): expected an array, got ${JSON.stringify(res)?.slice(0, 200)}`);
    }
    const slots = [...new Set(res.filter((s): s is number => Number.isSafeInteger(s) && s >= start && s <= end))];
    return slots.sort((a, b) => a - b);
  }

  async function fetchBlock(slot: number, signal: AbortSignal): Promise<Block | null> {
    let res: unknown;
    try {
      res = await client.call<unknown>('getBlock', [slot, { ...GET_BLOCK_CONFIG, commitment }], signal);
    } catch (e) {
      if (!isSkippedSlotError(e)) throw e;
      log?.debug({ slot, err: String(e) }, 'slot listed by getBlocks reported skipped');
      stats.skippedSlots++;
      return null;
    }
    if (res === null) {
      // Old nodes answer null instead of -32007 for a slot without a block.
      stats.skippedSlots++;
      return null;
    }
    const block = normalizeRpcBlock(res, slot, { skipVotes: true });
    if (fetchAccountsOn) {
      // Within the prefetch window too: the state is as of the response's slot (>= this block), and account rows
      // are guarded by that slot, so fetching ahead of the ingester is safe.
      const wanted = selectAccountsToFetch(block);
      if (wanted.length) {
        block.accounts = await fetchAccountsAtSlot(client, slot, wanted, { commitment, signal });
        stats.accountsFetched += block.accounts.length;
      }
    }
    stats.blocksFetched++;
    return block;
  }

  async function* blocks(fromSlot: number, signal?: AbortSignal): AsyncGenerator<Block> {
    if (!Number.isSafeInteger(fromSlot) || fromSlot < 0) throw new Error(`blocks: invalid fromSlot ${fromSlot}`);
    // Internal controller: aborts in-flight prefetches when the caller aborts or stops iterating.
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal?.reason);
    if (signal?.aborted) return;
    signal?.addEventListener('abort', onAbort, { once: true });
    const inner = ac.signal;
    const pending: { slot: number; promise: Promise<Block | null> }[] = [];
    let queue: number[] = [];
    let qi = 0;
    let scanFrom = fromSlot; // first slot not yet covered by getBlocks
    let tip = -1; // last tip from getSlot
    let tailScannedAt = -1; // tip at which the tail near it was last scanned
    try {
      for (;;) {
        if (inner.aborted) return;
        while (pending.length < concurrency) {
          if (qi >= queue.length) {
            if (scanFrom > tip || tailScannedAt === tip) break;
            let end = Math.min(scanFrom + windowSize - 1, tip);
            const tail = end > tip - TAIL_MARGIN;
            if (tail) end = tip;
            const slots = await existingSlots(scanFrom, end, inner);
            let covered = end;
            if (tail) {
              // Near the tip an empty stretch may be a node lagging behind a load balancer rather than skipped
              // slots: trust the range only up to the last block returned and rescan the rest at the next tip.
              covered = slots.length > 0 ? slots[slots.length - 1] : scanFrom - 1;
              tailScannedAt = tip;
            }
            stats.skippedSlots += covered - scanFrom + 1 - slots.length;
            queue = slots;
            qi = 0;
            scanFrom = covered + 1;
            continue;
          }
          const slot = queue[qi++];
          const promise = fetchBlock(slot, inner);
          promise.catch(() => {}); // observed when it reaches the head; avoid unhandled rejections meanwhile
          pending.push({ slot, promise });
        }
        const head = pending.shift();
        if (head) {
          const block = await head.promise;
          if (block && !inner.aborted) {
            stats.lastSlot = block.slot;
            yield block;
          }
          continue;
        }
        // Nothing queued or in flight: caught up with the last known tip.
        const newTip = await getTip(inner);
        if (newTip > tip && newTip >= scanFrom) {
          tip = newTip;
          continue;
        }
        await sleepFor(pollIntervalMs, inner);
        tailScannedAt = -1; // after the pause, rescan any part of the tail not yet covered
      }
    } catch (e) {
      if (inner.aborted) return;
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      ac.abort(); // cancel prefetches if the consumer stopped early
    }
  }

  return {
    name: `rpc:${redactUrl(opts.url)}`,
    stats,
    blocks,
    close: () => client.close(),
  };
}

function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Hides credentials and API-key query strings from names that end up in logs and metrics. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : '/…'}`;
  } catch {
    return 'invalid-url';
  }
}

export interface FetchAccountsOptions extends RetryOptions {
  commitment?: PollerCommitment | 'processed';
  fetchImpl?: FetchLike;
  /** Reuse an existing client (its retry settings apply); otherwise one is created and closed. */
  client?: RpcClient;
  signal?: AbortSignal;
}

/**
 * Fetches the current state of `pubkeys` with `getMultipleAccounts` (chunks of 100, base64), e.g. to refresh
 * accounts touched by a block. `slot` is the response's `context.slot`. An account that does not exist is
 * returned as what the runtime considers it: 0 lamports, System-owned, no data — so a closed account is
 * seen as closed rather than silently left stale.
 */
export async function fetchAccounts(
  url: string,
  pubkeys: string[],
  opts: FetchAccountsOptions = {},
): Promise<AccountUpdate[]> {
  const client = opts.client ?? createRpcClient({ ...opts, url });
  try {
    const out: AccountUpdate[] = [];
    for (let i = 0; i < pubkeys.length; i += 100) {
      const chunk = pubkeys.slice(i, i + 100);
      const res = await client.call<{ context?: { slot?: unknown }; value?: unknown }>(
        'getMultipleAccounts',
        [chunk, { encoding: 'base64', commitment: opts.commitment ?? 'confirmed' }],
        opts.signal,
      );
      const slot = res?.context?.slot;
      if (!Array.isArray(res?.value) || res.value.length !== chunk.length) {
        const got = JSON.stringify(res)?.slice(0, 200);
        throw new Error(`getMultipleAccounts: expected ${chunk.length} values, got ${got}`);
      }
      res.value.forEach((v, j) => {
        const acc =
          v === null
            ? { lamports: 0, owner: SYSTEM_PROGRAM, data: ['', 'base64'], executable: false }
            : (v as Record<string, unknown>);
        out.push(normalizeAccountSnapshot({ ...acc, pubkey: chunk[j], slot }));
      });
    }
    return out;
  } finally {
    if (!opts.client) await client.close();
  }
}
