/**
 * Helpers for the Light tree tests: the recorded Photon snapshots (verbatim copies in
 * test/fixtures/photon-snapshots, from helius-labs/photon tests/integration_tests/snapshots @ 366a15b), a seeded
 * PRNG, and random field elements.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import bs58 from 'bs58';

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
