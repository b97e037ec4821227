/**
 * Prometheus metrics of the process (prom-client), in one registry served at `GET /metrics`. Modules import the
 * metric they update from here, so every name is declared once.
 */
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

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
