/**
 * The one interface every chain input implements: a stream of blocks in strict slot order, and separately a
 * stream of account updates. Sources never touch the database; the ingester decides where to resume.
 */
import type { AccountUpdate, Block } from '../core/model.js';

export interface BlockSource {
  /** Human-readable name for logs and metrics (e.g. `rpc:http://…`, `replay:3 files`). */
  readonly name: string;
  /**
   * Yields blocks with `slot >= fromSlot` in increasing slot order, skipped slots omitted. A live source never
   * ends unless `signal` aborts; a recorded source ends after its last block.
   */
  blocks(fromSlot: number, signal?: AbortSignal): AsyncIterable<Block>;
}

export interface AccountSource {
  readonly name: string;
  /** Yields account updates in the order they should be applied (batches keep a source's natural grouping). */
  accounts(signal?: AbortSignal): AsyncIterable<AccountUpdate[]>;
}
