/**
 * Helpers for the Light tree tests: the recorded Photon snapshots (verbatim copies in
 * test/fixtures/photon-snapshots, from helius-labs/photon tests/integration_tests/snapshots @ 366a15b), a seeded
 * PRNG, and random field elements.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import bs58 from 'bs58';
import fc from 'fast-check';
import { computeLightRoot, type LightProofBytes } from '../../../src/proofs/light/merkle-proof.js';
import { bigintToBytes32, BN254_FIELD_MODULUS as P } from '../../../src/proofs/light/poseidon.js';

const SNAPSHOTS = fileURLToPath(new URL('../../fixtures/photon-snapshots/', import.meta.url));

/** The JSON of an insta `.snap` file: everything after the second `---` line. */
export function readSnapshot<T = any>(name: string): T {
  const text = readFileSync(SNAPSHOTS + name, 'utf8');
  const parts = text.split(/^---$/m);
  if (parts.length < 3) throw new Error(`${name}: not an insta snapshot`);
  return JSON.parse(parts.slice(2).join('---')) as T;
}

export const snap = {
  mockNewAddressProofs: 'integration_tests__mock_tests__get_multiple_new_address_proofs.snap',
  nullifierAddressProof: 'integration_tests__e2e_tests__nullfiier_and_address_queue_transactions-proof-address.snap',
  nullifierAccounts: 'integration_tests__e2e_tests__nullfiier_and_address_queue_transactions-accounts.snap',
  nullifierProofs: 'integration_tests__e2e_tests__nullfiier_and_address_queue_transactions-proofs.snap',
  lamportAccounts: 'integration_tests__e2e_tests__lamport_transfers-payer-accounts.snap',
  lamportProofs: 'integration_tests__e2e_tests__lamport_transfers-payer-proofs.snap',
  lamportValidityProof: 'integration_tests__e2e_tests__lamport_transfers-payer-validity-proof.snap',
  bobAccounts: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-accounts.snap',
  bobAccountsV2: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-accounts-v2.snap',
  bobProofs: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-proofs.snap',
  bobValidityProofV2: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-validity-proof-v2.snap',
  mintTransactionV2: 'integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-mint-transaction-v2.snap',
} as const;

export const b58 = (s: string): Uint8Array => bs58.decode(s);
export const toB58 = (b: Uint8Array): string => bs58.encode(b);

export { rng } from '../../helpers/rng.js';

/** Uniform integer in [0, n) for any safe n (two draws, so n up to 2^53 is covered). */
export function randIndex(rand: () => number, n: number): number {
  const x = Math.floor(rand() * 2 ** 26) * 2 ** 27 + Math.floor(rand() * 2 ** 27);
  return x % n;
}

/** 32 random bytes below 2^248 (first byte 0): always a BN254 field element, never all zero. */
export function randomField(rand: () => number): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 1; i < 32; i++) out[i] = Math.floor(rand() * 256);
  out[31] |= 1;
  return out;
}

/** A copy of a 32-byte node with its lowest bit flipped (still a field element when the input is). */
export function flipLowBit(node: Uint8Array): Uint8Array {
  const out = node.slice();
  out[31] ^= 1;
  return out;
}

/** A random proof path (fast-check): a leaf, 0 to `maxHeight` siblings, and a leaf index inside that tree. */
export function proofPathArb(maxHeight: number): fc.Arbitrary<{ leaf: Uint8Array; siblings: Uint8Array[]; leafIndex: number }> {
  const node = fc.bigInt({ min: 0n, max: P - 1n }).map(bigintToBytes32);
  return fc.integer({ min: 0, max: maxHeight }).chain((height) =>
    fc.record({
      leaf: node,
      siblings: fc.array(node, { minLength: height, maxLength: height }),
      leafIndex: fc.integer({ min: 0, max: 2 ** height - 1 }),
    }),
  );
}

/**
 * The valid proof of each path, the proof of its neighbouring leaf (sharing every node above level 0), and a tampered
 * or malformed variant chosen by `noise[i]` (wrong root, index outside the tree, a node outside the field, a level too
 * many, a 31-byte leaf, a non-integer index, or none).
 */
export function noisyProofBatch(base: readonly { leaf: Uint8Array; siblings: Uint8Array[]; leafIndex: number }[], noise: readonly number[]): LightProofBytes[] {
  const proofs: LightProofBytes[] = [];
  base.forEach((p, i) => {
    const root = computeLightRoot(p.leaf, p.siblings, p.leafIndex);
    proofs.push({ ...p, root });
    if (p.siblings.length) proofs.push({ leaf: p.siblings[0], siblings: [p.leaf, ...p.siblings.slice(1)], leafIndex: p.leafIndex ^ 1, root });
    switch ((noise[i] ?? 6) % 7) {
      case 0: proofs.push({ ...p, root: p.leaf }); break;
      case 1: proofs.push({ ...p, root, leafIndex: p.leafIndex + 2 ** p.siblings.length }); break;
      case 2: proofs.push({ ...p, root: bigintToBytes32(P) }); break;
      case 3: proofs.push({ ...p, root, siblings: [...p.siblings, new Uint8Array(32)] }); break;
      case 4: proofs.push({ ...p, root, leaf: new Uint8Array(31) }); break;
      case 5: proofs.push({ ...p, root, leafIndex: 0.5 }); break;
      default: break;
    }
  });
  return proofs;
}
