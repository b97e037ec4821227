/**
 * What the drift detector's per-kind probes (src/ingest/drift/*.ts) share: a probe names the accounts it wants read
 * from the cluster, then — once the index has reached the slot S they were read at — compares its sample with them
 * through a {@link DriftRound}, which counts, records and collects the repairs.
 */
import type { AccountUpdate } from '../../core/model.js';
import type { AccountFetchRequest } from '../../sources/account-fetch.js';
import type { PollerCommitment, RpcClient } from '../../sources/rpc-client.js';
import type { Db } from '../../store/db.js';

export type DriftKind =
  | 'sol_balance'
  | 'token_account'
  | 'asset_owner'
  | 'core_asset_owner'
  | 'cnft_tree_root'
  | 'cnft_leaf_proof'
  | 'zk_tree_root'
  | 'zk_account_hash'
  | 'zk_batched_tree_root'
  | 'zk_address_tree_root'
  | 'zk_address_element'
  | 'zk_queue_next_index';

/**
 * What was done about a mismatch: the cluster's state written, the tree queued for its history backfill (Bubblegum) or
 * for the ingester's rebuild of the ZK Compression trees (SOLGATE_DRIFT_ZK_REPAIR=rebuild, confirmed), or only reported.
 */
export type DriftAction = 'rewritten' | 'queued' | 'reported';

export interface DriftMismatch {
  kind: DriftKind;
  /** The row's key: an address, asset id or tree. */
  address: string;
  slot: number;
  indexed: Record<string, string | number | boolean | null>;
  cluster: Record<string, string | number | boolean | null>;
  action: DriftAction;
}

export interface DriftRound {
  db: Db;
  client: RpcClient;
  commitment: PollerCommitment;
  signal?: AbortSignal;
  /** The cluster's state of each account the probe requested (at its own response's slot, all ≥ the round's start). */
  states: ReadonlyMap<string, AccountUpdate>;
  /** The round's compare slot: the newest of the responses' slots; the index has reached it. */
  slot: number;
  /** Counts a judged row. */
  checked(kind: DriftKind): void;
  /** Counts a row changed in the index after its cluster state (not judged). */
  skipped(): void;
  mismatch(m: DriftMismatch): void;
  /** Account states to write through the ingester's account path (position-guarded). */
  rewrite(state: AccountUpdate): void;
  /** Trees to queue for the history backfill. */
  queueBackfill(tree: string): void;
  /**
   * The action on a mismatch of ZK Compression tree `tree` (called once a mismatch is found): `queued` when the
   * automatic rebuild is on and an earlier round found the tree differing too, and none agreeing since (the rebuild is
   * then requested), else `reported`.
   */
  zkAction(tree: string): DriftAction;
  /** ZK Compression tree `tree` was judged and agrees (its root, and its sampled accounts' leaves). */
  zkAgrees(tree: string): void;
}

export interface DriftProbe {
  /** Accounts to read from the cluster. */
  requests: AccountFetchRequest[];
  /** Accounts per `getMultipleAccounts` (default 100; tree accounts are large, so fewer). */
  batchSize?: number;
  compare(round: DriftRound): Promise<void>;
}
