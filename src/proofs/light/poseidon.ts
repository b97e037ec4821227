/**
 * Poseidon over the BN254 scalar field with the circom parameters (x^5 S-box, 8 full rounds, width = inputs + 1),
 * the hash of every Light Protocol (ZK Compression) Merkle tree, account hash and indexed-tree leaf.
 *
 * The permutation itself is Light's own WASM build of `light-poseidon` (`@lightprotocol/hasher.rs`), so the
 * results are by construction the ones the on-chain programs, the prover and Photon compute. Loading WASM is
 * asynchronous, so the module has one async entry point, `initPoseidon()`, to await once at start (the API
 * server and the tests do); every hash after that is synchronous and pure.
 *
 * Values are field elements given either as `bigint` or as big-endian bytes (at most 32, Light's
 * `hash_bytes_be` convention: shorter inputs are left-padded with zeros); each must be below the field modulus.
 * Results are 32-byte big-endian arrays. Light's circom parameters accept 1..12 inputs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { hasWasmSimd, WasmFactory, type HasherLoadOptions, type LightWasm } from '@lightprotocol/hasher.rs';
import { SolgateError } from '../../core/errors.js';

/** Order of the BN254 scalar field (`ark_bn254::Fr::MODULUS`); every Poseidon input and output is below it. */
export const BN254_FIELD_MODULUS = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

/** Most inputs one Poseidon call takes with Light's circom parameters (width 13). */
export const MAX_POSEIDON_INPUTS = 12;

/** A field element: a bigint, or big-endian bytes (≤ 32). */
export type FieldInput = bigint | Uint8Array;

let hasher: LightWasm | undefined;
let loading: Promise<void> | undefined;

/**
 * Instantiates the WASM module straight from the package's `.wasm` file: handing the bytes over as
 * `{ module_or_path }` is the initialisation form wasm-bindgen expects, so it does not print the deprecation
 * warning that `WasmFactory.getInstance()` (which passes its inlined module positionally) triggers.
 */
async function load(): Promise<LightWasm> {
  let bytes: Uint8Array | undefined;
  const simd = hasWasmSimd();
  try {
    const simdPath = createRequire(import.meta.url).resolve('@lightprotocol/hasher.rs/simd.wasm');
    // The package's `./sisd.wasm` export names a file it does not ship; the non-SIMD build sits beside the SIMD one.
    bytes = readFileSync(simd ? simdPath : join(dirname(simdPath), 'light_wasm_hasher_bg.wasm'));
  } catch {
    bytes = undefined; // unusual layout (bundled deployment): fall back to the inlined module below
  }
  if (bytes === undefined) return WasmFactory.getInstance();
  const input = { module_or_path: bytes };
  const options = { simd, wasm: { simd: input, sisd: input } } as unknown as HasherLoadOptions;
  const creator = await WasmFactory.loadModule(options);
  return creator.create();
}

/**
 * Loads the Poseidon WASM once; later calls return the same promise. Await it before any other function of
 * `src/proofs/light` (they are synchronous and throw if it has not completed).
 */
export function initPoseidon(): Promise<void> {
  if (loading === undefined) {
    loading = load().then(
      (h) => {
        hasher = h;
      },
      (e: unknown) => {
        loading = undefined; // let a later call retry
        throw new SolgateError('INTERNAL', 'could not load the Poseidon hasher', { cause: e });
      },
    );
  }
  return loading;
}

/** True once `initPoseidon()` has completed. */
export function isPoseidonReady(): boolean {
  return hasher !== undefined;
}

function ready(): LightWasm {
  if (hasher === undefined) {
    throw new SolgateError('INTERNAL', 'Poseidon is not initialised: await initPoseidon() first');
  }
  return hasher;
}

/** Big-endian bytes → bigint (empty = 0). */
export function bytesToBigint(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  return BigInt('0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex'));
}

/** bigint → 32 big-endian bytes; throws unless 0 ≤ value < 2^256. */
export function bigintToBytes32(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 256n) {
    throw new SolgateError('INTERNAL', 'value does not fit in 32 bytes', { context: { value: value.toString() } });
  }
  return Uint8Array.from(Buffer.from(value.toString(16).padStart(64, '0'), 'hex'));
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
  return h.poseidonHash(inputs.map((x) => toFieldElement(x).toString(10)));
}

/** `poseidon` with the result as a bigint. */
export function poseidonBigint(inputs: readonly FieldInput[]): bigint {
  return bytesToBigint(poseidon(inputs));
}

/** Pairs remembered by {@link poseidonPair} (≈ 200 bytes each). */
export const PAIR_MEMO_SIZE = 100_000;
const pairMemo = new Map<string, Uint8Array>();

/**
 * Parent of two sibling nodes of a Light Merkle tree: Poseidon(left, right) (Photon's `compute_parent_hash`).
 *
 * Memoised (least recently used pairs dropped past {@link PAIR_MEMO_SIZE}): one Poseidon costs ≈ 0.2 ms in WASM, and
 * proofs of one tree share their upper levels (every proof of a tree with 2^k leaves shares the levels above k), so
 * re-verifying them per request would otherwise dominate the proof methods. The memo holds results of the hash
 * function itself, so a check through it is the same check.
 */
export function poseidonPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  const key = Buffer.from(left.buffer, left.byteOffset, left.byteLength).toString('latin1') + Buffer.from(right.buffer, right.byteOffset, right.byteLength).toString('latin1');
  const hit = pairMemo.get(key);
  if (hit !== undefined) {
    pairMemo.delete(key);
    pairMemo.set(key, hit);
    return hit.slice();
  }
  const out = poseidon([left, right]);
  pairMemo.set(key, out.slice());
  if (pairMemo.size > PAIR_MEMO_SIZE) pairMemo.delete(pairMemo.keys().next().value as string);
  return out;
}
