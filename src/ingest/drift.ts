/**
 * The drift detector: samples indexed state and compares it with the cluster at the same slot, so a real
 * deployment learns when its index disagrees with the chain (a parser gap, a lost write, a hand-edited row).
 *
 * One round: each probe (src/ingest/drift/*.ts) samples its rows from a random starting point in key order (index
 * scans, no table scan) and names the accounts it needs; these are read with `getMultipleAccounts`
 * (`minContextSlot` = the checkpoint), giving the cluster's state at some slot S; once the index's checkpoint has
 * reached S (and the DAS index has caught up with the writes), every sampled row whose last change is at or before S
 * must agree with the cluster's state at S (a row changed after S cannot be judged and is skipped). The kinds:
 *
 * - `sol_balance`, `token_account`: SOL balances and open token accounts (drift/tokens.ts);
 * - `asset_owner`, `core_asset_owner`: owners of token-backed and MPL Core DAS assets (drift/assets.ts);
 * - `cnft_tree_root`, `zk_tree_root`: roots of Bubblegum trees and ZK Compression V1 state trees; `cnft_leaf_proof`:
 *   leaves of a Bubblegum tree whose root agrees, whose proofs from the stored nodes must verify; `zk_account_hash`:
 *   compressed accounts of a tree whose root agrees, whose hash must be their leaf and prove to that root (drift/trees.ts);
 * - `zk_batched_tree_root`, `zk_address_tree_root`: roots of V2 batched state trees and of V1 / V2 address trees;
 *   `zk_address_element`: elements of an address tree whose root agrees, each a leaf proving to it;
 *   `zk_queue_next_index`: what a V2 tree's own queue received (drift/zk-v2.ts).
 *
 * A difference is logged with both values and counted in `solgate_drift_mismatches_total{kind}`; compared rows are
 * counted in `solgate_drift_checked_total{kind}`. Accounts are repaired by writing the cluster's state at S through
 * the ingester's account path (position-guarded: never over a newer write; a token account the cluster no longer has
 * is closed; DAS rows are derived again); a Bubblegum tree's node rows are recomputed from its indexed leaves and
 * rewritten when that gives the cluster's root (drift/cnft-repair.ts), else it is queued for the history backfill; ZK Compression trees
 * and accounts are reported, and with `zkRepair: 'rebuild'` (SOLGATE_DRIFT_ZK_REPAIR) a tree found differing again
 * by a later round (not found agreeing in between) has a rebuild requested (zk_repairs), which the ingester runs
 * between two blocks (src/ingest/zk-repair.ts). While the trees' history is being read (a rebuild), they are not judged.
 */
import type { Logger } from 'pino';
import type { AccountUpdate } from '../core/model.js';
import { driftChecked, driftMismatches } from '../core/metrics.js';
import { SYSTEM_PROGRAM } from '../core/programs.js';
import { createWorkLoop } from '../core/work-loop.js';
import { fetchAccountsAtSlot } from '../sources/account-fetch.js';
import type { PollerCommitment, RpcClient } from '../sources/rpc-client.js';
import { enqueueRepair } from '../store/backfill.js';
import { getCheckpoint } from '../store/chain.js';
import type { Db } from '../store/db.js';
import { getZkHistory } from '../store/zk/history.js';
import { requestZkRepair } from '../store/zk/repair.js';
import { assetOwnerProbe } from './drift/assets.js';
import { solBalanceProbe, tokenAccountProbe } from './drift/tokens.js';
import { cnftTreeProbe, zkTreeProbe } from './drift/trees.js';
import { zkV2TreeProbe } from './drift/zk-v2.js';
import type { DriftKind, DriftMismatch, DriftRound } from './drift/types.js';
import type { ZkRepairMode } from './zk-repair.js';

export type { DriftAction, DriftKind, DriftMismatch } from './drift/types.js';

export interface DriftOptions {
  db: Db;
  client: RpcClient;
  /** The ingester's account path; `settle` (when given) is awaited before DAS rows are compared and after repairs. */
  ingester: { ingestAccounts(updates: AccountUpdate[]): Promise<void>; settle?(): Promise<void> };
  commitment: PollerCommitment;
  logger?: Pick<Logger, 'warn' | 'info' | 'debug'>;
  /** Rows sampled per kind per round (default 100). */
  sample?: number;
  /** Trees sampled per tree kind per round (default 2: a tree account is up to a few MB). */
  treeSample?: number;
  /** Pause between rounds (default 60 s). */
  intervalMs?: number;
  /** How long a round waits for the index to reach the cluster's slot before giving up (default 30 s). */
  catchUpMs?: number;
  /** Where a round's sample starts (default random); tests pin it. */
  startAt?: () => string;
  /** SOLGATE_DRIFT_ZK_REPAIR (default off): `rebuild` requests the ingester's rebuild of a ZK Compression tree found differing twice. */
  zkRepair?: ZkRepairMode;
  /** Called once a rebuild was requested (this process's ingester then looks for the request at once). */
  onZkRepair?: () => void;
}

export interface DriftReport {
  /** The cluster slot the round compared at (null: nothing sampled, or the index did not reach it in time). */
  slot: number | null;
  checked: number;
  /** Rows changed in the index after the compared slot (not judged). */
  skipped: number;
  mismatches: DriftMismatch[];
  /** Mismatches repaired by writing the cluster's state (action `rewritten`). */
  repaired: number;
  /** Trees queued for the history backfill (action `queued`). */
  queued: number;
  /** ZK Compression trees whose rebuild this round requested (their mismatches' action `queued`). */
  rebuild: string[];
}

export interface DriftDetector {
  /** One round now. */
  runOnce(signal?: AbortSignal): Promise<DriftReport>;
  start(): void;
  stop(): Promise<void>;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const randomStart = () => Array.from({ length: 3 }, () => BASE58[Math.floor(Math.random() * BASE58.length)]).join('');

/** Every kind, so /metrics shows each one's counters from the start (at 0). */
const KINDS: readonly DriftKind[] = [
  'sol_balance', 'token_account', 'asset_owner', 'core_asset_owner', 'cnft_tree_root', 'cnft_leaf_proof', 'zk_tree_root', 'zk_account_hash',
  'zk_batched_tree_root', 'zk_address_tree_root', 'zk_address_element', 'zk_queue_next_index',
];

export function createDriftDetector(o: DriftOptions): DriftDetector {
  for (const kind of KINDS) {
    driftChecked.inc({ kind }, 0);
    driftMismatches.inc({ kind }, 0);
  }
  const n = o.sample ?? 100;
  const trees = o.treeSample ?? 2;
  const catchUpMs = o.catchUpMs ?? 30_000;
  // ZK Compression trees found differing and not found agreeing since, with the trees' history state
  // (zk_history.origin) they were judged on: a mismatch found again by a later round on the same state is confirmed.
  let suspects: { basis: number | null; trees: Set<string> } = { basis: null, trees: new Set() };

  async function waitForIndex(slot: number, signal?: AbortSignal): Promise<boolean> {
    const end = Date.now() + catchUpMs;
    for (;;) {
      if (((await getCheckpoint(o.db)) ?? -1) >= slot) return true;
      if (Date.now() > end || signal?.aborted) return false;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function runOnce(signal?: AbortSignal): Promise<DriftReport> {
    const report: DriftReport = { slot: null, checked: 0, skipped: 0, mismatches: [], repaired: 0, queued: 0, rebuild: [] };
    const from = (o.startAt ?? randomStart)();
    const checkpoint = await getCheckpoint(o.db);
    if (checkpoint === null) return report;
    // While the trees' history is being read (a rebuild), their state is incomplete by design: not judged.
    const zkState = await getZkHistory(o.db);
    const zkJudged = zkState?.status !== 'running';
    const basis = zkState?.origin ?? null;
    if (suspects.basis !== basis) suspects = { basis, trees: new Set() };
    const probes = (await Promise.all([
      solBalanceProbe(o.db, from, n), tokenAccountProbe(o.db, from, n), assetOwnerProbe(o.db, from, n),
      cnftTreeProbe(o.db, from, trees, o.logger, n), ...(zkJudged ? [zkTreeProbe(o.db, from, trees, n, [...suspects.trees])] : []),
      ...(zkJudged ? [zkV2TreeProbe(o.db, from, trees, n, [...suspects.trees])] : []),
    ])).filter((p) => p.requests.length);
    if (!probes.length) return report;
    const opts = { commitment: o.commitment, signal };
    const fetched = await Promise.all(probes.map((p) => fetchAccountsAtSlot(o.client, checkpoint, p.requests, { ...opts, batchSize: p.batchSize })));
    const slot = Math.max(...fetched.flat().map((s) => s.slot));
    if (!(await waitForIndex(slot, signal))) {
      o.logger?.info({ slot }, 'drift: the index did not reach the cluster\'s slot in time; round skipped');
      return report;
    }
    await o.ingester.settle?.();
    report.slot = slot;
    const rewrites = new Map<string, AccountUpdate>();
    const backfill = new Set<string>();
    const differing = new Set<string>();
    const agreeing = new Set<string>();
    const confirmed = new Set<string>();
    // A rebuild cannot complete from a cluster that no longer serves the trees' whole history (zk_history truncated).
    const rebuild = o.zkRepair === 'rebuild' && zkState?.status !== 'truncated';
    for (const [i, probe] of probes.entries()) {
      const round: DriftRound = {
        db: o.db, client: o.client, commitment: o.commitment, signal, slot,
        states: new Map(fetched[i].map((s) => [s.pubkey, s])),
        checked: (kind) => {
          report.checked++;
          driftChecked.inc({ kind });
        },
        skipped: () => void report.skipped++,
        mismatch: (m) => void report.mismatches.push(m),
        rewrite: (state) => {
          // The newest read of an account wins; at the same slot, a gone account's read that names its program (a
          // token account's close) beats the plain one.
          const prev = rewrites.get(state.pubkey);
          if (!prev || prev.slot < state.slot || (prev.slot === state.slot && prev.owner === SYSTEM_PROGRAM && !prev.data.length)) rewrites.set(state.pubkey, state);
        },
        queueBackfill: (tree) => void backfill.add(tree),
        zkAction: (tree) => {
          differing.add(tree);
          if (!rebuild || !suspects.trees.has(tree)) return 'reported';
          confirmed.add(tree);
          return 'queued';
        },
        zkAgrees: (tree) => void agreeing.add(tree),
      };
      await probe.compare(round);
    }
    for (const m of report.mismatches) {
      driftMismatches.inc({ kind: m.kind });
      o.logger?.warn({ kind: m.kind, address: m.address, slot: m.slot, indexed: m.indexed, cluster: m.cluster, action: m.action }, 'drift: the index differs from the cluster');
    }
    if (rewrites.size) {
      await o.ingester.ingestAccounts([...rewrites.values()]);
      await o.ingester.settle?.();
    }
    if (backfill.size) await enqueueRepair(o.db, [...backfill]);
    if (zkJudged) suspects = { basis, trees: new Set([...[...suspects.trees].filter((t) => !agreeing.has(t)), ...differing]) };
    if (confirmed.size) {
      report.rebuild = [...confirmed].sort();
      const recorded = await requestZkRepair(o.db, { trees: report.rebuild, slot, basis });
      o.logger?.warn({ trees: report.rebuild, slot }, recorded
        ? 'drift: ZK Compression trees differ from the cluster again (a confirmed mismatch); the ingester will rebuild their state'
        : 'drift: ZK Compression trees differ from the cluster again; their rebuild is already requested');
      o.onZkRepair?.();
    }
    report.repaired = report.mismatches.filter((m) => m.action === 'rewritten').length;
    report.queued = backfill.size;
    return report;
  }

  const loop = createWorkLoop(async (signal) => {
    try {
      await runOnce(signal);
    } catch (err) {
      o.logger?.warn({ err }, 'drift: round failed');
    }
    return false;
  }, { idleMs: o.intervalMs ?? 60_000 });

  return { runOnce, start: () => loop.start(), stop: () => loop.stop() };
}
