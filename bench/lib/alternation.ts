/**
 * Same-run comparisons of two checkouts run alternately in A-B-B-A order (A = this checkout, B = the baseline), so
 * that neither gains from its place in the run (caches, the database server's checkpoints, the machine's drift).
 */

/** Every run's wall time in the order run, and each pair's time ratio (this over the baseline). */
export interface Alternation {
  order: string;
  thisMs: number[];
  baselineMs: number[];
  pairRatios: number[];
  meanRatio: number;
}

/** The A-B-B-A runs summed up: each pair (runs 2j and 2j + 1) gives this checkout's time over the baseline's. */
export function alternationOf(runs: readonly { which: 'this' | 'baseline'; ms: number }[]): Alternation {
  const pairRatios: number[] = [];
  for (let j = 0; j + 1 < runs.length; j += 2) {
    const a = runs[j].which === 'this' ? runs[j] : runs[j + 1];
    const b = runs[j].which === 'this' ? runs[j + 1] : runs[j];
    pairRatios.push(Number((a.ms / b.ms).toFixed(3)));
  }
  return {
    order: runs.map((r) => (r.which === 'this' ? 'A' : 'B')).join(''),
    thisMs: runs.filter((r) => r.which === 'this').map((r) => Math.round(r.ms)),
    baselineMs: runs.filter((r) => r.which === 'baseline').map((r) => Math.round(r.ms)),
    pairRatios,
    meanRatio: Number((pairRatios.reduce((x, y) => x + y, 0) / pairRatios.length).toFixed(3)),
  };
}

