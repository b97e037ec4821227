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
