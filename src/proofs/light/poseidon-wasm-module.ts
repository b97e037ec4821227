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
 * the rest once at the end); a square sums the 45 distinct products (cross products doubled) instead of 81. Values
 * are kept below R instead of below p: p < 2^254 and R = 2^261 (R/p > 169), so the Montgomery product of a and b is
 * below a·b/R + p, additions only propagate carries, and no intermediate result needs the conditional subtraction;
 * the output is reduced to 0 .. p − 1 once, at the end. Each MDS output is one reduction of the unreduced sum of
 * its t products, not t reductions.
 *
 * The permutation runs in the optimised form (`optimizedPoseidonParams`: one round constant and a sparse matrix
 * per partial round, 2t − 1 products instead of t²; `permuteBody` gives the bounds of that form).
 *
 * Memory layout (bytes; an element is 64 bytes, nine little-endian 32-bit words holding one limb each): R² mod p at
 * 64, the canonical 1 at 128, temporaries at 192 and 256, the state at 512 and the next state at 1408 (13 elements
 * each), one descriptor per width at DESC_BASE + 32·t, the constants of each width from 4096 (written when the
 * width is first used), the batch input area at IN_BASE (32-byte canonical little-endian values, as JavaScript
 * writes them) and the output area at OUT_BASE (canonical values in limbs).
 */
import { BN254_FIELD_MODULUS as P, FULL_ROUNDS, optimizedPoseidonParams } from './poseidon-params.js';
import { Body, I32, OP, VOID, name, section, uleb, vec } from './wasm-encoding.js';

export const LIMBS = 9;
export const LIMB_BITS = 29;
const MASK = (1n << 29n) - 1n;
export const R = 1n << 261n;

export const R2_AT = 64;
export const ONE_AT = 128;
const TMP = 192;
const TMP2 = 256;
const STATE = 512;
const NEXT = 1408;
/** Per width t, eight i32 at DESC_BASE + 32·t: t, partial rounds, then where its constants sit (see `Width`). */
export const DESC_BASE = 2560;
export const CONST_BASE = 4096;
export const CONST_END = CONST_BASE + 1536 * 1024; // all 12 widths need ≈ 1.3 MB
export const IN_BASE = CONST_END;
/** Input elements one call takes. */
export const IN_ELEMENTS = 8192;
export const OUT_BASE = IN_BASE + IN_ELEMENTS * 32 + 64;
/** Hashes one call returns. */
export const OUT_ELEMENTS = 4096;
const PAGES = Math.ceil((OUT_BASE + OUT_ELEMENTS * 64) / 65536);

// ----------------------------------------------------------------------------------------------- code

export const limbsOf = (x: bigint): bigint[] => Array.from({ length: LIMBS }, (_, j) => (x >> BigInt(LIMB_BITS * j)) & MASK);
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
 * mul(o, a, b): o = a·b·2^-261 mod p, below a·b/R + p for inputs below R (Montgomery product; o may be a or b). The
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
 * then reduced once. Below t·p·max(STATE)/R + p (constants below p).
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

const F_MUL = 0, F_ADD = 1, F_SBOX = 2, F_PERMUTE = 3, F_HASH = 4, F_CANON = 5, F_LOAD = 6, F_MDS = 7, F_SQR = 8;

/**
 * sqr(o, a): o = a²·2^-261 mod p (Montgomery square, o may be a): the 45 distinct limb products summed in 18
 * columns (cross products doubled), then the nine reduction steps. A column collects at most 4 doubled cross
 * products and a square (< 2^61.2) and, while reducing, nine products of the modulus (< 2^61.2) and a carry: no
 * 64-bit overflow.
 */
function sqrBody(): number[] {
  const b = new Body();
  const A = 2, C = A + LIMBS, Mq = C + 2 * LIMBS;
  for (let j = 0; j < LIMBS; j++) b.get(1).load32(4 * j).set(A + j);
  for (let k = 0; k < 2 * LIMBS - 1; k++) {
    let first = true;
    for (let x = Math.max(0, k - LIMBS + 1); x <= k; x++) {
      const y = k - x;
      if (y <= x) break;
      b.get(A + x).get(A + y).op(OP.i64_mul);
      if (!first) b.op(OP.i64_add);
      first = false;
    }
    if (!first) b.i64(1n).op(OP.i64_shl);
    if (k % 2 === 0) {
      b.get(A + k / 2).get(A + k / 2).op(OP.i64_mul);
      if (!first) b.op(OP.i64_add);
    }
    b.set(C + k);
  }
  for (let i = 0; i < LIMBS; i++) {
    b.get(C + i).i64(N_INV).op(OP.i64_mul).i64(MASK).op(OP.i64_and).set(Mq);
    for (let k = 0; k < LIMBS; k++) b.get(C + i + k).get(Mq).i64(N[k]).op(OP.i64_mul, OP.i64_add).set(C + i + k);
    b.get(C + i + 1).get(C + i).i64(BigInt(LIMB_BITS)).op(OP.i64_shr_u, OP.i64_add).set(C + i + 1);
  }
  normalize(b, (k) => C + LIMBS + k);
  for (let k = 0; k < LIMBS; k++) b.get(0).get(C + LIMBS + k).store32(4 * k);
  return b.encode(0, Mq - 1);
}

/** sbox(x): x = x^5 (two squares and a product). */
function sboxBody(): number[] {
  const b = new Body();
  b.i32(TMP).get(0).call(F_SQR);
  b.i32(TMP).i32(TMP).call(F_SQR);
  b.get(0).get(0).i32(TMP).call(F_MUL);
  return b.encode(0, 0);
}

/** Width descriptor fields (i32 offsets from the descriptor): see `Width`. */
const D_T = 0, D_RP = 4, D_FC = 8, D_PC = 12, D_M = 16, D_MP = 20, D_SR = 24, D_SC = 28;

/**
 * permute(d): the state at STATE through the permutation of the width whose descriptor is at d, in the optimised
 * form of `optimizedPoseidonParams`: four full rounds (the fourth with the pre-sparse matrix), the partial rounds
 * with their sparse matrices, four full rounds.
 *
 * Bounds (R/p > 169): the first full rounds keep the module's bounds (S-box outputs below 8p, matrix outputs below
 * 2p). In a partial round element 0 enters below 7.3p and leaves its S-box below 1.1p; the others each grow by a
 * product below 1.01p, so after at most 65 rounds they are below 68p, and the first row's sum of t ≤ 13 products
 * leaves below 13·68p/169 + p < 6.3p. The second half's first S-box takes values below 69p: its square is below
 * 69²p/169 + p < 30p, the fourth power below 6.4p, the fifth below 3.7p. Every value stays below 2^261, so every
 * limb stays below 2^29 and no accumulator overflows.
 */
function permuteBody(): number[] {
  const b = new Body();
  const d = 0, t = 1, rp = 2, fc = 3, pc = 4, sr = 5, sc = 6, r = 7, i = 8, mat = 9;
  const field = (off: number, local: number) => b.get(d).op(OP.i32_load, 2, ...uleb(off)).set(local);
  field(D_T, t);
  field(D_RP, rp);
  field(D_FC, fc);
  field(D_PC, pc);
  field(D_SR, sr);
  field(D_SC, sc);
  /** STATE[0..n) = NEXT[0..n) for n elements given by the code `count` pushes (8-byte words). */
  const copy = (words: () => void) => {
    b.i32(0).set(i).op(OP.loop, VOID);
    b.i32(STATE).get(i).i32(3).op(OP.i32_shl, OP.i32_add);
    b.i32(NEXT).get(i).i32(3).op(OP.i32_shl, OP.i32_add).op(OP.i64_load, 3, 0);
    b.op(OP.i64_store, 3, 0);
    b.bump(i, 1).get(i);
    words();
    b.op(OP.i32_lt_u, OP.br_if, 0, OP.end);
  };
  /** Four full rounds; the matrix of the last is at descriptor field `lastMatrix`. */
  const fullRounds = (lastMatrix: number) => {
    b.i32(0).set(r).op(OP.loop, VOID);
    // add the round constants
    b.i32(0).set(i).op(OP.loop, VOID);
    b.elementAt(STATE, i).elementAt(STATE, i).get(fc).call(F_ADD);
    b.bump(fc, 64).bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
    // S-boxes
    b.i32(0).set(i).op(OP.loop, VOID);
    b.elementAt(STATE, i).call(F_SBOX);
    b.bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
    // matrix: NEXT[i] = Σ_j mat[i][j] · STATE[j]
    b.get(d).op(OP.i32_load, 2, ...uleb(lastMatrix));
    b.get(d).op(OP.i32_load, 2, ...uleb(D_M));
    b.get(r).i32(FULL_ROUNDS / 2 - 1).op(OP.i32_eq, OP.select).set(mat);
    b.i32(0).set(i).op(OP.loop, VOID);
    b.elementAt(NEXT, i);
    b.get(mat).get(i).get(t).op(OP.i32_mul).i32(6).op(OP.i32_shl, OP.i32_add);
    b.get(t).call(F_MDS);
    b.bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
    copy(() => b.get(t).i32(3).op(OP.i32_shl));
    b.bump(r, 1).get(r).i32(FULL_ROUNDS / 2).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
  };
  fullRounds(D_MP);
  // partial rounds
  b.i32(0).set(r).op(OP.loop, VOID);
  b.i32(STATE).i32(STATE).get(pc).call(F_ADD);
  b.bump(pc, 64);
  b.i32(STATE).call(F_SBOX);
  b.i32(NEXT).get(sr).get(t).call(F_MDS); // the new element 0, from the state after the S-box
  b.get(t).i32(6).op(OP.i32_shl).get(sr).op(OP.i32_add).set(sr);
  b.i32(1).set(i).op(OP.loop, VOID);
  b.i32(TMP2).get(sc).i32(STATE).call(F_MUL);
  b.elementAt(STATE, i).elementAt(STATE, i).i32(TMP2).call(F_ADD);
  b.bump(sc, 64).bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
  copy(() => b.i32(8));
  b.bump(r, 1).get(r).get(rp).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
  fullRounds(D_M);
  return b.encode(mat, 0);
}

/**
 * hash(d, n, in, out): n hashes of t − 1 elements each (t and the constants from the descriptor at d), from `in`
 * (32-byte canonical values) to `out` (canonical values in limbs, 64 bytes apart).
 */
function hashBody(): number[] {
  const b = new Body();
  const d = 0, n = 1, inp = 2, out = 3, k = 4, i = 5, t = 6;
  b.get(n).op(OP.i32_eqz, OP.if, VOID, OP.return, OP.end);
  b.get(d).op(OP.i32_load, 2, ...uleb(D_T)).set(t);
  b.op(OP.loop, VOID);
  for (let w = 0; w < 5; w++) b.i32(STATE).i64(0n).op(OP.i64_store, 3, ...uleb(8 * w));
  b.i32(1).set(i).op(OP.loop, VOID);
  b.i32(TMP).get(inp).call(F_LOAD);
  b.elementAt(STATE, i).i32(TMP).i32(R2_AT).call(F_MUL); // to Montgomery form
  b.bump(inp, 32).bump(i, 1).get(i).get(t).op(OP.i32_lt_u, OP.br_if, 0, OP.end);
  b.get(d).call(F_PERMUTE);
  b.get(out).i32(STATE).i32(ONE_AT).call(F_MUL); // out of Montgomery form, below 2p
  b.get(out).call(F_CANON);
  b.bump(out, 64).bump(k, 1).get(k).get(n).op(OP.i32_lt_u, OP.br_if, 0);
  b.op(OP.end);
  return b.encode(3, 0);
}

/** The module's bytes. */
export function poseidonWasmBytes(): Uint8Array {
  const fnType = (params: number) => [0x60, ...uleb(params), ...Array<number>(params).fill(I32), 0];
  const types = vec([fnType(3), fnType(1), fnType(4), fnType(2)]);
  const funcs = vec([[0], [0], [1], [1], [2], [1], [3], [0], [3]]);
  const memory = vec([[0x00, ...uleb(PAGES)]]);
  const exports = vec([[...name('hash'), 0x00, F_HASH], [...name('memory'), 0x02, 0]]);
  const code = vec([mulBody(), addBody(), sboxBody(), permuteBody(), hashBody(), canonBody(), loadBody(), mdsBody(), sqrBody()]);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, types), ...section(3, funcs), ...section(5, memory), ...section(7, exports), ...section(10, code),
  ]);
}
