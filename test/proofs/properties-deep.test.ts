/** Property tests on full trees of depths 13 and 14 (own file so they run beside the others). */
import { describe, it } from 'vitest';
import { runFullTree } from './tree-checks.js';

describe('full trees, depths 13..14: fill to capacity with random replacements and burns', () => {
  for (const depth of [13, 14]) it(`depth ${depth}`, () => runFullTree(depth));
});
