/** Sparse Poseidon trees of heights 3..20: boundary and random leaves (see sparse-checks.ts). */
import { beforeAll, describe, it } from 'vitest';
import { initPoseidon } from '../../../src/proofs/light/poseidon.js';
import { checkSparseTree } from './sparse-checks.js';

beforeAll(async () => {
  await initPoseidon();
});

describe('sparse Poseidon trees, heights 3..20', () => {
  for (let height = 3; height <= 20; height++) it(`height ${height}`, () => checkSparseTree(height));
});
