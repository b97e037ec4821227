import { describe, expect, it } from 'vitest';
import { alternationOf } from '../../bench/lib/alternation.js';

describe('bench A-B-B-A alternation', () => {
  it("pairs each run with its neighbour whichever went first, and reports this checkout's time over the baseline's", () => {
    const a = alternationOf([
      { which: 'this', ms: 100 },
      { which: 'baseline', ms: 200 },
      { which: 'baseline', ms: 150 },
      { which: 'this', ms: 300 },
    ]);
    expect(a.order).toBe('ABBA');
    expect(a.thisMs).toEqual([100, 300]);
    expect(a.baselineMs).toEqual([200, 150]);
    expect(a.pairRatios).toEqual([0.5, 2]);
    expect(a.meanRatio).toBe(1.25);
  });
});
