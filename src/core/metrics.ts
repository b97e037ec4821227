/**
 * Prometheus metrics of the process (prom-client), in one registry served at `GET /metrics`. Modules import the
 * metric they update from here, so every name is declared once.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'solgate_process_' });

/** Merkle proofs checked (root recomputed from leaf + proof) before being returned, by kind. */
export const proofsVerified = new Counter({
  name: 'solgate_proofs_verified_total',
  help: 'Merkle proofs verified against their root before being returned',
  labelNames: ['kind'] as const,
  registers: [registry],
});

/** Proofs that did not verify (answered as an internal error, never returned), by kind. */
export const proofVerificationFailures = new Counter({
  name: 'solgate_proof_verification_failures_total',
  help: 'Merkle proofs that did not verify against their root (the request failed instead of returning them)',
  labelNames: ['kind'] as const,
  registers: [registry],
});

/** ZK Compression tree updates the ingester could not apply correctly (root mismatch, inputs not indexed), by kind. */
export const zkTreeProblems = new Counter({
  name: 'solgate_zk_tree_problems_total',
  help: 'ZK Compression tree updates left out because their result did not match the chain or their inputs were not indexed',
  labelNames: ['kind'] as const,
  registers: [registry],
});

/** Reads on a replica (DATABASE_READ_URL) cancelled by a conflict with recovery and tried again. */
export const replicaConflictRetries = new Counter({
  name: 'solgate_replica_conflict_retries_total',
  help: 'Reads on the read replica cancelled by a conflict with the replay of the primary\'s WAL (SQLSTATE 40001) and tried again',
  registers: [registry],
});

/** Webhook delivery attempts by outcome (delivered, retry = failed and scheduled again, failed = given up). */
export const webhookAttempts = new Counter({
  name: 'solgate_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), failed (given up)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Seconds from an event being queued (its block committed) to its successful delivery. */
export const webhookDeliveryLatency = new Histogram({
  name: 'solgate_webhook_delivery_seconds',
  help: 'Time from an event being queued with its block to its successful delivery (seconds)',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
  registers: [registry],
});

/** Webhook events queued by the ingester (matched transactions × webhooks). */
export const webhookEventsQueued = new Counter({
  name: 'solgate_webhook_events_queued_total',
  help: 'Webhook events written to the outbox with their block',
  registers: [registry],
});

/** Webhooks switched off automatically for their failure rate. */
export const webhookDeactivations = new Counter({
  name: 'solgate_webhook_deactivations_total',
  help: 'Webhooks deactivated automatically because their delivery failure rate passed the threshold',
  registers: [registry],
});

/** Sender requests and tracked transactions by outcome (accepted, rejected_<reason>, upstream failures, landed...). */
export const senderOutcomes = new Counter({
  name: 'solgate_sender_outcomes_total',
  help: 'Sender outcomes: accepted, rejected_<reason>, rate_limited, upstream_rejected/unavailable/timeout; then confirmed, landed_failed, expired, gave_up, untracked',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Latency of one sendTransaction to an upstream path. */
export const senderUpstreamLatency = new Histogram({
  name: 'solgate_sender_upstream_seconds',
  help: 'Time of one sendTransaction to an upstream (rpc = validator path, block_engine = block builder)',
  labelNames: ['upstream'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

/** HTTP requests by route pattern (e.g. `/v1/wallet/:wallet/balances`; `unmatched` for 404s), method and status. */
export const httpRequests = new Counter({
  name: 'solgate_http_requests_total',
  help: 'HTTP requests answered, by route pattern (unmatched = no route), method and status code',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});

/** Time to answer an HTTP request, by route pattern and method. */
export const httpRequestDuration = new Histogram({
  name: 'solgate_http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to its response being sent (seconds), by route pattern and method',
  labelNames: ['route', 'method'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

/** JSON-RPC calls (each call of a batch) by method (`unknown` for a method that does not exist) and outcome. */
export const rpcIndexAnswers = new Counter({
  name: 'solgate_rpc_index_answers_total',
  help: 'Calls of standard Solana methods answered from the index instead of the cluster RPC, by method',
  labelNames: ['method'] as const,
  registers: [registry],
});

export const rpcCalls = new Counter({
  name: 'solgate_rpc_calls_total',
  help: 'JSON-RPC calls (each call of a batch counted) by method (unknown = no such method) and outcome: ok, error (the request was refused), internal (server-side failure)',
  labelNames: ['method', 'outcome'] as const,
  registers: [registry],
});

/** Retried JSON-RPC attempts of the ingester's block source (rate limits, 5xx, timeouts, dropped connections). */
export const ingestRpcRetries = new Counter({
  name: 'solgate_ingest_rpc_retries_total',
  help: 'JSON-RPC attempts of the ingester\'s cluster source that failed and were retried (429, 5xx, timeouts, dropped connections, block not yet available)',
  registers: [registry],
});

/** Failed JSON-RPC attempts of the ingester's block source (retried or not; "slot skipped" answers excluded). */
export const ingestRpcErrors = new Counter({
  name: 'solgate_ingest_rpc_errors_total',
  help: 'JSON-RPC attempts of the ingester\'s cluster source that failed, retried or not ("slot skipped" answers excluded)',
  registers: [registry],
});

/** Slots found empty (skipped) that a later re-check found to hold a block. */
export const ingestGapsDetected = new Counter({
  name: 'solgate_ingest_gaps_detected_total',
  help: 'Slots first seen as skipped (absent from getBlocks, or getBlock answering skipped) that a re-check once finalized found to hold a block',
  registers: [registry],
});

/** Blocks ingested late by the gap re-check (after later slots had been ingested). */
export const ingestBackfilledBlocks = new Counter({
  name: 'solgate_ingest_backfilled_blocks_total',
  help: 'Blocks fetched and ingested late because the gap re-check found them after their slot had been passed as skipped',
  registers: [registry],
});

/** Open WebSocket connections of the PubSub endpoint. */
export const wsConnections = new Gauge({
  name: 'solgate_ws_connections',
  help: 'Open WebSocket connections of the PubSub endpoint',
  registers: [registry],
});

/** WebSocket subscribe requests, by method and outcome (ok: sent to the cluster; refused: by a limit or invalid). */
export const wsSubscribes = new Counter({
  name: 'solgate_ws_subscribe_requests_total',
  help: 'WebSocket subscribe requests by method and outcome',
  labelNames: ['method', 'outcome'] as const,
  registers: [registry],
});

/** Notifications passed to clients. */
export const wsNotifications = new Counter({
  name: 'solgate_ws_notifications_total',
  help: 'WebSocket messages passed from the cluster to clients',
  registers: [registry],
});

/** WebSocket connections closed by the gateway, by reason. */
export const wsClosed = new Counter({
  name: 'solgate_ws_closed_total',
  help: 'WebSocket connections the gateway closed, by reason',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const driftChecked = new Counter({
  name: 'solgate_drift_checked_total',
  help: 'Indexed rows the drift detector compared with the cluster at the same slot, by kind (sol_balance, token_account, asset_owner, core_asset_owner, cnft_tree_root, cnft_leaf_proof, zk_tree_root, zk_account_hash, ...)',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const driftMismatches = new Counter({
  name: 'solgate_drift_mismatches_total',
  help: 'Indexed rows that differed from the cluster at the same slot (each logged; rewritten from the cluster, a tree queued for backfill, or ZK Compression only reported), by kind',
  labelNames: ['kind'] as const,
  registers: [registry],
});

/**
 * Bubblegum trees whose indexed root differed from the cluster's (or a sampled leaf's proof failed) and whose
 * nodes the drift detector recomputed from the indexed leaves (src/ingest/drift/cnft-repair.ts), by outcome.
 */
export const driftCnftRepairs = new Counter({
  name: 'solgate_drift_cnft_repairs_total',
  help: 'Bubblegum trees the drift detector recomputed from their indexed leaves after a root mismatch or a failing leaf proof, by outcome (rewritten: the recomputed root is the cluster\'s and the differing node rows were rewritten; leaves_differ: the recomputed root is not the cluster\'s either, rows left and the tree queued for its history backfill; too_large: more leaves than the bound, not recomputed; changed: the tree changed while it was read, left for a later round)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Automatic rebuilds of the ZK Compression trees' state (SOLGATE_DRIFT_ZK_REPAIR=rebuild, src/ingest/zk-repair.ts), by outcome. */
export const zkRepairs = new Counter({
  name: 'solgate_drift_zk_repairs_total',
  help: 'Automatic rebuilds of the ZK Compression trees\' state the ingester ran for a confirmed drift mismatch, by outcome (done, truncated: the cluster no longer serves the whole history, failed: tried again later, superseded: the trees were rebuilt since)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** 1 while the ingester is paused for an automatic ZK Compression rebuild. */
export const zkRepairRunning = new Gauge({
  name: 'solgate_drift_zk_repair_running',
  help: '1 while this process\'s ingester is paused for an automatic rebuild of the ZK Compression trees\' state (no block is written meanwhile)',
  registers: [registry],
});

/** Partitions of the append-only tables created ahead of the values written (src/ingest/retention.ts), by family. */
export const partitionsCreated = new Counter({
  name: 'solgate_partitions_created_total',
  help: 'Partition ranges of the append-only tables created ahead of ingestion, by family (history, webhook_attempts, usage)',
  labelNames: ['family'] as const,
  registers: [registry],
});

/** Partitions dropped by retention, by family (one per range, whatever the number of tables in the family). */
export const partitionsDropped = new Counter({
  name: 'solgate_partitions_dropped_total',
  help: 'Partition ranges dropped because they were wholly older than the retention horizon, by family',
  labelNames: ['family'] as const,
  registers: [registry],
});

/** Rows deleted by retention from the DEFAULT partitions (values no range partition covered), by family. */
export const retentionRowsDeleted = new Counter({
  name: 'solgate_retention_rows_deleted_total',
  help: 'Rows older than the retention horizon deleted from the DEFAULT partitions, by family',
  labelNames: ['family'] as const,
  registers: [registry],
});

/** Partition changes given up because a lock was not granted within the lock timeout (tried again next round). */
export const partitionLockTimeouts = new Counter({
  name: 'solgate_partition_lock_timeouts_total',
  help: 'Partition maintenance steps given up because a table lock was not granted within the short lock timeout (retried next round), by family',
  labelNames: ['family'] as const,
  registers: [registry],
});
