/**
 * History source for a slot range (bulk backfill, e.g. from an archival RPC such as Old Faithful that serves the
 * whole ledger through the standard methods): the slots that have blocks (`getBlocks`) and each block in full
 * (`getBlock`, base64, every transaction with its position), normalised exactly as the live poller's blocks.
 */
import type { Block } from '../core/model.js';
import { mapLimit } from '../core/map-limit.js';
import { normalizeRpcBlock } from './normalize-rpc.js';
import { isSkippedSlotError, type RpcClient } from './rpc-client.js';

export interface SlotRangeOptions {
  commitment: 'confirmed' | 'finalized';
  concurrency?: number;
  signal?: AbortSignal;
}

/** The slots of `[from, to]` that have a block (the RPC allows ranges of up to 500,000 slots). */
export async function fetchBlockSlots(client: RpcClient, from: number, to: number, opts: SlotRangeOptions): Promise<number[]> {
  const res = await client.call<unknown>('getBlocks', [from, to, { commitment: opts.commitment }], opts.signal);
  if (!Array.isArray(res) || !res.every((s) => Number.isSafeInteger(s))) throw new Error(`getBlocks: expected a list of slots, got ${JSON.stringify(res)?.slice(0, 200)}`);
  return res as number[];
}

/** The blocks at `slots` (a slot reported skipped after all is left out), `concurrency` requests in flight. */
export async function fetchBlocks(client: RpcClient, slots: readonly number[], opts: SlotRangeOptions): Promise<Block[]> {
  const blocks = await mapLimit(slots, opts.concurrency ?? 8, async (slot) => {
    try {
      const res = await client.call<unknown>('getBlock', [slot, { encoding: 'base64', transactionDetails: 'full', rewards: false, maxSupportedTransactionVersion: 0, commitment: opts.commitment }], opts.signal);
      return res === null || res === undefined ? null : normalizeRpcBlock(res, slot, { skipVotes: true });
    } catch (e) {
      if (isSkippedSlotError(e)) return null;
      throw e;
    }
  });
  return blocks.filter((b): b is Block => b !== null);
}
