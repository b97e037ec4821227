/** Sparse Poseidon trees of heights 21..40 (26, 32 and 40 are the deployed ones; 33..40 pass 2^32 leaves). */
import { beforeAll, describe, it } from 'vitest';
import { initPoseidon } from '../../../src/proofs/light/poseidon.js';
import { checkSparseTree } from './sparse-checks.js';

beforeAll(async () => {
  await initPoseidon();
});

describe('sparse Poseidon trees, heights 21..40', () => {
  for (let height = 21; height <= 40; height++) it(`height ${height}`, () => checkSparseTree(height));
});
