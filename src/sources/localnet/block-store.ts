/**
 * The ledger of the localnet: produced blocks, a signature index and a per-address index for
 * `getSignaturesForAddress`. By default it keeps every block for the life of the chain, like a validator without
 * `--limit-ledger-size`; with a finite `maxBlocks` the oldest blocks beyond it are dropped and `first`
 * (`getFirstAvailableBlock`) moves up.
 *
 * Only the `hotBlocks` most recent blocks stay in memory as objects (what the ingester and the RPC read almost
 * always). Older retained blocks are serialized (`v8.serialize`) into append-only segment files on disk, as a
 * validator keeps its ledger in its blockstore, and read back on demand (a few recently read ones are cached); a
 * segment file is deleted once all its blocks are dropped. What stays in memory per retained block is its slot and
 * file offset, and per transaction its position in the signature and address indexes, so the memory of a chain
 * running for hours grows only by those index entries while `getBlock`, `getTransaction` and
 * `getSignaturesForAddress` answer for the whole retained history exactly as before. Only the file being written and
 * a few recently read ones are kept open (a long run has thousands of segment files).
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { base58ToBytes } from '../../core/encoding.js';
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
/** Segment files kept open for reading besides the one being written. */
const OPEN_READERS = 8;

interface Segment {
  path: string;
  /** Open descriptor: always for the segment being written, else only while among the recently read ones. */
  fd: number | null;
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
  /** Full segments with an open descriptor, least recently read first. */
  private readonly readers: Segment[] = [];
  /**
   * Signature → position, keyed by the signature's first 53 bits (a number key costs a fraction of an 88-character
   * string one, and the index grows with every transaction of the run); a hit is confirmed against the stored
   * transaction, and the rare shared keys hold several positions.
   */
  private readonly bySignature = new Map<number, Pos | Pos[]>();
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
      this.indexSignature(tx.signature, p);
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
      const p = pos(slot, tx.indexInBlock);
      this.unindexSignature(tx.signature, p);
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
      else if (seg) this.closeFd(seg);
      const path = join(this.ledgerDir(), `${block.slot}.blocks`);
      seg = { path, fd: openSync(path, 'w+'), slots: [], offsets: [], size: 0, dropped: 0 };
      this.segments.push(seg);
    }
    const bytes = serialize(block);
    let written = 0;
    while (written < bytes.length) written += writeSync(seg.fd!, bytes, written, bytes.length - written, seg.size + written);
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
    this.closeFd(seg);
    rmSync(seg.path, { force: true });
  }

  private closeFd(seg: Segment): void {
    if (seg.fd === null) return;
    closeSync(seg.fd);
    seg.fd = null;
    const i = this.readers.indexOf(seg);
    if (i >= 0) this.readers.splice(i, 1);
  }

  /** The descriptor of a segment to read from, opening it (and closing the least recently read) when needed. */
  private readFd(seg: Segment): number {
    if (seg === this.segments[this.segments.length - 1] && seg.fd !== null) return seg.fd;
    const i = this.readers.indexOf(seg);
    if (i >= 0) {
      this.readers.splice(i, 1);
      this.readers.push(seg);
      return seg.fd!;
    }
    seg.fd = openSync(seg.path, 'r');
    this.readers.push(seg);
    if (this.readers.length > OPEN_READERS) this.closeFd(this.readers[0]);
    return seg.fd;
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
    const fd = this.readFd(seg);
    let read = 0;
    while (read < buf.length) {
      const n = readSync(fd, buf, read, buf.length - read, start + read);
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

  /** The newest retained slot at or before `slot`, if any. */
  atOrBefore(slot: number): number | undefined {
    const i = lowerBound(this.slots, slot + 1) - 1;
    return i >= 0 ? this.slots[i] : undefined;
  }

  /** Produced slots in `[start, end]`, ascending, at most `limit`. */
  range(start: number, end: number, limit = Infinity): number[] {
    const out: number[] = [];
    for (let i = lowerBound(this.slots, start); i < this.slots.length && this.slots[i] <= end && out.length < limit; i++) out.push(this.slots[i]);
    return out;
  }

  private indexSignature(signature: string, p: Pos): void {
    const k = sigKey(signature);
    const cur = this.bySignature.get(k);
    this.bySignature.set(k, cur === undefined ? p : Array.isArray(cur) ? [...cur, p] : [cur, p]);
  }

  private unindexSignature(signature: string, p: Pos): void {
    const k = sigKey(signature);
    const cur = this.bySignature.get(k);
    if (!Array.isArray(cur)) {
      if (cur === p) this.bySignature.delete(k);
      return;
    }
    const rest = cur.filter((x) => x !== p);
    this.bySignature.set(k, rest.length === 1 ? rest[0] : rest);
  }

  /** Position of the retained transaction with this signature (confirmed by reading it), if any. */
  private position(signature: string): Pos | undefined {
    const cur = this.bySignature.get(sigKey(signature));
    if (cur === undefined) return undefined;
    for (const p of Array.isArray(cur) ? cur : [cur]) if (this.txAt(p)?.signature === signature) return p;
    return undefined;
  }

  private txAt(p: Pos): LocalTx | undefined {
    return this.get(posSlot(p))?.transactions[posIndex(p)];
  }

  transaction(signature: string): LocalTx | undefined {
    const p = this.position(signature);
    return p === undefined ? undefined : this.txAt(p);
  }

  /** Whether a retained transaction has this signature (no block is read). */
  hasTransaction(signature: string): boolean {
    return this.position(signature) !== undefined;
  }

  /**
   * Transactions mentioning `address`, newest first (by slot, then position in the block), as the RPC's
   * `getSignaturesForAddress`: strictly older than `before` and strictly newer than `until`, at most `limit`. Both are
   * positions in the ledger, so any retained transaction's signature works, whether or not it mentions `address`; an
   * unknown `before` yields nothing and an unknown `until` does not stop the list. With `maxSlot`, transactions of
   * later slots are left out (a read at a commitment behind the newest block).
   */
  signaturesFor(address: string, opts: { before?: string; until?: string; limit: number; maxSlot?: number }): LocalTx[] {
    const list = this.byAddress.get(address) ?? [];
    let from = opts.maxSlot === undefined ? list.length - 1 : lowerBound(list, pos(opts.maxSlot + 1, 0)) - 1;
    if (opts.before !== undefined) {
      const b = this.position(opts.before);
      if (b === undefined) return [];
      from = Math.min(from, lowerBound(list, b) - 1);
    }
    let stop = -1;
    if (opts.until !== undefined) {
      const u = this.position(opts.until);
      if (u !== undefined) {
        const i = lowerBound(list, u);
        stop = list[i] === u ? i : i - 1;
      }
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
    for (const seg of this.segments) this.closeFd(seg);
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

/**
 * The first 53 bits of a base58 signature's bytes; any other string (not a signature a transaction can have) gets a
 * negative 53-bit hash of its text.
 */
function sigKey(signature: string): number {
  let bytes: Uint8Array | null = null;
  try {
    bytes = base58ToBytes(signature);
  } catch {
    // not base58
  }
  if (!bytes) {
    let h1 = 0x811c9dc5;
    let h2 = 0;
    for (let i = 0; i < signature.length; i++) {
      h1 = Math.imul(h1 ^ signature.charCodeAt(i), 0x01000193) >>> 0;
      h2 = (h2 * 31 + signature.charCodeAt(i)) & 0x1fffff;
    }
    return -(h1 * 0x200000 + h2) - 1;
  }
  let k = 0;
  for (let i = 0; i < 6; i++) k = k * 256 + (bytes[i] ?? 0);
  return k * 32 + ((bytes[6] ?? 0) >> 3);
}

/** Static keys plus keys loaded from lookup tables. */
export function allKeys(tx: Pick<LocalTx, 'staticKeys' | 'loadedAddresses'>): string[] {
  return [...tx.staticKeys, ...tx.loadedAddresses.writable, ...tx.loadedAddresses.readonly];
}
