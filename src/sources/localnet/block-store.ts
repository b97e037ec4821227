/**
 * The ledger of the localnet: produced blocks, a signature index and a per-address index for
 * `getSignaturesForAddress`, bounded like a validator's ledger (`--limit-ledger-size`): beyond `maxBlocks` the
 * oldest blocks are dropped and `first` (`getFirstAvailableBlock`) moves up.
 *
 * Only the `hotBlocks` most recent blocks stay in memory as objects (what the ingester and the RPC read almost
 * always). Older retained blocks are serialized (`v8.serialize`) into append-only segment files on disk, as a
 * validator keeps its ledger in its blockstore, and read back on demand (a few recently read ones are cached); a
 * segment file is deleted once all its blocks are dropped. What stays in memory per retained block is its slot and
 * file offset, and per transaction its position in the signature and address indexes, so the memory of a chain
 * running for hours stays flat while `getBlock`, `getTransaction` and `getSignaturesForAddress` answer for the whole
 * retained history exactly as before.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { LocalBlock, LocalTx } from './types.js';

export interface BlockStoreOptions {
  /** Most recent blocks kept as objects in memory (>= 1); older retained ones live in ledger files. Default 256. */
  hotBlocks?: number;
  /**
   * Directory of the ledger files, owned by this store: emptied when the first file is written, removed by
   * `close()`. Default: a new temporary directory (created on first use).
   */
  dir?: string;
  /** Blocks per segment file (a file is deleted once all its blocks are dropped). Default 1024. */
  segmentBlocks?: number;
}

/** A transaction's place in the ledger: `slot * 2^20 + indexInBlock` (exact in a double for slots below 2^33). */
type Pos = number;
const POS_SHIFT = 2 ** 20;
const pos = (slot: number, index: number): Pos => slot * POS_SHIFT + index;
const posSlot = (p: Pos): number => Math.floor(p / POS_SHIFT);
const posIndex = (p: Pos): number => p % POS_SHIFT;

/** Decoded cold blocks kept for repeated reads (a page of `getSignaturesForAddress`, a backfill). */
const COLD_CACHE = 32;

interface Segment {
  path: string;
  fd: number;
  /** Slots written to this file, ascending, and where each block starts; `size` is where the next one goes. */
  slots: number[];
  offsets: number[];
  size: number;
  /** Blocks of this file dropped from the ledger so far. */
  dropped: number;
}

export class BlockStore {
  /** Every retained slot, ascending. */
  private readonly slots: number[] = [];
  /** The most recent retained blocks (the last `hotBlocks` of `slots`). */
  private readonly hot = new Map<number, LocalBlock>();
  private readonly segments: Segment[] = [];
  private readonly coldCache = new Map<number, LocalBlock>();
  private readonly bySignature = new Map<string, Pos>();
  /** Per address, the positions of the transactions mentioning it, oldest first. */
  private readonly byAddress = new Map<string, Pos[]>();
  private txCount = 0;
  private readonly hotBlocks: number;
  private readonly segmentBlocks: number;
  private dir: string | null = null;
  private removeOnExit: (() => void) | null = null;

  constructor(private readonly maxBlocks: number, private readonly opts: BlockStoreOptions = {}) {
    if (!(maxBlocks >= 1)) throw new Error('maxBlocks must be >= 1');
    this.hotBlocks = opts.hotBlocks ?? 256;
    if (!(this.hotBlocks >= 1)) throw new Error('hotBlocks must be >= 1');
    this.segmentBlocks = opts.segmentBlocks ?? 1024;
    if (!(this.segmentBlocks >= 1)) throw new Error('segmentBlocks must be >= 1');
  }

  add(block: LocalBlock): void {
    const lastSlot = this.slots[this.slots.length - 1];
    if (lastSlot !== undefined && block.slot <= lastSlot) throw new Error(`block ${block.slot} is not after ${lastSlot}`);
    if (block.transactions.length >= POS_SHIFT) throw new Error(`block ${block.slot} has too many transactions`);
    this.hot.set(block.slot, block);
    this.slots.push(block.slot);
    for (const tx of block.transactions) {
      this.txCount++;
      const p = pos(block.slot, tx.indexInBlock);
      this.bySignature.set(tx.signature, p);
      for (const key of new Set(allKeys(tx))) {
        let list = this.byAddress.get(key);
        if (!list) this.byAddress.set(key, (list = []));
        list.push(p);
      }
    }
    while (this.slots.length > this.maxBlocks) this.dropOldest();
    while (this.hot.size > this.hotBlocks) {
      const oldest = this.slots[this.slots.length - this.hot.size];
      this.spill(this.hot.get(oldest)!);
      this.hot.delete(oldest);
    }
  }

  private dropOldest(): void {
    const slot = this.slots[0];
    const block = this.get(slot)!;
    this.slots.shift();
    if (!this.hot.delete(slot)) this.dropCold(slot);
    for (const tx of block.transactions) {
      this.bySignature.delete(tx.signature);
      const p = pos(slot, tx.indexInBlock);
      for (const key of new Set(allKeys(tx))) {
        const list = this.byAddress.get(key);
        if (!list) continue;
        // Lists are chronological, so the dropped transaction is at the front.
        if (list[0] === p) list.shift();
        if (list.length === 0) this.byAddress.delete(key);
      }
    }
  }

  /** Appends `block` to the current segment file (a new one every `segmentBlocks` blocks). */
  private spill(block: LocalBlock): void {
    let seg = this.segments[this.segments.length - 1];
    if (!seg || seg.slots.length >= this.segmentBlocks) {
      if (seg && seg.dropped === seg.slots.length) this.deleteOldestSegment();
      const path = join(this.ledgerDir(), `${block.slot}.blocks`);
      seg = { path, fd: openSync(path, 'w+'), slots: [], offsets: [], size: 0, dropped: 0 };
      this.segments.push(seg);
    }
    const bytes = serialize(block);
    let written = 0;
    while (written < bytes.length) written += writeSync(seg.fd, bytes, written, bytes.length - written, seg.size + written);
    seg.slots.push(block.slot);
    seg.offsets.push(seg.size);
    seg.size += bytes.length;
  }

  private dropCold(slot: number): void {
    this.coldCache.delete(slot);
    const seg = this.segments[0];
    if (!seg || seg.slots[seg.dropped] !== slot) return;
    seg.dropped++;
    if (seg.dropped === seg.slots.length && seg !== this.segments[this.segments.length - 1]) this.deleteOldestSegment();
  }

  private deleteOldestSegment(): void {
    const seg = this.segments.shift()!;
    closeSync(seg.fd);
    rmSync(seg.path, { force: true });
  }

  private ledgerDir(): string {
    if (this.dir) return this.dir;
    if (this.opts.dir) {
      rmSync(this.opts.dir, { recursive: true, force: true });
      mkdirSync(this.opts.dir, { recursive: true });
      this.dir = this.opts.dir;
    } else {
      this.dir = mkdtempSync(join(tmpdir(), 'solgate-ledger-'));
    }
    // The files are this process's scratch: gone with it even when nobody calls close() (tests, process.exit).
    const dir = this.dir;
    this.removeOnExit = () => rmSync(dir, { recursive: true, force: true });
    process.once('exit', this.removeOnExit);
    return dir;
  }

  private readCold(slot: number): LocalBlock | undefined {
    const cached = this.coldCache.get(slot);
    if (cached) {
      this.coldCache.delete(slot);
      this.coldCache.set(slot, cached);
      return cached;
    }
    // Segments are in slot order: the last one starting at or before `slot`.
    let lo = 0;
    let hi = this.segments.length - 1;
    let seg: Segment | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.segments[mid].slots[0] <= slot) {
        seg = this.segments[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (!seg) return undefined;
    const i = lowerBound(seg.slots, slot);
    if (i < seg.dropped || seg.slots[i] !== slot) return undefined;
    const start = seg.offsets[i];
    const end = i + 1 < seg.offsets.length ? seg.offsets[i + 1] : seg.size;
    const buf = Buffer.allocUnsafe(end - start);
    let read = 0;
    while (read < buf.length) {
      const n = readSync(seg.fd, buf, read, buf.length - read, start + read);
      if (n === 0) throw new Error(`ledger file ${seg.path} is truncated`);
      read += n;
    }
    const block = deserialize(buf) as LocalBlock;
    this.coldCache.set(slot, block);
    if (this.coldCache.size > COLD_CACHE) this.coldCache.delete(this.coldCache.keys().next().value!);
    return block;
  }

  get(slot: number): LocalBlock | undefined {
    return this.hot.get(slot) ?? (this.slots.length && slot >= this.slots[0] ? this.readCold(slot) : undefined);
  }

  /** Lowest retained slot (`getFirstAvailableBlock`). */
  get first(): number {
    return this.slots[0];
  }

  get last(): LocalBlock {
    return this.hot.get(this.slots[this.slots.length - 1])!;
  }

  /** Total transactions ever stored (`getEpochInfo.transactionCount`). */
  get transactionCount(): number {
    return this.txCount;
  }

  /** Blocks held in memory as objects (the hot window), for tests and diagnostics. */
  get blocksInMemory(): number {
    return this.hot.size;
  }

  /** Produced slots in `[start, end]`, ascending, at most `limit`. */
  range(start: number, end: number, limit = Infinity): number[] {
    const out: number[] = [];
    for (let i = lowerBound(this.slots, start); i < this.slots.length && this.slots[i] <= end && out.length < limit; i++) out.push(this.slots[i]);
    return out;
  }

  private txAt(p: Pos): LocalTx | undefined {
    return this.get(posSlot(p))?.transactions[posIndex(p)];
  }

  transaction(signature: string): LocalTx | undefined {
    const p = this.bySignature.get(signature);
    return p === undefined ? undefined : this.txAt(p);
  }

  /** Whether a retained transaction has this signature (no block is read). */
  hasTransaction(signature: string): boolean {
    return this.bySignature.has(signature);
  }

  /**
   * Transactions mentioning `address`, newest first (by slot, then position in the block), starting after
   * `before` and stopping before `until` (both signatures), at most `limit`. A `before` that is not one of the
   * address's transactions yields nothing; an `until` that is not one of them does not stop the list.
   */
  signaturesFor(address: string, opts: { before?: string; until?: string; limit: number }): LocalTx[] {
    const list = this.byAddress.get(address) ?? [];
    let from = list.length - 1;
    if (opts.before !== undefined) {
      const b = this.bySignature.get(opts.before);
      const i = b === undefined ? -1 : lowerBound(list, b);
      if (i < 0 || list[i] !== b) return [];
      from = i - 1;
    }
    let stop = -1;
    if (opts.until !== undefined) {
      const u = this.bySignature.get(opts.until);
      const i = u === undefined ? -1 : lowerBound(list, u);
      // As before: an `until` newer than `before` is never reached.
      if (i >= 0 && list[i] === u && i <= from) stop = i;
    }
    const out: LocalTx[] = [];
    for (let i = from; i > stop && out.length < opts.limit; i--) {
      const tx = this.txAt(list[i]);
      if (tx) out.push(tx);
    }
    return out;
  }

  /** Closes and deletes the ledger files (the store keeps answering from its hot blocks only). */
  close(): void {
    for (const seg of this.segments) closeSync(seg.fd);
    this.segments.length = 0;
    this.coldCache.clear();
    if (this.removeOnExit) {
      process.removeListener('exit', this.removeOnExit);
      this.removeOnExit();
      this.removeOnExit = null;
    }
    this.dir = null;
  }
}

/** First index of sorted `a` whose value is >= `x` (`a.length` when none). */
function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Static keys plus keys loaded from lookup tables. */
export function allKeys(tx: Pick<LocalTx, 'staticKeys' | 'loadedAddresses'>): string[] {
  return [...tx.staticKeys, ...tx.loadedAddresses.writable, ...tx.loadedAddresses.readonly];
}
