/**
 * The Poseidon pair memo's table (used by `poseidon.ts`, which owns the one instance and its limit) and the work
 * counters it shares with the hash functions.
 */

/** Work done since start: hashes computed, pair-memo lookups and hits (for benchmarks and profiles). */
export interface PoseidonCounters {
  hashes: number;
  pairLookups: number;
  pairHits: number;
}
export const counters: PoseidonCounters = { hashes: 0, pairLookups: 0, pairHits: 0 };

/**
 * The pair memo: a 4-way set-associative table of (left, right, parent) entries in one byte array, the set chosen
 * from the pairs' low bytes (node hashes are uniform there). A lookup compares all 64 bytes of the pair, so a hit is
 * exactly the hash function's result for that pair; a new pair takes a free way of its set, else evicts one in
 * turn once the table has its full size. It starts small and doubles (re-placing its entries) when half full or
 * when a pair finds its set full, up to its limit.
 *
 * Pairs are given as (array, offset) so that stores and `getInto` allocate nothing.
 */
export class PairMemo {
  private data: Uint8Array;
  /** Per slot, a 32-bit tag of its pair (never 0), or 0 when the slot is free: a lookup reads the four tags of its
   * set (one cache line) and compares bytes only where the tag matches. */
  private tags: Int32Array;
  private filled = 0;
  private turn = 0;
  /** Set by `mix`: the first slot of the pair's set and its tag. */
  private first = 0;
  private tag = 0;

  constructor(
    private slots: number,
    public max: number,
  ) {
    this.data = new Uint8Array(slots * 96);
    this.tags = new Int32Array(slots);
  }

  /** Entries the table has room for now, and how many it holds. */
  get size(): { slots: number; filled: number } {
    return { slots: this.slots, filled: this.filled };
  }

  /** The pair's set (first slot of 4) and tag, from the pairs' low bytes, into `first` and `tag`. */
  private mix(l: Uint8Array, lo: number, r: Uint8Array, ro: number): void {
    const a = (l[lo + 28] | (l[lo + 29] << 8) | (l[lo + 30] << 16) | (l[lo + 31] << 24)) ^ (l[lo + 20] | (l[lo + 21] << 8));
    const b = (r[ro + 28] | (r[ro + 29] << 8) | (r[ro + 30] << 16) | (r[ro + 31] << 24)) ^ (r[ro + 20] | (r[ro + 21] << 8));
    const h = Math.imul(a ^ Math.imul(b ^ (b >>> 15), 0x85ebca6b), 0xc2b2ae35);
    this.first = (h ^ (h >>> 13)) & (this.slots - 4);
    this.tag = h | 1;
  }

  private find(l: Uint8Array, lo: number, r: Uint8Array, ro: number): number {
    const d = this.data;
    const tags = this.tags;
    const first = this.first;
    const tag = this.tag;
    for (let s = first; s < first + 4; s++) {
      if (tags[s] !== tag) continue;
      const at = s * 96;
      let i = 0;
      while (i < 32 && d[at + i] === l[lo + i] && d[at + 32 + i] === r[ro + i]) i++;
      if (i === 32) return s;
    }
    return -1;
  }

  /** Copies the parent of the pair to `out` at `oo` and returns true, or returns false when not remembered. */
  getInto(l: Uint8Array, lo: number, r: Uint8Array, ro: number, out: Uint8Array, oo: number): boolean {
    counters.pairLookups++;
    this.mix(l, lo, r, ro);
    const s = this.find(l, lo, r, ro);
    if (s < 0) return false;
    counters.pairHits++;
    const d = this.data;
    for (let i = 0, at = s * 96 + 64; i < 32; i++) out[oo + i] = d[at + i];
    return true;
  }

  /** The parent of the pair (a copy), or undefined when not remembered. */
  get(l: Uint8Array, lo: number, r: Uint8Array, ro: number): Uint8Array | undefined {
    counters.pairLookups++;
    this.mix(l, lo, r, ro);
    const s = this.find(l, lo, r, ro);
    if (s < 0) return undefined;
    counters.pairHits++;
    return this.data.slice(s * 96 + 64, s * 96 + 96);
  }

  set(l: Uint8Array, lo: number, r: Uint8Array, ro: number, parent: Uint8Array, po: number): void {
    if (this.filled * 2 >= this.slots && this.slots < this.max) this.grow();
    this.mix(l, lo, r, ro);
    let s = this.find(l, lo, r, ro);
    if (s < 0) {
      for (let w = this.first; w < this.first + 4 && s < 0; w++) if (this.tags[w] === 0) s = w;
      if (s < 0 && this.slots < this.max) {
        // a full set below the size limit: grow rather than evict
        this.grow();
        this.mix(l, lo, r, ro);
        for (let w = this.first; w < this.first + 4 && s < 0; w++) if (this.tags[w] === 0) s = w;
      }
      if (s < 0) s = this.first + (this.turn++ & 3);
      else this.filled++;
      this.tags[s] = this.tag;
    }
    const at = s * 96;
    const d = this.data;
    for (let i = 0; i < 32; i++) {
      d[at + i] = l[lo + i];
      d[at + 32 + i] = r[ro + i];
      d[at + 64 + i] = parent[po + i];
    }
  }

  private grow(): void {
    const { data, tags } = this;
    const old = this.slots;
    this.slots = old * 2;
    this.data = new Uint8Array(this.slots * 96);
    this.tags = new Int32Array(this.slots);
    this.filled = 0;
    for (let s = 0; s < old; s++) {
      if (tags[s] === 0) continue;
      // the entries are distinct: each takes a free way of its new set, the whole entry copied at once; a full set
      // goes through set(), which grows the table again (placing what is placed so far) or evicts at the limit
      this.mix(data, s * 96, data, s * 96 + 32);
      let w = this.first;
      while (w < this.first + 4 && this.tags[w] !== 0) w++;
      if (w === this.first + 4) {
        this.set(data, s * 96, data, s * 96 + 32, data, s * 96 + 64);
        continue;
      }
      this.filled++;
      this.tags[w] = this.tag;
      this.data.set(data.subarray(s * 96, s * 96 + 96), w * 96);
    }
  }

  /** Empties the table and sets its limit (a power of two ≥ 4,096). */
  reset(max: number): void {
    this.max = max;
    this.slots = 1 << 12;
    this.data = new Uint8Array(this.slots * 96);
    this.tags = new Int32Array(this.slots);
    this.filled = 0;
  }
}
