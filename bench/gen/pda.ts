/**
 * Fast program-derived addresses for the data generators. `findProgramAddress` needs an "is this hash an ed25519
 * point?" test per bump; @solana/kit's `isOffCurveAddress` answers it with a modular square root (≈ 200 µs in
 * BigInt arithmetic, ≈ 0.5 ms per PDA), which would make deriving a million edition PDAs take minutes. Here the
 * same question is answered with a Jacobi symbol (a point with y exists iff (y²−1)/(d·y²+1) is a square mod p),
 * ≈ 10× faster; `checkedPda` compares a sample with the real derivation so a mistake cannot go unnoticed.
 */
import { sha256 } from '@noble/hashes/sha256';
import { base58ToBytes, bytesToBase58 } from '../../src/core/encoding.js';
import { findProgramAddressSync } from '../../src/parsers/bubblegum/leaf.js';
import type { Address } from '../../src/core/model.js';

const P = 2n ** 255n - 19n;
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const MARKER = new TextEncoder().encode('ProgramDerivedAddress');

const mod = (a: bigint): bigint => {
  const r = a % P;
  return r >= 0n ? r : r + P;
};

/** Jacobi symbol (a | n) for odd n > 0 (binary algorithm, stripping up to 32 trailing zero bits at a time). */
function jacobi(a: bigint, n: bigint): number {
  a %= n;
  let t = 1;
  while (a !== 0n) {
    let low = Number(a & 0xffffffffn);
    while (low === 0) {
      a >>= 32n; // an even number of halvings: the sign does not change
      low = Number(a & 0xffffffffn);
    }
    const tz = 31 - Math.clz32(low & -low);
    if (tz) {
      a >>= BigInt(tz);
      const r = Number(n & 7n);
      if (tz & 1 && (r === 3 || r === 5)) t = -t;
    }
    [a, n] = [n, a];
    if ((a & 3n) === 3n && (n & 3n) === 3n) t = -t;
    a %= n;
  }
  return n === 1n ? t : 0;
}

/** True when the 32 bytes decode to an ed25519 point (same answer as @solana/kit's compressed-point check). */
export function isOnCurve(bytes: Uint8Array): boolean {
  let hex = (bytes[31] & 0x7f).toString(16).padStart(2, '0');
  for (let i = 30; i >= 0; i--) hex += HEX[bytes[i]];
  const y = BigInt(`0x${hex}`);
  const y2 = mod(y * y);
  const u = mod(y2 - 1n);
  const v = mod(D * y2 + 1n);
  if (u === 0n) return (bytes[31] & 0x80) === 0; // x = 0: only the even sign is valid
  return jacobi(mod(u * v), P) === 1;
}

const encoder = new TextEncoder();
const seedBytes = (s: string | Uint8Array): Uint8Array => (typeof s === 'string' ? encoder.encode(s) : s);

/** `findProgramAddress(seeds, program)` with the fast curve test. */
export function fastPda(seeds: readonly (string | Uint8Array)[], programId: string): string {
  const program = base58ToBytes(programId);
  const parts = seeds.map(seedBytes);
  for (let bump = 255; bump >= 0; bump--) {
    const h = sha256.create();
    for (const s of parts) h.update(s);
    const digest = h.update(Uint8Array.of(bump)).update(program).update(MARKER).digest();
    if (!isOnCurve(digest)) return bytesToBase58(digest);
  }
  throw new Error('no viable bump seed');
}

let derived = 0;

/**
 * `fastPda`, with every `checkEvery`-th derivation compared to the repository's own `findProgramAddressSync`
 * (throws on a mismatch).
 */
export function checkedPda(seeds: readonly (string | Uint8Array)[], programId: string, checkEvery = 997): string {
  const out = fastPda(seeds, programId);
  if (derived++ % checkEvery === 0) {
    const [ref] = findProgramAddressSync(seeds.map(seedBytes), programId as Address);
    if (ref !== out) throw new Error(`fast PDA derivation disagrees with findProgramAddressSync: ${out} vs ${ref}`);
  }
  return out;
}

export const TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
export const BUBBLEGUM_PROGRAM = 'BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY';
const TM_BYTES = base58ToBytes(TOKEN_METADATA_PROGRAM);

/** The (master) edition PDA of a mint: ["metadata", program, mint, "edition"]. */
export function editionPda(mint: string): string {
  return checkedPda(['metadata', TM_BYTES, base58ToBytes(mint), 'edition'], TOKEN_METADATA_PROGRAM);
}

/** The metadata PDA of a mint: ["metadata", program, mint]. */
export function metadataPda(mint: string): string {
  return checkedPda(['metadata', TM_BYTES, base58ToBytes(mint)], TOKEN_METADATA_PROGRAM);
}

/** A compressed NFT's asset id: ["asset", tree, leafIndex u64 LE] under Bubblegum. */
export function cnftAssetIdPda(tree: string, leafIndex: number): string {
  const nonce = new Uint8Array(8);
  new DataView(nonce.buffer).setBigUint64(0, BigInt(leafIndex), true);
  return checkedPda(['asset', base58ToBytes(tree), nonce], BUBBLEGUM_PROGRAM);
}
