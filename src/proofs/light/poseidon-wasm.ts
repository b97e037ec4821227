/**
 * Poseidon (BN254, circom parameters) as a WebAssembly module written here, byte by byte, at start-up: Montgomery
 * arithmetic on eight 32-bit limbs (64-bit products, CIOS multiplication unrolled), the permutation in loops, and
 * one exported call that hashes a whole batch of inputs. No compiler, no binary in the repository: the module is
 * a few kilobytes of code generated from this file, and the constants come from `poseidon-params.ts`.
 *
 * Why not Light's `@lightprotocol/hasher.rs`: that is arkworks compiled to WASM, whose 64-bit limbs need 128-bit
 * products WASM does not have, so each field multiplication goes through emulated wide arithmetic (≈4–5× the
 * cost of the 32-bit-limb code below), and it takes its inputs as decimal strings, one call per hash. The results
 * are the same (tests compare the two for every width).
 *
 * Memory layout (bytes): R² mod p at 64, the canonical 1 at 96, two temporaries at 128 and 160, the state at 256
 * and the next state at 704 (13 elements each), the constants of each width from 2048 (written when the width is
 * first used), the batch input area at IN_BASE and the output area at OUT_BASE. Elements are little-endian 32-bit
 * limbs; inside the permutation they are in Montgomery form (x·2^256 mod p), always fully reduced.
 */
import { BN254_FIELD_MODULUS as P, FULL_ROUNDS, poseidonParams } from './poseidon-params.js';

const R = 1n << 256n;
const LIMBS = 8;
const M32 = 0xffffffffn;

const R2_AT = 64;
const ONE_AT = 96;
const TMP = 128;
const TMP2 = 160;
const STATE = 256;
const NEXT = 704;
const CONST_BASE = 2048;
const CONST_END = CONST_BASE + 256 * 1024; // all 12 widths need ≈ 228 KB
const IN_BASE = 5 * 65536 + 65536; // 393,216
/** Input elements one call takes. */
const IN_ELEMENTS = 8192;
const OUT_BASE = IN_BASE + IN_ELEMENTS * 32;
/** Hashes one call returns. */
const OUT_ELEMENTS = 4096;
const PAGES = Math.ceil((OUT_BASE + OUT_ELEMENTS * 32) / 65536);

// ------------------------------------------------------------------------------------------- encoding

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

function sleb(value: bigint): number[] {
  const out: number[] = [];
  let v = value;
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const sign = b & 0x40;
    if ((v === 0n && !sign) || (v === -1n && sign)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const I32 = 0x7f;
const I64 = 0x7e;
const OP = {
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br_if: 0x0d, return: 0x0f, call: 0x10, select: 0x1b,
  i32_load: 0x28, i64_load: 0x29, i64_load32_u: 0x35, i64_store: 0x37, i64_store32: 0x3e,
  i32_eqz: 0x45, i32_lt_u: 0x49, i32_ge_u: 0x4f,
  i32_add: 0x6a, i32_mul: 0x6c, i32_or: 0x72, i32_shl: 0x74,
  i64_add: 0x7c, i64_sub: 0x7d, i64_mul: 0x7e, i64_and: 0x83, i64_shr_u: 0x88, i32_wrap_i64: 0xa7,
} as const;
const VOID = 0x40;

/** Code of one function body. */
class Body {
  readonly c: number[] = [];
  op(...bytes: number[]): this {
    this.c.push(...bytes);
    return this;
  }
  get(i: number): this {
    return this.op(0x20, ...uleb(i));
  }
  set(i: number): this {
    return this.op(0x21, ...uleb(i));
  }
  tee(i: number): this {
    return this.op(0x22, ...uleb(i));
  }
  i32(v: number): this {
    return this.op(0x41, ...sleb(BigInt(v)));
  }
  i64(v: bigint): this {
    return this.op(0x42, ...sleb(v));
  }
  call(f: number): this {
    return this.op(OP.call, ...uleb(f));
  }
  /** i64.load32_u at the address on the stack plus `offset`. */
  load32(offset: number): this {
    return this.op(OP.i64_load32_u, 2, ...uleb(offset));
  }
  store32(offset: number): this {
    return this.op(OP.i64_store32, 2, ...uleb(offset));
  }
  /** `local += by` (i32). */
  bump(local: number, by: number): this {
    return this.get(local).i32(by).op(OP.i32_add).set(local);
  }
  /** `base + 32 · local` (i32) on the stack. */
  elementAt(base: number, local: number): this {
    return this.i32(base).get(local).i32(5).op(OP.i32_shl, OP.i32_add);
  }
  /** Encoded body: local declarations (counts of i32 and i64 after the parameters), code, end. */
  encode(i32Locals: number, i64Locals: number): number[] {
    const groups: number[][] = [];
    if (i32Locals) groups.push([...uleb(i32Locals), I32]);
    if (i64Locals) groups.push([...uleb(i64Locals), I64]);
    const body = [...uleb(groups.length), ...groups.flat(), ...this.c, OP.end];
    return [...uleb(body.length), ...body];
  }
}

const limbsOf = (x: bigint): bigint[] => Array.from({ length: LIMBS }, (_, j) => (x >> BigInt(32 * j)) & M32);
const N = limbsOf(P);
/** −p⁻¹ mod 2^32 (Montgomery's n'). */
const N_INV = (() => {
  let inv = 1n; // Newton iteration for p⁻¹ mod 2^32
  for (let i = 0; i < 6; i++) inv = (inv * (2n - ((P * inv) & M32))) & M32;
  return (-inv) & M32;
})();

/** Final conditional subtraction: stores (s − p if s ≥ p else s) at the pointer in local `o`; `d` are scratch locals. */
function reduceStore(b: Body, o: number, s: number, d: number, borrow: number, x: number): void {
  for (let j = 0; j < LIMBS; j++) {
    b.get(s + j).i64(N[j]).op(OP.i64_sub);
    if (j > 0) b.get(borrow).op(OP.i64_sub);
    b.tee(x).i64(M32).op(OP.i64_and).set(d + j);
    b.get(x).i64(63n).op(OP.i64_shr_u).set(borrow);
  }
  // borrow = 1: s < p, keep s
  for (let j = 0; j < LIMBS; j++) b.get(o).get(s + j).get(d + j).get(borrow).op(OP.i32_wrap_i64, OP.select).store32(4 * j);
}

/** mul(o, a, b): o = a·b·2^-256 mod p (Montgomery product; o may be a or b). */
function mulBody(): number[] {
  const b = new Body();
  const A = 3, B = A + LIMBS, T = B + LIMBS, C = T + 10, Mq = C + 1, X = Mq + 1;
  for (let j = 0; j < LIMBS; j++) b.get(1).load32(4 * j).set(A + j);
  for (let j = 0; j < LIMBS; j++) b.get(2).load32(4 * j).set(B + j);
  for (let i = 0; i < LIMBS; i++) {
    for (let j = 0; j < LIMBS; j++) {
      b.get(T + j).get(A + j).get(B + i).op(OP.i64_mul, OP.i64_add);
      if (j > 0) b.get(C).op(OP.i64_add);
      b.tee(X).i64(M32).op(OP.i64_and).set(T + j);
      b.get(X).i64(32n).op(OP.i64_shr_u).set(C);
    }
    b.get(T + 8).get(C).op(OP.i64_add).tee(X).i64(M32).op(OP.i64_and).set(T + 8);
    b.get(X).i64(32n).op(OP.i64_shr_u).set(T + 9);
    b.get(T).i64(N_INV).op(OP.i64_mul).i64(M32).op(OP.i64_and).set(Mq);
    b.get(T).get(Mq).i64(N[0]).op(OP.i64_mul, OP.i64_add).i64(32n).op(OP.i64_shr_u).set(C);
    for (let j = 1; j < LIMBS; j++) {
      b.get(T + j).get(Mq).i64(N[j]).op(OP.i64_mul, OP.i64_add).get(C).op(OP.i64_add);
      b.tee(X).i64(M32).op(OP.i64_and).set(T + j - 1);
      b.get(X).i64(32n).op(OP.i64_shr_u).set(C);
    }
    b.get(T + 8).get(C).op(OP.i64_add).tee(X).i64(M32).op(OP.i64_and).set(T + 7);
    b.get(X).i64(32n).op(OP.i64_shr_u).set(C);
    b.get(T + 9).get(C).op(OP.i64_add).set(T + 8);
  }
  // a, b < p and p < 2^254: the result is below 2p, so T+8 is 0 and one subtraction reduces it
  reduceStore(b, 0, T, A, C, X);
  return b.encode(0, X - 2);
}

/** add(o, a, b): o = a + b mod p. */
function addBody(): number[] {
  const b = new Body();
  const S = 3, C = S + LIMBS, X = C + 1, D = X + 1;
  for (let j = 0; j < LIMBS; j++) {
    b.get(1).load32(4 * j).get(2).load32(4 * j).op(OP.i64_add);
    if (j > 0) b.get(C).op(OP.i64_add);
    b.tee(X).i64(M32).op(OP.i64_and).set(S + j);
    b.get(X).i64(32n).op(OP.i64_shr_u).set(C);
  }
  reduceStore(b, 0, S, D, C, X);
  return b.encode(0, D + LIMBS - 3);
}

const F_MUL = 0, F_ADD = 1, F_SBOX = 2, F_PERMUTE = 3, F_HASH = 4;

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
  const t = 0, rp = 1, c = 2, m = 3, r = 4, total = 5, i = 6, j = 7, row = 8;
  b.get(rp).i32(FULL_ROUNDS).op(OP.i32_add).set(total);
  b.op(OP.loop, VOID);
  {
    // add the round constants
    b.i32(0).set(i).op(OP.loop, VOID);
    b.elementAt(STATE, i).elementAt(STATE, i).get(c).call(F_ADD);
    b.bump(c, 32).bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
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
    b.get(m).get(i).get(t).op(OP.i32_mul).i32(5).op(OP.i32_shl, OP.i32_add).set(row);
    b.elementAt(NEXT, i).get(row).i32(STATE).call(F_MUL);
    b.i32(1).set(j).op(OP.loop, VOID);
    b.i32(TMP2).get(row).get(j).i32(5).op(OP.i32_shl, OP.i32_add).elementAt(STATE, j).call(F_MUL);
    b.elementAt(NEXT, i).elementAt(NEXT, i).i32(TMP2).call(F_ADD);
    b.bump(j, 1).get(j).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
    b.bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
    // STATE = NEXT, 8 bytes at a time
    b.i32(0).set(i).op(OP.loop, VOID);
    b.i32(STATE).get(i).i32(3).op(OP.i32_shl, OP.i32_add);
    b.i32(NEXT).get(i).i32(3).op(OP.i32_shl, OP.i32_add).op(OP.i64_load, 3, 0);
    b.op(OP.i64_store, 3, 0);
    b.bump(i, 1).get(i).get(t).i32(2).op(OP.i32_shl, OP.i32_lt_u, OP.br_if, 0, OP.end);
    b.bump(r, 1).get(r).get(total).op(OP.i32_lt_u, OP.br_if, 0);
  }
  b.op(OP.end);
  return b.encode(5, 0);
}

/** hash(t, rp, c, m, n, in, out): n hashes of t − 1 canonical elements each, from `in` to `out` (canonical). */
function hashBody(): number[] {
  const b = new Body();
  const t = 0, rp = 1, c = 2, m = 3, n = 4, inp = 5, out = 6, k = 7, i = 8;
  b.get(n).op(OP.i32_eqz, OP.if, VOID, OP.return, OP.end);
  b.op(OP.loop, VOID);
  for (let w = 0; w < 4; w++) b.i32(STATE).i64(0n).op(OP.i64_store, 3, ...uleb(8 * w));
  b.i32(1).set(i).op(OP.loop, VOID);
  b.elementAt(STATE, i).get(inp).i32(R2_AT).call(F_MUL); // to Montgomery form
  b.bump(inp, 32).bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
  b.get(t).get(rp).get(c).get(m).call(F_PERMUTE);
  b.get(out).i32(STATE).i32(ONE_AT).call(F_MUL); // out of Montgomery form
  b.bump(out, 32).bump(k, 1).get(k).get(n).op(OP.i32_lt_u, OP.br_if, 0);
  b.op(OP.end);
  return b.encode(2, 0);
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')];

/** The module's bytes. */
export function poseidonWasmBytes(): Uint8Array {
  const fnType = (params: number) => [0x60, ...uleb(params), ...Array<number>(params).fill(I32), 0];
  const types = vec([fnType(3), fnType(1), fnType(4), fnType(7)]);
  const funcs = vec([[0], [0], [1], [2], [3]]);
  const memory = vec([[0x00, ...uleb(PAGES)]]);
  const exports = vec([[...name('hash'), 0x00, F_HASH], [...name('memory'), 0x02, 0]]);
  const code = vec([mulBody(), addBody(), sboxBody(), permuteBody(), hashBody()]);
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
    this.writeLe(R2_AT, (R * R) % P);
    this.writeLe(ONE_AT, 1n);
  }

  private writeLe(at: number, x: bigint): void {
    let v = x;
    for (let i = 0; i < 32; i++) {
      this.mem[at + i] = Number(v & 0xffn);
      v >>= 8n;
    }
  }

  private width(t: number): Width {
    let w = this.widths.get(t);
    if (w === undefined) {
      const p = poseidonParams(t);
      const c = this.constEnd;
      const m = c + p.roundConstants.length * 32;
      const end = m + t * t * 32;
      if (end > CONST_END) throw new RangeError('Poseidon constants do not fit the module memory');
      p.roundConstants.forEach((x, i) => this.writeLe(c + 32 * i, (x * R) % P));
      p.mds.flat().forEach((x, i) => this.writeLe(m + 32 * i, (x * R) % P));
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
        const from = OUT_BASE + h * 32 + 31;
        const to = (done + h) * 32;
        for (let k = 0; k < 32; k++) out[to + k] = mem[from - k];
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
