/**
 * Proof batches verified on the verification thread (src/proofs/light/verify-pool.ts) give exactly the answers of
 * `verifyLightProofsBatch` on the calling thread — valid proofs, tampered ones and malformed input alike — and the
 * hashing happens on the thread (the calling thread's Poseidon counters do not move).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigintToBytes32, initPoseidon, poseidonCounters } from '../../../src/proofs/light/poseidon.js';
import { verifyLightProofsBatch } from '../../../src/proofs/light/merkle-proof.js';
import { noisyProofBatch, proofPathArb } from './helpers.js';
import { OFF_THREAD_MIN_PROOFS, stopVerifyThread, verifyLightProofsOffThread } from '../../../src/proofs/light/verify-pool.js';

beforeAll(async () => initPoseidon());
afterAll(async () => stopVerifyThread());

describe('verifyLightProofsOffThread', () => {
  it('answers as verifyLightProofsBatch does, for batches on the thread and below its threshold', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(proofPathArb(26), { minLength: 1, maxLength: 2 * OFF_THREAD_MIN_PROOFS }),
        fc.array(fc.nat(), { minLength: 2 * OFF_THREAD_MIN_PROOFS, maxLength: 2 * OFF_THREAD_MIN_PROOFS }),
        async (base, noise) => {
          const proofs = noisyProofBatch(base, noise);
          expect(await verifyLightProofsOffThread(proofs)).toEqual(verifyLightProofsBatch(proofs));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('hashes a large batch on the thread, not on the calling one', async () => {
    const proofs = noisyProofBatch(
      Array.from({ length: 3 * OFF_THREAD_MIN_PROOFS }, (_, i) => ({
        leaf: bigintToBytes32(BigInt(1000 + i)),
        siblings: Array.from({ length: 26 }, (_, k) => bigintToBytes32(BigInt(7919 * (i + 1) + k))),
        leafIndex: i * 12345,
      })),
      [],
    );
    const before = poseidonCounters();
    expect((await verifyLightProofsOffThread(proofs)).every(Boolean)).toBe(true);
    expect(poseidonCounters()).toEqual(before);
  });
});
