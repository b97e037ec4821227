/**
 * Deterministic randomness for the generators: a small seeded PRNG (sfc32) and a Zipf sampler, so a seed
 * always yields byte-identical blocks and some wallets/mints/pools are much hotter than others.
 */
import { toBase58 } from './wire.js';

/** Seeded pseudo-random generator (sfc32; 128-bit state, fast, good enough for workloads). */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Seeds the state from one integer (splitmix-style scrambling, then a short warm-up). */
  constructor(seed: number) {
    let s = seed >>> 0 || 0x9e3779b9;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A uniformly chosen element. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Log-uniform integer in [lo, hi] (amounts span orders of magnitude, as on chain). */
  logUniform(lo: number, hi: number): bigint {
    const x = Math.exp(Math.log(lo) + this.next() * (Math.log(hi) - Math.log(lo)));
    return BigInt(Math.max(lo, Math.min(hi, Math.round(x))));
  }

  /** `n` random bytes. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.u32();
      out[i] = v & 0xff;
      if (i + 1 < n) out[i + 1] = (v >>> 8) & 0xff;
      if (i + 2 < n) out[i + 2] = (v >>> 16) & 0xff;
      if (i + 3 < n) out[i + 3] = v >>> 24;
    }
    return out;
  }

  /** A random base58 public key (not necessarily on the curve — nothing checks). */
  address(): string {
    return toBase58(this.bytes(32));
  }

  /** In-place Fisher–Yates shuffle. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

/**
 * Zipf(s) over ranks 0..n-1: P(rank k) ∝ 1/(k+1)^s. With s ≈ 1 the top 1% of items draw roughly half of all
 * samples, which is how wallet and token activity is distributed on mainnet (bots, USDC/SOL, top pools).
 */
export class Zipf {
  private readonly cdf: Float64Array;

  constructor(n: number, s: number, private readonly rng: Rng) {
    this.cdf = new Float64Array(n);
    let sum = 0;
    for (let k = 0; k < n; k++) this.cdf[k] = sum += 1 / Math.pow(k + 1, s);
    for (let k = 0; k < n; k++) this.cdf[k] /= sum;
  }

  /** A rank in [0, n). */
  sample(): number {
    const u = this.rng.next();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
