/**
 * In-process `BlockSource` over a `LocalChain`: yields the chain's blocks in the shared `core/model` shape
 * without going through JSON-RPC (the RPC path yields the same data; this one is for embedding and tests).
 */
import type { Block, NormalizedTx } from '../../core/model.js';
import { VOTE_PROGRAM } from '../../core/programs.js';
import type { BlockSource } from '../source.js';
import { allKeys } from './block-store.js';
import type { LocalChain } from './chain.js';
import type { LocalBlock, LocalTx } from './types.js';

export function toNormalizedTx(tx: LocalTx): NormalizedTx {
  const accountKeys = allKeys(tx);
  const m = tx.meta;
  return {
    signature: tx.signature,
    signatures: tx.signatures,
    slot: tx.slot,
    indexInBlock: tx.indexInBlock,
    blockTime: tx.blockTime,
    version: tx.version,
    accountKeys,
    staticKeyCount: tx.staticKeys.length,
    header: tx.header,
    recentBlockhash: tx.recentBlockhash,
    addressTableLookups: tx.addressTableLookups,
    // Top-level stackHeight stays null, exactly what the RPC's `message.instructions` carry.
    instructions: tx.instructions.map((ix) => ({ ...ix })),
    innerInstructions: m.innerInstructions.map((g) => ({ index: g.index, instructions: g.instructions.map((ix) => ({ ...ix })) })),
    logMessages: m.logMessages,
    meta: {
      err: m.err,
      fee: m.fee,
      preBalances: m.preBalances,
      postBalances: m.postBalances,
      preTokenBalances: m.preTokenBalances.map((b) => ({ ...b })),
      postTokenBalances: m.postTokenBalances.map((b) => ({ ...b })),
      computeUnitsConsumed: m.computeUnitsConsumed,
    },
    isVote: tx.instructions.some((ix) => accountKeys[ix.programIdIndex] === VOTE_PROGRAM),
  };
}

export function toNormalizedBlock(block: LocalBlock): Block {
  return {
    slot: block.slot,
    parentSlot: block.parentSlot,
    blockhash: block.blockhash,
    previousBlockhash: block.previousBlockhash,
    blockTime: block.blockTime,
    blockHeight: block.blockHeight,
    transactions: block.transactions.map(toNormalizedTx),
  };
}

export class LocalnetBlockSource implements BlockSource {
  readonly name = 'localnet:in-process';

  constructor(private readonly chain: LocalChain) {}

  async *blocks(fromSlot: number, signal?: AbortSignal): AsyncIterable<Block> {
    const queue: LocalBlock[] = [];
    let wake: (() => void) | null = null;
    const unsubscribe = this.chain.onBlock((b) => {
      queue.push(b);
      wake?.();
    });
    const onAbort = () => wake?.();
    signal?.addEventListener('abort', onAbort);
    try {
      let next = fromSlot;
      // Backfill what is retained, then follow live blocks (the queue may overlap the backfill).
      for (const slot of this.chain.getBlocks(fromSlot, this.chain.slot)) {
        if (signal?.aborted) return;
        const b = this.chain.getBlock(slot);
        if (!b) continue;
        yield toNormalizedBlock(b);
        next = slot + 1;
      }
      while (!signal?.aborted) {
        const b = queue.shift();
        if (!b) {
          await new Promise<void>((r) => (wake = r));
          wake = null;
          continue;
        }
        if (b.slot < next) continue;
        yield toNormalizedBlock(b);
        next = b.slot + 1;
      }
    } finally {
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
