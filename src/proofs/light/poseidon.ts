/**
 * Poseidon over the BN254 scalar field with the circom parameters (x^5 S-box, 8 full rounds, width = inputs + 1),
 * the hash of every Light Protocol (ZK Compression) Merkle tree, account hash and indexed-tree leaf.
 *
 * The permutation runs in a small WebAssembly module generated at start-up (`poseidon-wasm.ts`, parameters from
 * `poseidon-params.ts`); tests check its results against Light's own build of `light-poseidon`
 * (`@lightprotocol/hasher.rs`), which the on-chain programs, the prover and Photon share, for every input count.
 * Compiling WebAssembly is asynchronous, so the module has one async entry point, `initPoseidon()`, to await once
 * at start (the API server and the tests do); every hash after that is synchronous and pure.
 *
 * Values are field elements given either as `bigint` or as big-endian bytes (at most 32, Light's
 * `hash_bytes_be` convention: shorter inputs are left-padded with zeros); each must be below the field modulus.
 * Results are 32-byte big-endian arrays. Light's circom parameters accept 1..12 inputs.
 */
import { SolgateError } from '../../core/errors.js';
import { BN254_FIELD_MODULUS } from './poseidon-params.js';
import { loadPoseidonWasm, type PoseidonWasm } from './poseidon-wasm.js';
import { PairMemo, counters, type PoseidonCounters } from './pair-memo.js';

export type { PoseidonCounters };

export { BN254_FIELD_MODULUS };

/** Most inputs one Poseidon call takes with Light's circom parameters (width 13). */
export const MAX_POSEIDON_INPUTS = 12;

/** A field element: a bigint, or big-endian bytes (≤ 32). */
export type FieldInput = bigint | Uint8Array;

let hasher: PoseidonWasm | undefined;

/** A copy of the counters since start. */
export function poseidonCounters(): PoseidonCounters {
  return { ...counters };
}
let loading: Promise<void> | undefined;

/** Poseidon([1, 2]) (circomlib's test vector): checked once the module is loaded. */
const KNOWN_ANSWER = 0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189an;

/**
 * Compiles the Poseidon module once; later calls return the same promise. Await it before any other function of
 * `src/proofs/light` (they are synchronous and throw if it has not completed).
 */
export function initPoseidon(): Promise<void> {
  if (loading === undefined) {
    loading = loadPoseidonWasm().then((h) => {
      const check = bytesToBigint(h.hashBatch(2, Uint8Array.from([...bigintToBytes32(1n), ...bigintToBytes32(2n)]), 1));
      if (check !== KNOWN_ANSWER) throw new Error(`Poseidon([1, 2]) is ${check.toString(16)}, not circomlib's value`);
      hasher = h;
    }).catch((e: unknown) => {
      loading = undefined; // let a later call retry
      throw new SolgateError('INTERNAL', 'could not load the Poseidon hasher', { cause: e });
    });
  }
  return loading;
}

/** True once `initPoseidon()` has completed. */
export function isPoseidonReady(): boolean {
  return hasher !== undefined;
}

function ready(): PoseidonWasm {
  if (hasher === undefined) {
    throw new SolgateError('INTERNAL', 'Poseidon is not initialised: await initPoseidon() first');
  }
  return hasher;
}

/** Big-endian bytes → bigint (empty = 0). */
export function bytesToBigint(bytes: Uint8Array): bigint {
  if (bytes.length === 32) {
    // four 64-bit words: a few BigInt operations instead of a hex text
    const v = new DataView(bytes.buffer, bytes.byteOffset, 32);
    return (((((v.getBigUint64(0) << 64n) | v.getBigUint64(8)) << 64n) | v.getBigUint64(16)) << 64n) | v.getBigUint64(24);
  }
  if (bytes.length === 0) return 0n;
  return BigInt('0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex'));
}

/** bigint → 32 big-endian bytes; throws unless 0 ≤ value < 2^256. */
export function bigintToBytes32(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 256n) {
    throw new SolgateError('INTERNAL', 'value does not fit in 32 bytes', { context: { value: value.toString() } });
  }
  const out = new Uint8Array(32);
  const v = new DataView(out.buffer);
  v.setBigUint64(0, value >> 192n);
  v.setBigUint64(8, BigInt.asUintN(64, value >> 128n));
  v.setBigUint64(16, BigInt.asUintN(64, value >> 64n));
  v.setBigUint64(24, BigInt.asUintN(64, value));
  return out;
}

/** The field element a `FieldInput` stands for; throws unless it is in 0 .. modulus-1 (bytes: at most 32). */
export function toFieldElement(x: FieldInput): bigint {
  let v: bigint;
  if (typeof x === 'bigint') {
    v = x;
  } else {
    if (!(x instanceof Uint8Array) || x.length > 32) {
      throw new SolgateError('INTERNAL', 'a Poseidon input must be at most 32 bytes', {
        context: { length: (x as { length?: unknown })?.length },
      });
    }
    v = bytesToBigint(x);
  }
  if (v < 0n || v >= BN254_FIELD_MODULUS) {
    throw new SolgateError('INTERNAL', 'Poseidon input is not a BN254 field element', {
      context: { value: v.toString() },
    });
  }
  return v;
}

/** True when `x` is a valid Poseidon input (below the field modulus; bytes at most 32 long). */
export function isFieldElement(x: FieldInput): boolean {
  if (typeof x === 'bigint') return x >= 0n && x < BN254_FIELD_MODULUS;
  return x instanceof Uint8Array && x.length <= 32 && bytesToBigint(x) < BN254_FIELD_MODULUS;
}

const MODULUS_BYTES = bigintToBytes32(BN254_FIELD_MODULUS);

/** True when 32 big-endian bytes at `at` are below the modulus. */
function below(bytes: Uint8Array, at: number): boolean {
  for (let i = 0; i < 32; i++) {
    const b = bytes[at + i];
    if (b !== MODULUS_BYTES[i]) return b < MODULUS_BYTES[i];
  }
  return false;
}

/** True when `node` is 32 bytes below the modulus (a Light tree node); cheaper than `isFieldElement`. */
export function isFieldNode(node: Uint8Array): boolean {
  return node instanceof Uint8Array && node.length === 32 && below(node, 0);
}

/** Writes `x` as 32 big-endian bytes at `at`; throws like `toFieldElement` unless it is a field element. */
function putField(x: FieldInput, into: Uint8Array, at: number): void {
  if (typeof x === 'bigint' || !(x instanceof Uint8Array) || x.length > 32) {
    into.set(bigintToBytes32(toFieldElement(x)), at);
    return;
  }
  into.fill(0, at, at + 32 - x.length);
  into.set(x, at + 32 - x.length);
  if (!below(into, at)) toFieldElement(x); // throws the usual error
}

/**
 * Poseidon of 1..12 field elements (circom parameters, Light's `Poseidon::hashv` / `hash_bytes_be`): 32 bytes,
 * big-endian. Throws on a wrong input count, an input not below the modulus, or before `initPoseidon()`.
 */
export function poseidon(inputs: readonly FieldInput[]): Uint8Array {
  const h = ready();
  if (inputs.length < 1 || inputs.length > MAX_POSEIDON_INPUTS) {
    throw new SolgateError('INTERNAL', `Poseidon takes 1..${MAX_POSEIDON_INPUTS} inputs`, {
      context: { count: inputs.length },
    });
  }
  const buf = new Uint8Array(inputs.length * 32);
  inputs.forEach((x, i) => putField(x, buf, i * 32));
  counters.hashes++;
  return h.hashBatch(inputs.length, buf, 1);
}

/** `poseidon` with the result as a bigint. */
export function poseidonBigint(inputs: readonly FieldInput[]): bigint {
  return bytesToBigint(poseidon(inputs));
}

/**
 * Poseidon of many groups of `arity` inputs in one call: `input` holds count·arity 32-byte big-endian elements,
 * group after group; the result holds the count hashes (32 bytes each, big-endian). Throws, as `poseidon` does,
 * on an element not below the modulus.
 */
export function poseidonBatch(arity: number, input: Uint8Array, count: number): Uint8Array {
  const h = ready();
  if (!Number.isInteger(arity) || arity < 1 || arity > MAX_POSEIDON_INPUTS) {
    throw new SolgateError('INTERNAL', `Poseidon takes 1..${MAX_POSEIDON_INPUTS} inputs`, { context: { count: arity } });
  }
  if (!Number.isSafeInteger(count) || count < 0 || input.length !== count * arity * 32) {
    throw new SolgateError('INTERNAL', 'Poseidon batch input is not count × arity × 32 bytes', { context: { arity, count, length: input.length } });
  }
  for (let at = 0; at < input.length; at += 32) {
    if (!below(input, at)) toFieldElement(input.subarray(at, at + 32));
  }
  counters.hashes += count;
  return count === 0 ? new Uint8Array(0) : h.hashBatch(arity, input, count);
}

/**
 * Most (left, right) → parent results the pair memo holds by default: 96 bytes each, 48 MiB when full. Sized for the
 * working set of the proof methods in the ZK benchmark (6 state trees, 20,000 provable accounts, 2 address trees of
 * 100,000 elements): after its load phases of both proof methods the memo holds ≈ 250,000 pairs, which fit beside
 * each other here, where 2^18 made the two methods evict each other's upper levels. The table starts at 4,096
 * entries and doubles only when half full (or a set of 4 is full), so a process that answers few proofs stays small.
 * {@link setPairMemoLimit} changes the limit (`serve` applies SOLGATE_PROOF_MEMO_PAIRS).
 */
export const PAIR_MEMO_SIZE = 1 << 19;

const pairMemo = new PairMemo(1 << 12, PAIR_MEMO_SIZE);

/**
 * Sets the most pairs the pair memo may hold (96 bytes each; rounded down to a power of two, at least 4,096) and
 * empties it. The default is {@link PAIR_MEMO_SIZE}.
 */
export function setPairMemoLimit(pairs: number): void {
  if (!Number.isSafeInteger(pairs) || pairs < 1) throw new SolgateError('INTERNAL', 'the pair memo limit must be a positive integer', { context: { pairs } });
  pairMemo.reset(Math.max(1 << 12, 2 ** Math.floor(Math.log2(pairs))));
}

/** The pair memo's limit, its current capacity and how many pairs it holds. */
export function pairMemoSize(): { limit: number; slots: number; filled: number } {
  return { limit: pairMemo.max, ...pairMemo.size };
}

/** The remembered parent of (left, right) — a copy — or undefined. Both must be 32-byte nodes. */
export function rememberedPair(left: Uint8Array, right: Uint8Array): Uint8Array | undefined {
  return pairMemo.get(left, 0, right, 0);
}

/** Remembers Poseidon(left, right) = parent (32-byte nodes; the caller computed parent with the hash function). */
export function rememberPair(left: Uint8Array, right: Uint8Array, parent: Uint8Array): void {
  pairMemo.set(left, 0, right, 0, parent, 0);
}

/** {@link rememberPair} on nodes inside larger arrays. */
export function rememberPairAt(l: Uint8Array, lo: number, r: Uint8Array, ro: number, parent: Uint8Array, po: number): void {
  pairMemo.set(l, lo, r, ro, parent, po);
}

/**
 * Poseidon of `count` pairs (`input`: count × 64 bytes, left then right, big-endian field elements) through the
 * pair memo: remembered pairs are not hashed again, the others are hashed in one batch and remembered. Throws as
 * `poseidonBatch` does on an element not below the modulus.
 */
export function poseidonPairs(input: Uint8Array, count: number): Uint8Array {
  if (!Number.isSafeInteger(count) || count < 0 || input.length !== count * 64) {
    throw new SolgateError('INTERNAL', 'Poseidon pair input is not count × 64 bytes', { context: { count, length: input.length } });
  }
  const out = new Uint8Array(count * 32);
  const missed: number[] = [];
  for (let i = 0; i < count; i++) {
    if (!pairMemo.getInto(input, 64 * i, input, 64 * i + 32, out, 32 * i)) missed.push(i);
  }
  if (missed.length) {
    const batch = new Uint8Array(missed.length * 64);
    missed.forEach((i, k) => batch.set(input.subarray(64 * i, 64 * i + 64), 64 * k));
    const hashed = poseidonBatch(2, batch, missed.length);
    missed.forEach((i, k) => {
      out.set(hashed.subarray(32 * k, 32 * k + 32), 32 * i);
      pairMemo.set(input, 64 * i, input, 64 * i + 32, hashed, 32 * k);
    });
  }
  return out;
}

/**
 * Parent of two sibling nodes of a Light Merkle tree: Poseidon(left, right) (Photon's `compute_parent_hash`).
 *
 * Memoised (see `PairMemo`): proofs of one tree share their upper levels (every proof of a tree with 2^k leaves
 * shares the levels above k), and requests often ask for proofs of the same subtrees, so re-verifying them would
 * otherwise dominate the proof methods. The memo holds results of the hash function itself, compared on the whole
 * pair, so a check through it is the same check.
 */
export function poseidonPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  const pair = left.length === 32 && right.length === 32;
  const hit = pair ? pairMemo.get(left, 0, right, 0) : undefined;
  if (hit !== undefined) return hit;
  const out = poseidon([left, right]);
  if (pair) pairMemo.set(left, 0, right, 0, out, 0);
  return out;
}
