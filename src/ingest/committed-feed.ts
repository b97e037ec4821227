/**
 * The committed blocks for a process that does not ingest (an API process beside a separate ingester): while some
 * subscription needs them (transactionSubscribe, accountSubscribe at the index's commitment), the blocks are read
 * from the cluster RPC with the ingester's own block source and passed on once the index's checkpoint — moved by
 * whichever process ingests, announced over PostgreSQL NOTIFY and polled as well — has reached them. So these
 * processes notify at the same moment and from the same blocks as one that ingests. It starts at the checkpoint when
 * the first subscription arrives and stops after the last one leaves (no cluster reads while nobody listens).
 */
import type { Block } from '../core/model.js';
import type { Demand } from '../core/demand.js';
import type { Db } from '../store/db.js';
import { BLOCKS_CHANNEL, getCheckpoint } from '../store/chain.js';
import { createRpcPoller, type PollerCommitment } from '../sources/rpc-poller.js';

export interface CommittedFeedOptions {
  db: Db;
  /** The cluster RPC the ingester reads. */
  url: string;
  commitment: PollerCommitment;
  demand: Demand;
  publish: (blocks: readonly Block[]) => void;
  logger?: { warn(o: object, msg: string): void; info(o: object, msg: string): void };
  /** How often the checkpoint is read when no NOTIFY came (default 250 ms). */
  pollMs?: number;
}

export interface CommittedFeed {
  close(): Promise<void>;
}

export function startCommittedFeed(o: CommittedFeedOptions): CommittedFeed {
  const pollMs = o.pollMs ?? 250;
  let run: { ctl: AbortController; done: Promise<void> } | null = null;
  let closed = false;

  async function follow(signal: AbortSignal, started: (from: number) => void, failedStart: (err: unknown) => void): Promise<void> {
    let wake: () => void = () => {};
    const unlisten = await o.db.listen(BLOCKS_CHANNEL, () => wake()).catch((err: unknown) => {
      o.logger?.warn({ err }, 'committed blocks: LISTEN failed; following the checkpoint by polling');
      return async () => {};
    });
    signal.addEventListener('abort', () => wake(), { once: true });
    let checkpoint = -1;
    const committed = async (slot: number) => {
      while (!signal.aborted && checkpoint < slot) {
        checkpoint = (await getCheckpoint(o.db)) ?? -1;
        if (checkpoint >= slot) return;
        await new Promise<void>((r) => {
          const t = setTimeout(r, pollMs);
          wake = () => {
            clearTimeout(t);
            r();
          };
        });
      }
    };
    try {
      let from: number;
      try {
        checkpoint = (await getCheckpoint(o.db)) ?? -1;
        from = checkpoint + 1;
        started(from);
      } catch (err) {
        failedStart(err);
        throw err;
      }
      while (!signal.aborted) {
        const poller = createRpcPoller({ url: o.url, commitment: o.commitment, concurrency: 4, fetchAccounts: false, logger: o.logger as never });
        try {
          for await (const b of poller.blocks(from, signal)) {
            await committed(b.slot);
            if (signal.aborted) break;
            o.publish([b]);
            from = b.slot + 1;
          }
        } catch (err) {
          if (signal.aborted) break;
          o.logger?.warn({ err, from }, 'committed blocks: reading blocks from the cluster failed; retrying in 1 s');
          await new Promise((r) => setTimeout(r, 1000));
        } finally {
          await poller.close().catch(() => {});
        }
      }
    } finally {
      await unlisten().catch(() => {});
    }
  }

  o.demand.onChange((active) => {
    if (closed) return;
    if (active && !run) {
      const ctl = new AbortController();
      let started!: () => void;
      let failed!: (err: unknown) => void;
      o.demand.starting(new Promise<void>((res, rej) => ((started = res), (failed = rej))));
      const done = follow(ctl.signal, (from) => {
        o.logger?.info({ from }, 'committed blocks: following the index from the cluster');
        started();
      }, failed)
        .catch((err) => o.logger?.warn({ err }, 'committed blocks: the feed stopped'))
        .finally(() => {
          if (run?.ctl === ctl) run = null;
        });
      run = { ctl, done };
    } else if (!active && run) {
      run.ctl.abort();
      run = null;
    }
  });

  return {
    async close() {
      closed = true;
      const r = run;
      run = null;
      r?.ctl.abort();
      await r?.done;
    },
  };
}
