/**
 * Poseidon (BN254, circom parameters) as a WebAssembly module written here, byte by byte, at start-up: Montgomery
 * arithmetic on nine 29-bit limbs held in 64-bit integers, the permutation in loops, and one exported call that
 * hashes a whole batch of inputs. No compiler, no binary in the repository: the module is a few kilobytes of code
 * generated from this file (the binary format's framing is `wasm-encoding.ts`), and the constants come from
 * `poseidon-params.ts`.
 *
 * Why not Light's `@lightprotocol/hasher.rs`: that is arkworks compiled to WASM, whose 64-bit limbs need 128-bit
 * products WASM does not have, so each field multiplication goes through emulated wide arithmetic, and it takes
 * its inputs as decimal strings, one call per hash. The results are the same (tests compare the two for every
 * width).
 *
 * The arithmetic: with 29-bit limbs a product is below 2^58, so the 18 products a limb of the Montgomery
 * multiplication (R = 2^261) collects fit in 64 bits without propagating carries (one carry per reduction step,
 * the rest once at the end). Values are kept below 32p instead of below p: p < 2^254 and R = 2^261 (p/R < 1/169),
 * so the Montgomery product of two values below 32p is below 32·32·p/169 + p < 8p, additions only propagate
 * carries, and no intermediate result needs the conditional subtraction; the output is reduced to 0 .. p − 1
 * once, at the end. Each MDS output is one reduction of the unreduced sum of its t products (below
 * 13·32·p/169 + p < 4p), not t reductions. (Bounds: inputs enter below p; S-box outputs are below 8p; MDS outputs
 * below 4p; a round constant adds less than p.)
 *
 * Memory layout (bytes; an element is 64 bytes, nine little-endian 32-bit words holding one limb each): R² mod p at
 * 64, the canonical 1 at 128, temporaries at 192 and 256, the state at 512 and the next state at 1408 (13 elements
 * each), the constants of each width from 4096 (written when the width is first used), the batch input area at
 * IN_BASE (32-byte canonical little-endian values, as JavaScript writes them) and the output area at OUT_BASE
 * (canonical values in limbs).
 */
import { BN254_FIELD_MODULUS as P, FULL_ROUNDS, poseidonParams } from './poseidon-params.js';
import { Body, I32, OP, VOID, name, section, uleb, vec } from './wasm-encoding.js';

const LIMBS = 9;
const LIMB_BITS = 29;
const MASK = (1n << 29n) - 1n;
const R = 1n << 261n;

const R2_AT = 64;
const ONE_AT = 128;
const TMP = 192;
const TMP2 = 256;
const STATE = 512;
const NEXT = 1408;
const CONST_BASE = 4096;
const CONST_END = CONST_BASE + 512 * 1024; // all 12 widths need ≈ 455 KB
const IN_BASE = CONST_END;
/** Input elements one call takes. */
const IN_ELEMENTS = 8192;
const OUT_BASE = IN_BASE + IN_ELEMENTS * 32 + 64;
/** Hashes one call returns. */
const OUT_ELEMENTS = 4096;
const PAGES = Math.ceil((OUT_BASE + OUT_ELEMENTS * 64) / 65536);

// ----------------------------------------------------------------------------------------------- code

const limbsOf = (x: bigint): bigint[] => Array.from({ length: LIMBS }, (_, j) => (x >> BigInt(LIMB_BITS * j)) & MASK);
const N = limbsOf(P);
/** −p⁻¹ mod 2^29 (Montgomery's n'). */
const N_INV = (() => {
  let inv = 1n; // Newton iteration for p⁻¹ mod 2^29
  for (let i = 0; i < 6; i++) inv = (inv * (2n - ((P * inv) & MASK))) & MASK;
  return (-inv) & MASK;
})();

/** Carries limb j into limb j + 1 for the locals `l` (j = 0..7), leaving every limb but the last below 2^29. */
function normalize(b: Body, l: (j: number) => number): void {
  for (let j = 0; j < LIMBS - 1; j++) {
    b.get(l(j + 1)).get(l(j)).i64(BigInt(LIMB_BITS)).op(OP.i64_shr_u, OP.i64_add).set(l(j + 1));
    b.get(l(j)).i64(MASK).op(OP.i64_and).set(l(j));
  }
}

/**
 * mul(o, a, b): o = a·b·2^-261 mod p, below 8p for inputs below 32p (Montgomery product; o may be a or b). The
 * accumulator is a ring of nine locals: after each reduction step the lowest limb (now a multiple of 2^29) passes
 * its carry up and becomes the new top limb.
 */
function mulBody(): number[] {
  const b = new Body();
  const A = 3, B = A + LIMBS, T = B + LIMBS, Mq = T + LIMBS;
  const t = (i: number, j: number) => T + ((i + j) % LIMBS); // limb j of the accumulator in step i
  for (let j = 0; j < LIMBS; j++) b.get(1).load32(4 * j).set(A + j);
  for (let j = 0; j < LIMBS; j++) b.get(2).load32(4 * j).set(B + j);
  for (let i = 0; i < LIMBS; i++) {
    for (let j = 0; j < LIMBS; j++) {
      if (i > 0) b.get(t(i, j));
      b.get(A + i).get(B + j).op(OP.i64_mul);
      if (i > 0) b.op(OP.i64_add);
      b.set(t(i, j));
    }
    b.get(t(i, 0)).i64(N_INV).op(OP.i64_mul).i64(MASK).op(OP.i64_and).set(Mq);
    for (let j = 0; j < LIMBS; j++) b.get(t(i, j)).get(Mq).i64(N[j]).op(OP.i64_mul, OP.i64_add).set(t(i, j));
    b.get(t(i, 1)).get(t(i, 0)).i64(BigInt(LIMB_BITS)).op(OP.i64_shr_u, OP.i64_add).set(t(i, 1));
    b.i64(0n).set(t(i, 0));
  }
  // after nine steps limb j sits in T + j
  normalize(b, (j) => T + j);
  for (let j = 0; j < LIMBS; j++) b.get(0).get(T + j).store32(4 * j);
  return b.encode(0, Mq - 2);
}

/**
 * mds(o, row, t): o = Σ_{j<t} row[j] · STATE[j] · 2^-261 mod p — one MDS output with a single Montgomery reduction:
 * the t products are summed unreduced in 18 columns (carried after each product, so a column stays below 2^62),
 * then reduced once. Below 4p for t ≤ 13 (constants below p, elements below 32p).
 */
function mdsBody(): number[] {
  const b = new Body();
  const o = 0, row = 1, t = 2, j = 3;
  const A = 4, B = A + LIMBS, C = B + LIMBS, Mq = C + 2 * LIMBS;
  b.op(OP.loop, VOID);
  for (let k = 0; k < LIMBS; k++) b.get(row).get(j).i32(6).op(OP.i32_shl, OP.i32_add).load32(4 * k).set(A + k);
  for (let k = 0; k < LIMBS; k++) b.elementAt(STATE, j).load32(4 * k).set(B + k);
  for (let x = 0; x < LIMBS; x++) {
    for (let y = 0; y < LIMBS; y++) b.get(C + x + y).get(A + x).get(B + y).op(OP.i64_mul, OP.i64_add).set(C + x + y);
  }
  for (let x = 0; x < 2 * LIMBS - 1; x++) {
    b.get(C + x + 1).get(C + x).i64(BigInt(LIMB_BITS)).op(OP.i64_shr_u, OP.i64_add).set(C + x + 1);
    b.get(C + x).i64(MASK).op(OP.i64_and).set(C + x);
  }
  b.bump(j, 1).get(j).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
  for (let i = 0; i < LIMBS; i++) {
    b.get(C + i).i64(N_INV).op(OP.i64_mul).i64(MASK).op(OP.i64_and).set(Mq);
    for (let k = 0; k < LIMBS; k++) b.get(C + i + k).get(Mq).i64(N[k]).op(OP.i64_mul, OP.i64_add).set(C + i + k);
    b.get(C + i + 1).get(C + i).i64(BigInt(LIMB_BITS)).op(OP.i64_shr_u, OP.i64_add).set(C + i + 1);
  }
  normalize(b, (k) => C + LIMBS + k);
  for (let k = 0; k < LIMBS; k++) b.get(o).get(C + LIMBS + k).store32(4 * k);
  return b.encode(1, Mq - 3);
}

/** add(o, a, b): o = a + b (limbs normalised, no reduction: see the bounds in the module comment). */
function addBody(): number[] {
  const b = new Body();
  const S = 3;
  for (let j = 0; j < LIMBS; j++) b.get(1).load32(4 * j).get(2).load32(4 * j).op(OP.i64_add).set(S + j);
  normalize(b, (j) => S + j);
  for (let j = 0; j < LIMBS; j++) b.get(0).get(S + j).store32(4 * j);
  return b.encode(0, LIMBS);
}

/** canon(o): o (below 2p, limbs normalised) reduced to 0 .. p − 1. */
function canonBody(): number[] {
  const b = new Body();
  const S = 1, D = S + LIMBS, borrow = D + LIMBS, x = borrow + 1;
  for (let j = 0; j < LIMBS; j++) b.get(0).load32(4 * j).set(S + j);
  for (let j = 0; j < LIMBS; j++) {
    b.get(S + j).i64(N[j]).op(OP.i64_sub);
    if (j > 0) b.get(borrow).op(OP.i64_sub);
    b.tee(x).i64(MASK).op(OP.i64_and).set(D + j);
    b.get(x).i64(63n).op(OP.i64_shr_u).set(borrow);
  }
  // borrow = 1: the value is below p, keep it
  for (let j = 0; j < LIMBS; j++) b.get(0).get(S + j).get(D + j).get(borrow).op(OP.i32_wrap_i64, OP.select).store32(4 * j);
  return b.encode(0, x);
}

/** load(o, src): the 32-byte canonical little-endian value at src as limbs at o (reads 8 bytes past its end). */
function loadBody(): number[] {
  const b = new Body();
  for (let j = 0; j < LIMBS; j++) {
    const bit = LIMB_BITS * j;
    const mask = j === LIMBS - 1 ? (1n << BigInt(256 - bit)) - 1n : MASK;
    b.get(0).get(1).op(OP.i64_load, 0, ...uleb(Math.floor(bit / 8))).i64(BigInt(bit % 8)).op(OP.i64_shr_u).i64(mask).op(OP.i64_and).store32(4 * j);
  }
  return b.encode(0, 0);
}

const F_MUL = 0, F_ADD = 1, F_SBOX = 2, F_PERMUTE = 3, F_HASH = 4, F_CANON = 5, F_LOAD = 6, F_MDS = 7;

/** sbox(x): x = x^5. */
function sboxBody(): number[] {
  const b = new Body();
  b.i32(TMP).get(0).get(0).call(F_MUL);
  b.i32(TMP).i32(TMP).i32(TMP).call(F_MUL);
  b.get(0).get(0).i32(TMP).call(F_MUL);
  return b.encode(0, 0);
}

/** permute(t, rp, c, m): the state at STATE through 8 + rp rounds (constants from c, MDS rows at m). */
function permuteBody(): number[] {
  const b = new Body();
  const t = 0, rp = 1, c = 2, m = 3, r = 4, total = 5, i = 6;
  b.get(rp).i32(FULL_ROUNDS).op(OP.i32_add).set(total);
  b.op(OP.loop, VOID);
  {
    // add the round constants
    b.i32(0).set(i).op(OP.loop, VOID);
    b.elementAt(STATE, i).elementAt(STATE, i).get(c).call(F_ADD);
    b.bump(c, 64).bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
    // S-boxes: every element in full rounds, the first in partial ones
    b.get(r).i32(FULL_ROUNDS / 2).op(OP.i32_lt_u);
    b.get(r).get(rp).i32(FULL_ROUNDS / 2).op(OP.i32_add, OP.i32_ge_u, OP.i32_or);
    b.op(OP.if, VOID);
    b.i32(0).set(i).op(OP.loop, VOID);
    b.elementAt(STATE, i).call(F_SBOX);
    b.bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
    b.op(OP.else).i32(STATE).call(F_SBOX).op(OP.end);
    // MDS: NEXT[i] = Σ_j m[i][j] · STATE[j]
    b.i32(0).set(i).op(OP.loop, VOID);
    b.elementAt(NEXT, i);
    b.get(m).get(i).get(t).op(OP.i32_mul).i32(6).op(OP.i32_shl, OP.i32_add);
    b.get(t).call(F_MDS);
    b.bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
    // STATE = NEXT, 8 bytes at a time
    b.i32(0).set(i).op(OP.loop, VOID);
    b.i32(STATE).get(i).i32(3).op(OP.i32_shl, OP.i32_add);
    b.i32(NEXT).get(i).i32(3).op(OP.i32_shl, OP.i32_add).op(OP.i64_load, 3, 0);
    b.op(OP.i64_store, 3, 0);
    b.bump(i, 1).get(i).get(t).i32(3).op(OP.i32_shl, OP.i32_lt_u, OP.br_if, 0, OP.end);
    b.bump(r, 1).get(r).get(total).op(OP.i32_lt_u, OP.br_if, 0);
  }
  b.op(OP.end);
  return b.encode(3, 0);
}

/**
 * hash(t, rp, c, m, n, in, out): n hashes of t − 1 elements each, from `in` (32-byte canonical values) to `out`
 * (canonical values in limbs, 64 bytes apart).
 */
function hashBody(): number[] {
  const b = new Body();
  const t = 0, rp = 1, c = 2, m = 3, n = 4, inp = 5, out = 6, k = 7, i = 8;
  b.get(n).op(OP.i32_eqz, OP.if, VOID, OP.return, OP.end);
  b.op(OP.loop, VOID);
  for (let w = 0; w < 5; w++) b.i32(STATE).i64(0n).op(OP.i64_store, 3, ...uleb(8 * w));
  b.i32(1).set(i).op(OP.loop, VOID);
  b.i32(TMP).get(inp).call(F_LOAD);
  b.elementAt(STATE, i).i32(TMP).i32(R2_AT).call(F_MUL); // to Montgomery form
  b.bump(inp, 32).bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
  b.get(t).get(rp).get(c).get(m).call(F_PERMUTE);
  b.get(out).i32(STATE).i32(ONE_AT).call(F_MUL); // out of Montgomery form, below 2p
  b.get(out).call(F_CANON);
  b.bump(out, 64).bump(k, 1).get(k).get(n).op(OP.i32_lt_u, OP.br_if, 0);
  b.op(OP.end);
  return b.encode(2, 0);
}

/** The module's bytes. */
export function poseidonWasmBytes(): Uint8Array {
  const fnType = (params: number) => [0x60, ...uleb(params), ...Array<number>(params).fill(I32), 0];
  const types = vec([fnType(3), fnType(1), fnType(4), fnType(7), fnType(2)]);
  const funcs = vec([[0], [0], [1], [2], [3], [1], [4], [0]]);
  const memory = vec([[0x00, ...uleb(PAGES)]]);
  const exports = vec([[...name('hash'), 0x00, F_HASH], [...name('memory'), 0x02, 0]]);
  const code = vec([mulBody(), addBody(), sboxBody(), permuteBody(), hashBody(), canonBody(), loadBody(), mdsBody()]);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, types), ...section(3, funcs), ...section(5, memory), ...section(7, exports), ...section(10, code),
  ]);
}

// --------------------------------------------------------------------------------------------- runtime

interface Exports {
  hash(t: number, rp: number, c: number, m: number, n: number, inp: number, out: number): void;
  memory: { buffer: ArrayBuffer };
}

/** The part of the WebAssembly API used here (the project's `lib` setting does not declare it). */
interface WasmApi {
  instantiate(bytes: Uint8Array): Promise<{ instance: { exports: unknown } }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Where a width's constants sit in the module's memory. */
interface Width {
  t: number;
  rp: number;
  c: number;
  m: number;
}

/**
 * The hasher over one instance of the module. Inputs and outputs are 32-byte big-endian field elements; the
 * caller guarantees every input is below the modulus (poseidon.ts checks).
 */
export class PoseidonWasm {
  private readonly fns: Exports;
  private readonly mem: Uint8Array;
  private readonly widths = new Map<number, Width>();
  private constEnd = CONST_BASE;

  constructor(instance: { exports: unknown }) {
    this.fns = instance.exports as Exports;
    this.mem = new Uint8Array(this.fns.memory.buffer);
    this.limbs = new Uint32Array(this.fns.memory.buffer);
    this.writeLimbs(R2_AT, (R * R) % P);
    this.writeLimbs(ONE_AT, 1n);
  }

  private readonly limbs: Uint32Array;

  private writeLimbs(at: number, x: bigint): void {
    limbsOf(x).forEach((l, j) => (this.limbs[at / 4 + j] = Number(l)));
  }

  private width(t: number): Width {
    let w = this.widths.get(t);
    if (w === undefined) {
      const p = poseidonParams(t);
      const c = this.constEnd;
      const m = c + p.roundConstants.length * 64;
      const end = m + t * t * 64;
      if (end > CONST_END) throw new RangeError('Poseidon constants do not fit the module memory');
      p.roundConstants.forEach((x, i) => this.writeLimbs(c + 64 * i, (x * R) % P));
      p.mds.flat().forEach((x, i) => this.writeLimbs(m + 64 * i, (x * R) % P));
      this.constEnd = end;
      w = { t, rp: p.partialRounds, c, m };
      this.widths.set(t, w);
    }
    return w;
  }

  /**
   * Hashes `count` groups of `arity` inputs: `input` holds count·arity 32-byte big-endian elements (each below the
   * modulus), group after group; the result holds count 32-byte big-endian hashes.
   */
  hashBatch(arity: number, input: Uint8Array, count: number): Uint8Array {
    const w = this.width(arity + 1);
    const out = new Uint8Array(count * 32);
    const mem = this.mem;
    const limbs = this.limbs;
    const perCall = Math.min(OUT_ELEMENTS, Math.floor(IN_ELEMENTS / arity));
    for (let done = 0; done < count; done += perCall) {
      const n = Math.min(perCall, count - done);
      const src = done * arity * 32;
      for (let e = 0; e < n * arity; e++) {
        const from = src + e * 32;
        const to = IN_BASE + e * 32 + 31;
        for (let k = 0; k < 32; k++) mem[to - k] = input[from + k];
      }
      this.fns.hash(w.t, w.rp, w.c, w.m, n, IN_BASE, OUT_BASE);
      for (let h = 0; h < n; h++) {
        // nine 29-bit limbs → 32 big-endian bytes, least significant byte first
        const base = (OUT_BASE + 64 * h) / 4;
        let pos = (done + h) * 32 + 31;
        let acc = 0;
        let bits = 0;
        for (let j = 0; j < LIMBS; j++) {
          acc += limbs[base + j] * 2 ** bits;
          bits += LIMB_BITS;
          while (bits >= 8 && pos >= (done + h) * 32) {
            out[pos--] = acc % 256;
            acc = Math.floor(acc / 256);
            bits -= 8;
          }
        }
      }
    }
    return out;
  }
}

/** Compiles and instantiates the module. */
export async function loadPoseidonWasm(): Promise<PoseidonWasm> {
  const { instance } = await wasmApi.instantiate(poseidonWasmBytes());
  return new PoseidonWasm(instance);
}
