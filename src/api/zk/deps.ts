/**
 * Optional dependencies of the ZK Compression methods, composed by the CLI like the rest of `ApiDeps` and passed to
 * `buildApp({ ..., zk: { prover, getTransaction, maxLagSlots } })`. They are declared here, by augmenting `ApiDeps`,
 * so the ZK family owns its wiring and every other interface is unaffected; each one is optional and a method that
 * needs a missing one answers a clear error (the others keep working).
 */
import type { ApiDeps } from '../deps.js';
import type { ProverClient } from './prover.js';
import type { TransactionFetcher } from './transaction-fetcher.js';

export interface ZkDeps {
  /** gnark prover server (`PROVER_URL`): getValidityProof(V2) need it for every proof that is not by index. */
  prover?: ProverClient;
  /**
   * The cluster's `getTransaction` (base64, confirmed, max supported version 0), as Photon fetches it for
   * getTransactionWithCompressionInfo(V2); without it the transaction is described from stored data only.
   */
  getTransaction?: TransactionFetcher;
  /** getIndexerHealth: the largest distance to the cluster tip still reported healthy (Photon: 20 slots). */
  maxLagSlots?: number;
}

declare module '../deps.js' {
  interface ApiDeps {
    /** ZK Compression (Photon interface) dependencies; see `src/api/zk/deps.ts`. */
    zk?: ZkDeps;
  }
}

/** Photon's HEALTH_CHECK_SLOT_DISTANCE. */
export const DEFAULT_MAX_LAG_SLOTS = 20;

/** The ZK dependencies of `deps` (empty when none were given). */
export function zkDeps(deps: ApiDeps): ZkDeps {
  return deps.zk ?? {};
}
