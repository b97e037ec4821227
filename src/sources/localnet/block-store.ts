/**
 * In-memory ledger of the localnet: produced blocks (bounded; the oldest are dropped beyond `maxBlocks`, like a
 * node's ledger cleanup), a signature index and a per-address index for `getSignaturesForAddress`.
 */
import type { LocalBlock, LocalTx } from './types.js';

export class BlockStore {
  private readonly blocks = new Map<number, LocalBlock>();
  /** Produced slots, ascending. */
  private readonly slots: number[] = [];
  private readonly bySignature = new Map<string, LocalTx>();
  /** Per address, the transactions mentioning it, oldest first. */
  private readonly byAddress = new Map<string, LocalTx[]>();
  private txCount = 0;

  constructor(private readonly maxBlocks: number) {
    if (!(maxBlocks >= 1)) throw new Error('maxBlocks must be >= 1');
  }

  add(block: LocalBlock): void {
    const last = this.slots[this.slots.length - 1];
    if (last !== undefined && block.slot <= last) throw new Error(`block ${block.slot} is not after ${last}`);
    this.blocks.set(block.slot, block);
    this.slots.push(block.slot);
    for (const tx of block.transactions) {
      this.txCount++;
      this.bySignature.set(tx.signature, tx);
      for (const key of new Set(allKeys(tx))) {
        let list = this.byAddress.get(key);
        if (!list) this.byAddress.set(key, (list = []));
        list.push(tx);
      }
    }
    while (this.slots.length > this.maxBlocks) this.dropOldest();
  }

  private dropOldest(): void {
    const slot = this.slots.shift()!;
    const block = this.blocks.get(slot)!;
    this.blocks.delete(slot);
    for (const tx of block.transactions) {
      this.bySignature.delete(tx.signature);
      for (const key of new Set(allKeys(tx))) {
        const list = this.byAddress.get(key);
        if (!list) continue;
        // Lists are chronological, so the dropped transaction is at the front.
        if (list[0] === tx) list.shift();
        if (list.length === 0) this.byAddress.delete(key);
      }
    }
  }

  get(slot: number): LocalBlock | undefined {
    return this.blocks.get(slot);
  }

  /** Lowest retained slot (`getFirstAvailableBlock`). */
  get first(): number {
    return this.slots[0];
  }

  get last(): LocalBlock {
    return this.blocks.get(this.slots[this.slots.length - 1])!;
  }

  /** Total transactions ever stored (`getEpochInfo.transactionCount`). */
  get transactionCount(): number {
    return this.txCount;
  }

  /** Produced slots in `[start, end]`, ascending, at most `limit`. */
  range(start: number, end: number, limit = Infinity): number[] {
    const out: number[] = [];
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.slots[mid] < start) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.slots.length && this.slots[i] <= end && out.length < limit; i++) out.push(this.slots[i]);
    return out;
  }

  transaction(signature: string): LocalTx | undefined {
    return this.bySignature.get(signature);
  }

  /**
   * Transactions mentioning `address`, newest first (by slot, then position in the block), starting after
   * `before` and stopping before `until` (both signatures), at most `limit`.
   */
  signaturesFor(address: string, opts: { before?: string; until?: string; limit: number }): LocalTx[] {
    const list = this.byAddress.get(address) ?? [];
    const out: LocalTx[] = [];
    let started = opts.before === undefined;
    for (let i = list.length - 1; i >= 0 && out.length < opts.limit; i--) {
      const tx = list[i];
      if (!started) {
        if (tx.signature === opts.before) started = true;
        continue;
      }
      if (tx.signature === opts.until) break;
      out.push(tx);
    }
    return out;
  }
}

/** Static keys plus keys loaded from lookup tables. */
export function allKeys(tx: Pick<LocalTx, 'staticKeys' | 'loadedAddresses'>): string[] {
  return [...tx.staticKeys, ...tx.loadedAddresses.writable, ...tx.loadedAddresses.readonly];
}
