/** Property tests on sparse trees of depths 15..30: the middle and both ends of the leaf range. */
import { describe, it } from 'vitest';
import { runSparseTree } from './tree-checks.js';

describe('sparse trees, depths 15..30: few leaves, both ends and the middle', () => {
  for (let depth = 15; depth <= 30; depth++) it(`depth ${depth}`, () => runSparseTree(depth));
});
