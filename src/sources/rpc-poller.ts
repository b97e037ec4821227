/**
 * The live source: follows a cluster over plain Solana JSON-RPC (no Geyser plugin needed).
 *
 * Skipped slots are learnt from `getBlocks(start, end)` (they are simply absent), so the poller never asks
 * for a block that does not exist; the blocks themselves are fetched with `getBlock` in base64 encoding with
 * a bounded prefetch window (`concurrency` requests in flight) yet yielded in strict slot order, so the
 * ingester can checkpoint after every block. When caught up it polls `getSlot` every `pollIntervalMs`.
 *
 * Gaps: a node can wrongly leave a block out of `getBlocks` or answer "slot skipped" for it (a node behind a load
 * balancer, a ledger jump). Two defences. In order: each block names its parent; a parent above the last yielded
 * slot is a block that was passed as empty, so it is fetched (and its own parent, and so on) and yielded first —
 * no extra request unless a gap is found (`stats.gapsDetected`, `parentGapsFilled`). Late, for a parent that still
 * cannot be fetched: every slot passed as empty is remembered and, once it is `gapRecheckDepth` slots behind
 * the tip (default 64, past finalization), re-checked once with `getBlocks` at `finalized` commitment whenever the
 * poller has caught up; a block found then is fetched and yielded late (below the last yielded slot — the store's
 * writes are idempotent, position-guarded and the checkpoint never moves back), counted in `stats.gapsDetected` /
 * `backfilledBlocks` and `solgate_ingest_backfilled_blocks_total`. Slots passed as empty by an earlier process are
 * not re-checked after a restart.
 *
 * With `fetchAccounts` (default on), each block also carries `accounts`: the state, fetched right after the
 * block with `getMultipleAccounts` (`minContextSlot` = its slot), of the accounts its transactions wrote for the
 * asset programs (see `account-fetch.ts`), because transactions alone do not carry account-derived asset data.
 */
import type { Logger } from 'pino';
import type { Block } from '../core/model.js';
import { attachBlockAccounts } from './account-fetch.js';
import { normalizeRpcBlock } from './normalize-rpc.js';
import {
  createRpcClient,
  isSkippedSlotError,
  type FetchLike,
  type PollerCommitment,
  type RetryOptions,
} from './rpc-client.js';
import type { BlockSource } from './source.js';
import { ingestBackfilledBlocks, ingestGapsDetected, ingestRpcErrors, ingestRpcRetries } from '../core/metrics.js';

export type { PollerCommitment };

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
  /**
   * Slots behind the tip after which a slot passed as empty is re-checked once (`getBlocks`, finalized), and its
   * block ingested late if it exists after all (default 64; 0 disables the re-check).
   */
  gapRecheckDepth?: number;
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
  /** Slots passed as empty that were re-checked once finalized. */
  gapRechecks: number;
  /** Re-checked slots that held a block after all (gaps that would otherwise have stayed). */
  gapsDetected: number;
  /** Blocks of detected gaps fetched and yielded late. */
  backfilledBlocks: number;
  /** Blocks passed as empty, found through a later block's parent slot and yielded in order before it. */
  parentGapsFilled: number;
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
  const recheckDepth = Math.max(0, opts.gapRecheckDepth ?? 64);
  const stats: RpcPollerStats = {
    blocksFetched: 0, retries: 0, errors: 0, skippedSlots: 0, tip: null, lastSlot: null, accountsFetched: 0,
    gapRechecks: 0, gapsDetected: 0, backfilledBlocks: 0, parentGapsFilled: 0,
  };
  const client = createRpcClient({
    ...opts,
    connections: concurrency + 2,
    onRetry: () => {
      stats.retries++;
      ingestRpcRetries.inc();
    },
    onError: ({ error }) => {
      if (isSkippedSlotError(error)) return;
      stats.errors++;
      ingestRpcErrors.inc();
    },
  });
  /** Slots passed as empty, to re-check once they are `recheckDepth` behind the tip (bounded: oldest dropped). */
  let suspects: number[] = [];
  const MAX_SUSPECTS = 100_000;
  const suspect = (slot: number) => {
    if (!recheckDepth) return;
    suspects.push(slot);
    if (suspects.length > MAX_SUSPECTS) suspects.splice(0, suspects.length - MAX_SUSPECTS);
  };

  async function getTip(signal: AbortSignal): Promise<number> {
    const tip = await client.call<number>('getSlot', [{ commitment }], signal);
    if (!Number.isSafeInteger(tip) || tip < 0) throw new Error(`getSlot: unexpected result ${JSON.stringify(tip)}`);
    stats.tip = tip;
    return tip;
  }

  /** Existing slots in [start, end], ascending and unique whatever the node returned. */
  async function existingSlots(start: number, end: number, signal: AbortSignal, c: PollerCommitment = commitment): Promise<number[]> {
    const res = await client.call<unknown>('getBlocks', [start, end, { commitment: c }], signal);
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
      suspect(slot);
      return null;
    }
    if (res === null) {
      // Old nodes answer null instead of -32007 for a slot without a block.
      stats.skippedSlots++;
      suspect(slot);
      return null;
    }
    const block = normalizeRpcBlock(res, slot, { skipVotes: true });
    if (fetchAccountsOn) {
      // Within the prefetch window too: the state is as of the response's slot (>= this block), and account rows
      // are guarded by that slot, so fetching ahead of the ingester is safe.
      // Read first, then added: `x += await …` would add to the value read before the await (prefetches overlap).
      const read = await attachBlockAccounts(client, block, { commitment, signal });
      stats.accountsFetched += read;
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
    let lastYielded: number | null = null;
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
            if (recheckDepth) {
              const listed = new Set(slots);
              for (let s = scanFrom; s <= covered; s++) if (!listed.has(s)) suspect(s);
            }
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
            for (const missed of await missedParents(block, lastYielded ?? fromSlot - 1, inner)) {
              if (inner.aborted) return;
              stats.lastSlot = lastYielded = missed.slot;
              yield missed;
            }
            if (inner.aborted) return;
            stats.lastSlot = lastYielded = block.slot;
            yield block;
          }
          continue;
        }
        // Nothing queued or in flight: caught up with the last known tip. Slots passed as empty long enough ago are
        // re-checked first; blocks found are yielded late.
        for (const block of await recheckGaps(tip, inner)) {
          if (inner.aborted) return;
          yield block;
        }
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

  /**
   * The blocks between `floor` (exclusive; the last slot yielded) and `block` that were passed as empty although
   * `block`'s parent chain goes through them, oldest first. Stops at a parent that still cannot be fetched (left to
   * the late re-check).
   */
  async function missedParents(block: Block, floor: number, signal: AbortSignal): Promise<Block[]> {
    const out: Block[] = [];
    let parent = block.parentSlot;
    while (parent !== null && parent > floor && parent < (out[0]?.slot ?? block.slot)) {
      stats.gapsDetected++;
      ingestGapsDetected.inc();
      log?.warn({ slot: parent, child: block.slot }, 'gap: a block\'s parent slot was passed as skipped; fetching it first');
      const before = stats.skippedSlots;
      const b = await fetchBlock(parent, signal);
      if (!b) {
        stats.skippedSlots = before;
        break;
      }
      const filled = parent;
      suspects = suspects.filter((s) => s !== filled);
      out.unshift(b);
      stats.parentGapsFilled++;
      stats.skippedSlots--; // it was counted as empty when passed
      parent = b.parentSlot;
    }
    return out;
  }

  /**
   * Re-checks, once, the slots passed as empty that are now `recheckDepth` behind `tip`: `getBlocks` at finalized
   * commitment over each cluster of them (one call per `windowSize` slots), then `getBlock` for any listed after all.
   */
  async function recheckGaps(tip: number, signal: AbortSignal): Promise<Block[]> {
    if (!recheckDepth || !suspects.length || tip < 0) return [];
    const limit = tip - recheckDepth;
    const due = [...new Set(suspects.filter((s) => s <= limit))].sort((a, b) => a - b);
    if (!due.length) return [];
    const found: number[] = [];
    for (let i = 0; i < due.length; ) {
      let j = i;
      while (j + 1 < due.length && due[j + 1] - due[i] < windowSize) j++;
      const listed = new Set(await existingSlots(due[i], due[j], signal, 'finalized'));
      for (let k = i; k <= j; k++) if (listed.has(due[k])) found.push(due[k]);
      i = j + 1;
    }
    // Only now (every range answered) are the due slots forgotten: a failure above re-checks them next time.
    suspects = suspects.filter((s) => s > limit);
    stats.gapRechecks += due.length;
    const out: Block[] = [];
    for (const slot of found) {
      stats.gapsDetected++;
      ingestGapsDetected.inc();
      log?.warn({ slot }, 'gap: a slot passed as skipped holds a block; ingesting it late');
      const before = stats.skippedSlots;
      const block = await fetchBlock(slot, signal);
      if (!block) {
        // Still answered skipped: counted as such once (not re-queued again).
        stats.skippedSlots = before;
        suspects = suspects.filter((s) => s !== slot);
        continue;
      }
      stats.backfilledBlocks++;
      ingestBackfilledBlocks.inc();
      out.push(block);
    }
    return out;
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

// Account reads over the same JSON-RPC (kept importable from here).
export { fetchAccounts, type FetchAccountsOptions } from './account-fetch.js';
