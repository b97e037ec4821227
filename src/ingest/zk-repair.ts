/**
 * The automatic repair of the ZK Compression trees (SOLGATE_DRIFT_ZK_REPAIR=rebuild): the drift detector records a
 * request in zk_repairs once a tree's mismatch is confirmed (src/ingest/drift.ts), in whichever process runs it; the
 * ingester — the process holding the ingester lock — carries it out as the exclusive work of its follow loop
 * (`RunOptions.exclusive`, src/ingest/pipeline.ts): between two batches, once the write in flight has committed, it
 * runs the rebuild of `solgate zk-rebuild` (src/ingest/zk-rebuild.ts) up to that checkpoint while no block is written,
 * then following resumes from the checkpoint with the blocks read meanwhile: no gap, no slot written twice.
 *
 * ZK Compression answers say `partial; basis=backfilling` while it runs (zk_history). A failed rebuild leaves what a
 * failed `solgate zk-rebuild` leaves (the trees partial, zk_history running, answers partial), ingestion resumes, and
 * the request is tried again after a pause (`retryMs` doubling per attempt, at most 30 min), its error recorded. A
 * rebuild stopped by a shutdown or a lost lock is due again at once, for whichever process ingests next. A request
 * judged on a state that a later rebuild (or history read) replaced is superseded, not run.
 */
import type { Logger } from 'pino';
import { errorText } from '../core/errors.js';
import { zkRepairRunning, zkRepairs } from '../core/metrics.js';
import { getCheckpoint } from '../store/chain.js';
import { getZkHistory } from '../store/zk/history.js';
import { claimZkRepair, deferZkRepair, finishZkRepair, zkRepairDue } from '../store/zk/repair.js';
import type { ExclusiveWork } from './pipeline.js';
import { rebuildZkState } from './zk-rebuild.js';
import type { ZkHistoryOptions } from './zk-history.js';

/** SOLGATE_DRIFT_ZK_REPAIR: `off` reports ZK Compression mismatches only; `rebuild` has the ingester rebuild the trees. */
export type ZkRepairMode = 'off' | 'rebuild';

export interface ZkRepairOptions extends ZkHistoryOptions {
  logger?: Logger;
  /** How often the follow loop looks for a request (default 5 s; {@link ZkRepairWork.wake} looks at once). */
  pollMs?: number;
  /** Pause before a failed rebuild is tried again, doubling per attempt up to 30 min (default 30 s). */
  retryMs?: number;
}

export interface ZkRepairWork extends ExclusiveWork {
  /** The next `due` reads the table (a request was just recorded in this process). */
  wake(): void;
}

const MAX_RETRY_MS = 30 * 60_000;
const OUTCOMES = ['done', 'truncated', 'failed', 'superseded'] as const;

export function createZkRepairWork(o: ZkRepairOptions): ZkRepairWork {
  for (const outcome of OUTCOMES) zkRepairs.inc({ outcome }, 0);
  const pollMs = o.pollMs ?? 5_000;
  const retryMs = o.retryMs ?? 30_000;
  let checkedAt = -Infinity;
  let due = false;

  async function run(signal: AbortSignal): Promise<void> {
    due = false;
    checkedAt = -Infinity;
    const req = await claimZkRepair(o.db);
    if (!req) return;
    const history = await getZkHistory(o.db);
    if (req.attempts === 0 && req.basis !== (history?.origin ?? null)) {
      await finishZkRepair(o.db, req.id, 'superseded');
      zkRepairs.inc({ outcome: 'superseded' });
      o.logger?.info({ request: req.id, trees: req.trees }, 'zk repair: superseded (the trees were rebuilt or read again after the mismatch was found)');
      return;
    }
    const at = { request: req.id, trees: req.trees, slot: req.slot, attempt: req.attempts + 1, checkpoint: await getCheckpoint(o.db) };
    o.logger?.warn(at, 'zk repair: ingestion paused at its checkpoint; rebuilding the ZK Compression trees\' state from the cluster');
    zkRepairRunning.set(1);
    try {
      const r = await rebuildZkState(o, signal);
      const outcome = r.status === 'truncated' ? 'truncated' : 'done';
      await finishZkRepair(o.db, req.id, outcome, { through: r.through, transactions: r.transactions });
      zkRepairs.inc({ outcome });
      o.logger?.warn({ ...at, outcome, through: r.through, trees: r.trees, transactions: r.transactions }, 'zk repair: rebuilt; ingestion resumes from its checkpoint');
    } catch (e) {
      if (signal.aborted) {
        await deferZkRepair(o.db, req.id, null, 0).catch(() => {});
        throw e;
      }
      const pause = Math.min(MAX_RETRY_MS, retryMs * 2 ** req.attempts);
      await deferZkRepair(o.db, req.id, errorText(e), pause);
      zkRepairs.inc({ outcome: 'failed' });
      o.logger?.error({ ...at, err: e, retryMs: pause }, 'zk repair: the rebuild failed (ZK Compression answers stay partial); ingestion resumes, the rebuild is tried again later');
    } finally {
      zkRepairRunning.set(0);
    }
  }

  return {
    idleMs: pollMs,
    async due() {
      if (Date.now() - checkedAt >= pollMs) {
        checkedAt = Date.now();
        due = await zkRepairDue(o.db);
      }
      return due;
    },
    run,
    wake() {
      checkedAt = -Infinity;
    },
  };
}
