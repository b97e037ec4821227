/**
 * The circom Poseidon parameters over BN254 (the ones circomlib, light-poseidon and Light's programs use), derived
 * here rather than copied: the reference generator of the Poseidon paper (`generate_parameters_grain.sage`, the
 * script circomlib's constants came from) seeds a Grain LFSR with the instance (prime field, x^5 S-box, 254-bit
 * field, width t, 8 full rounds, R_P partial rounds), discards 160 bits, then reads field elements through the
 * self-shrinking output (pairs of bits: the second is kept when the first is 1). Round constants are rejection
 * sampled below the modulus; the MDS matrix is the Cauchy matrix 1 / (x_i + y_j) of the next 2t elements (reduced,
 * not rejected). Tests compare the resulting hashes with Light's own WASM build for every width.
 */
/** Order of the BN254 scalar field (`ark_bn254::Fr::MODULUS`); every Poseidon input and output is below it. */
export const BN254_FIELD_MODULUS = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const P = BN254_FIELD_MODULUS;

/** Partial rounds of circom's Poseidon by width t = 2..13 (light-poseidon `bn254_x5`). */
export const PARTIAL_ROUNDS = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65] as const;
/** Full rounds (half before, half after the partial ones). */
export const FULL_ROUNDS = 8;

export interface PoseidonParams {
  /** State width (inputs + 1). */
  t: number;
  partialRounds: number;
  /** Round constants, t per round, (FULL_ROUNDS + partialRounds) rounds. */
  roundConstants: bigint[];
  /** MDS matrix, row-major: new_state[i] = Σ_j mds[i][j] · state[j]. */
  mds: bigint[][];
}

function modPow(base: bigint, exp: bigint): bigint {
  let r = 1n;
  let b = base % P;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return r;
}

/** Grain LFSR in self-shrinking mode, as in the reference script (80-bit state in a ring). */
class Grain {
  private readonly s = new Uint8Array(80);
  private head = 0;

  constructor(t: number, partialRounds: number) {
    let k = 0;
    const put = (value: number, bits: number) => {
      for (let i = bits - 1; i >= 0; i--) this.s[k++] = (value / 2 ** i) & 1;
    };
    put(1, 2); // prime field
    put(0, 4); // x^alpha S-box
    put(254, 12); // field size in bits
    put(t, 12);
    put(FULL_ROUNDS, 10);
    put(partialRounds, 10);
    put(2 ** 30 - 1, 30);
    for (let i = 0; i < 160; i++) this.step();
  }

  private step(): number {
    const s = this.s;
    const h = this.head;
    const bit = s[(h + 62) % 80] ^ s[(h + 51) % 80] ^ s[(h + 38) % 80] ^ s[(h + 23) % 80] ^ s[(h + 13) % 80] ^ s[h];
    s[h] = bit; // the oldest bit leaves, the new one enters at the end of the ring
    this.head = (h + 1) % 80;
    return bit;
  }

  private bit(): number {
    for (;;) {
      const keep = this.step();
      const b = this.step();
      if (keep === 1) return b;
    }
  }

  /** `bits` output bits, most significant first. */
  bits(bits: number): bigint {
    let v = 0n;
    for (let i = 0; i < bits; i++) v = (v << 1n) | BigInt(this.bit());
    return v;
  }
}

const cache = new Map<number, PoseidonParams>();

/** Parameters of the width-t instance (t = inputs + 1, 2..13), derived once and kept. */
export function poseidonParams(t: number): PoseidonParams {
  const hit = cache.get(t);
  if (hit) return hit;
  if (!Number.isInteger(t) || t < 2 || t > 13) throw new RangeError(`Poseidon width must be 2..13, got ${t}`);
  const partialRounds = PARTIAL_ROUNDS[t - 2];
  const g = new Grain(t, partialRounds);
  const roundConstants: bigint[] = [];
  while (roundConstants.length < (FULL_ROUNDS + partialRounds) * t) {
    const v = g.bits(254);
    if (v < P) roundConstants.push(v);
  }
  const xy = Array.from({ length: 2 * t }, () => g.bits(254) % P);
  const mds = Array.from({ length: t }, (_, i) => Array.from({ length: t }, (_, j) => modPow(xy[i] + xy[t + j], P - 2n)));
  const params = { t, partialRounds, roundConstants, mds };
  cache.set(t, params);
  return params;
}

/**
 * The same permutation rewritten with fewer multiplications in the partial rounds (the "optimised" Poseidon of the
 * paper's appendix B, as in Neptune and circomlibjs' `poseidon_opt`), derived here from {@link poseidonParams}:
 *
 * - Constants: a partial round's S-box touches element 0 only, so the round constants of elements 1..t−1 pass
 *   through it unchanged and are carried, multiplied by the MDS matrix, into the next round's constants; each
 *   partial round keeps one constant (`partialConstants`), and the first full round after them absorbs what the
 *   last one carried.
 * - Matrices: M = S·P with P = diag(1, M̂) (M̂ the lower-right (t−1)×(t−1) block) and S sparse — first row
 *   (M00, M0·M̂⁻¹), first column M1, identity elsewhere. P leaves element 0 alone, so it commutes with a partial
 *   round's S-box and moves into the matrix of the round before; walking back from the last partial round, each
 *   partial round gets a sparse matrix and the last full round before them the dense `preSparse` = P·M.
 *
 * The rounds: 4 full rounds (constants `fullConstants[r]`, S-boxes, matrix `mds`, the fourth `preSparse`); then
 * per partial round j: s0 = (s0 + partialConstants[j])^5, s0' = Σ_k sparseRows[j][k]·s_k and s_i' = s_i +
 * sparseColumns[j][i−1]·s0 (the s0 before the update) for i ≥ 1; then 4 full rounds (constants fullConstants[4..7],
 * matrix `mds`). The result equals {@link poseidonPermute} (tests compare the two).
 */
export interface OptimizedPoseidonParams {
  t: number;
  partialRounds: number;
  /** t constants per full round, FULL_ROUNDS rounds (the first half, then the second). */
  fullConstants: bigint[][];
  /** One constant per partial round (added to element 0 before its S-box). */
  partialConstants: bigint[];
  mds: bigint[][];
  /** The matrix of the last full round before the partial rounds. */
  preSparse: bigint[][];
  /** Per partial round, the first row of its sparse matrix (t entries). */
  sparseRows: bigint[][];
  /** Per partial round, the first column of its sparse matrix below the diagonal (t − 1 entries). */
  sparseColumns: bigint[][];
}

const mod = (x: bigint) => ((x % P) + P) % P;
const matVec = (m: readonly (readonly bigint[])[], v: readonly bigint[]) => m.map((row) => mod(row.reduce((a, x, j) => a + x * v[j], 0n)));
const matMul = (a: readonly (readonly bigint[])[], b: readonly (readonly bigint[])[]) =>
  a.map((row) => b[0].map((_, j) => mod(row.reduce((acc, x, k) => acc + x * b[k][j], 0n))));

/** Inverse of a square matrix mod P (Gauss–Jordan); throws when singular. */
function matInv(m: readonly (readonly bigint[])[]): bigint[][] {
  const n = m.length;
  const a = m.map((row, i) => [...row.map(mod), ...Array.from({ length: n }, (_, j) => (i === j ? 1n : 0n))]);
  for (let col = 0; col < n; col++) {
    const pivot = a.findIndex((row, i) => i >= col && row[col] !== 0n);
    if (pivot < 0) throw new RangeError('singular matrix');
    [a[col], a[pivot]] = [a[pivot], a[col]];
    const inv = modPow(a[col][col], P - 2n);
    a[col] = a[col].map((x) => mod(x * inv));
    for (let i = 0; i < n; i++) {
      if (i === col || a[i][col] === 0n) continue;
      const f = a[i][col];
      a[i] = a[i].map((x, j) => mod(x - f * a[col][j]));
    }
  }
  return a.map((row) => row.slice(n));
}

const optimizedCache = new Map<number, OptimizedPoseidonParams>();

/** {@link OptimizedPoseidonParams} of the width-t instance, derived once and kept. */
export function optimizedPoseidonParams(t: number): OptimizedPoseidonParams {
  const hit = optimizedCache.get(t);
  if (hit) return hit;
  const { partialRounds: rp, roundConstants, mds } = poseidonParams(t);
  const half = FULL_ROUNDS / 2;
  const round = (r: number) => roundConstants.slice(r * t, (r + 1) * t);
  // constants: carry the partial rounds' constants of elements 1..t−1 forward through the matrix
  const partialConstants: bigint[] = [];
  let carried = Array<bigint>(t).fill(0n);
  for (let j = 0; j < rp; j++) {
    const c = round(half + j).map((x, i) => mod(x + carried[i]));
    partialConstants.push(c[0]);
    carried = matVec(mds, [0n, ...c.slice(1)]);
  }
  const fullConstants = Array.from({ length: FULL_ROUNDS }, (_, r) => (r < half ? round(r) : round(half + rp + r - half)));
  fullConstants[half] = fullConstants[half].map((x, i) => mod(x + carried[i]));
  // matrices: from the last partial round back, A = S·P, P moving into the round before. With M = [[m00, m0],
  // [m1, M̂]], round j's matrix is A_j = diag(1, H_{j+1})·M (A = M for the last one), whose first row is M's, whose
  // first column below the diagonal is H_{j+1}·m1 and whose lower-right block is H_j = M̂^(rp−j). So S_j's first
  // row is (m00, m0·M̂^−(rp−j)) and its first column H_{j+1}·m1: two vectors carried through M̂⁻¹ and M̂ (one
  // inversion in all), and the last full round's matrix is diag(1, M̂^rp)·M.
  const hat = mds.slice(1).map((row) => row.slice(1));
  const hatInv = matInv(hat);
  const m0 = mds[0].slice(1);
  const m1 = mds.slice(1).map((row) => row[0]);
  const vecMat = (v: readonly bigint[], m: readonly (readonly bigint[])[]) => m[0].map((_, k) => mod(v.reduce((acc, x, i) => acc + x * m[i][k], 0n)));
  const sparseRows: bigint[][] = Array.from({ length: rp }, () => []);
  const sparseColumns: bigint[][] = Array.from({ length: rp }, () => []);
  let row = m0;
  let column = m1;
  for (let j = rp - 1; j >= 0; j--) {
    row = vecMat(row, hatInv); // m0·M̂^−(rp−j)
    sparseRows[j] = [mds[0][0], ...row];
    sparseColumns[j] = column; // M̂^(rp−1−j)·m1
    column = matVec(hat, column);
  }
  // M̂^rp by squaring
  let power: bigint[][] = hat.map((r, i) => r.map((_, k) => (i === k ? 1n : 0n)));
  let base = hat;
  for (let e = rp; e > 0; e >>= 1) {
    if (e & 1) power = matMul(power, base);
    if (e > 1) base = matMul(base, base);
  }
  const a = matMul(
    Array.from({ length: t }, (_, i) => Array.from({ length: t }, (_, k) => (i === 0 || k === 0 ? (i === k ? 1n : 0n) : power[i - 1][k - 1]))),
    mds,
  );
  const params = { t, partialRounds: rp, fullConstants, partialConstants, mds, preSparse: a, sparseRows, sparseColumns };
  optimizedCache.set(t, params);
  return params;
}

const pow5 = (x: bigint) => {
  const x2 = (x * x) % P;
  return (((x2 * x2) % P) * x) % P;
};

/** The width-t permutation as specified (round constants, S-boxes, MDS in every round); BigInt, for tests. */
export function poseidonPermute(state: readonly bigint[]): bigint[] {
  const { t, partialRounds, roundConstants, mds } = poseidonParams(state.length);
  let s = [...state];
  for (let r = 0; r < FULL_ROUNDS + partialRounds; r++) {
    s = s.map((x, i) => mod(x + roundConstants[r * t + i]));
    const full = r < FULL_ROUNDS / 2 || r >= FULL_ROUNDS / 2 + partialRounds;
    s = s.map((x, i) => (full || i === 0 ? pow5(x) : x));
    s = matVec(mds, s);
  }
  return s;
}

/** The width-t permutation through {@link optimizedPoseidonParams}; BigInt, for tests. */
export function poseidonPermuteOptimized(state: readonly bigint[]): bigint[] {
  const o = optimizedPoseidonParams(state.length);
  const half = FULL_ROUNDS / 2;
  let s = [...state];
  const full = (r: number, m: bigint[][]) => {
    s = matVec(m, s.map((x, i) => pow5(mod(x + o.fullConstants[r][i]))));
  };
  for (let r = 0; r < half; r++) full(r, r === half - 1 ? o.preSparse : o.mds);
  for (let j = 0; j < o.partialRounds; j++) {
    const s0 = pow5(mod(s[0] + o.partialConstants[j]));
    s[0] = s0;
    const first = mod(s.reduce((acc, x, k) => acc + o.sparseRows[j][k] * x, 0n));
    s = [first, ...s.slice(1).map((x, i) => mod(x + o.sparseColumns[j][i] * s0))];
  }
  for (let r = half; r < FULL_ROUNDS; r++) full(r, o.mds);
  return s;
}
