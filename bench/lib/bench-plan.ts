/** The plan of the benchmarks' API keys (bench/rpc.ts, bench/ws.ts): limits the load never reaches, calls still charged. */
import { mergePlanTable, type PlanTable } from '../../src/accounts/plans.js';

export const BENCH_PLAN = 'bench';

/** The default plan table plus {@link BENCH_PLAN}: every bucket 10M/s, no monthly quota. */
export function benchPlanTable(): PlanTable {
  const rate = 10_000_000;
  return mergePlanTable({
    plans: {
      [BENCH_PLAN]: {
        perSecond: { rpc: rate, das: rate, photon: rate, validityProof: rate, sendTransaction: rate, wallet: rate, getProgramAccounts: rate },
        monthlyCredits: null,
      },
    },
  }, 'bench plans');
}
