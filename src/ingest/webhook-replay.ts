/**
 * Webhook replays read from the cluster: a job (`webhook_replays`, queued by `POST /v0/webhooks/{id}/replay`) covers
 * the webhook's addresses over a slot range; for each address the worker pages `getSignaturesForAddress` back from
 * the newest signature to the range's first slot, fetches the transactions of the range (`getTransaction`, a bounded
 * number in flight, placed in their blocks with `getBlock` signatures) and hands them to the ingester's
 * `replayWebhook` — the same classification and matching as live blocks, for this webhook alone. Events the webhook
 * already has are not queued twice (the replay request re-queued them); the others go to the delivery workers in
 * chain order. So a replay reaches before the webhook existed and before the index began, as far as the cluster
 * serves its ledger (`truncated` when it no longer serves the range's first slot).
 *
 * Jobs are claimed with a lease by any `serve` process with a cluster RPC; a job interrupted by a crash is read again
 * from its start when its lease expires (no event is queued twice).
 */
import type { Logger } from 'pino';
import type { NormalizedTx } from '../core/model.js';
import { errorText } from '../core/errors.js';
import { createWorkLoop, type WorkLoop } from '../core/work-loop.js';
import type { Db } from '../store/db.js';
import { advanceReplay, claimReplay, finishReplay, webhookAddresses, type ReplayRow } from '../store/webhook-replays.js';
import { fetchSignaturePage, fetchTransactions, MAX_SIGNATURES_PER_PAGE, placeInBlocks, type SignatureInfo } from '../sources/address-history.js';
import type { RpcClient } from '../sources/rpc-client.js';

export interface WebhookReplayerOptions {
  db: Db;
  ingester: { replayWebhook(webhookId: string, txs: NormalizedTx[]): Promise<number> };
  client: RpcClient;
  commitment: 'confirmed' | 'finalized';
  logger?: Logger;
  concurrency?: number;
  leaseMs?: number;
  idleMs?: number;
  /** Transactions fetched and matched at a time (default 200). */
  chunk?: number;
}

export type WebhookReplayer = WorkLoop;

export function createWebhookReplayer(o: WebhookReplayerOptions): WebhookReplayer {
  const leaseMs = o.leaseMs ?? 60_000;
  // Aborted by stop(): the RPC calls of a job in flight end with it.
  const ctl = new AbortController();
  const opts = { commitment: o.commitment, signal: ctl.signal };

  /** The signatures of `address` in [from, to], oldest first. */
  async function signaturesIn(address: string, from: number, to: number): Promise<SignatureInfo[]> {
    const out: SignatureInfo[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = await fetchSignaturePage(o.client, address, cursor, { ...opts, limit: MAX_SIGNATURES_PER_PAGE });
      for (const s of page) if (s.slot >= from && s.slot <= to) out.push(s);
      if (page.length < MAX_SIGNATURES_PER_PAGE || page[page.length - 1].slot < from) return out.reverse();
      cursor = page[page.length - 1].signature;
    }
  }

  async function replay(job: ReplayRow): Promise<void> {
    for (const address of await webhookAddresses(o.db, job.webhookId)) {
      const sigs = await signaturesIn(address, job.fromSlot, job.toSlot);
      let matched = 0;
      for (let i = 0; i < sigs.length; i += o.chunk ?? 200) {
        const part = sigs.slice(i, i + (o.chunk ?? 200));
        const txs = (await fetchTransactions(o.client, part.map((s) => s.signature), { ...opts, concurrency: o.concurrency })).filter((t): t is NormalizedTx => t !== null);
        const placed = await placeInBlocks(o.client, txs, { ...opts, concurrency: o.concurrency });
        matched += await o.ingester.replayWebhook(job.webhookId, placed);
      }
      await advanceReplay(o.db, job.id, { transactions: sigs.length, events: matched, leaseMs });
    }
    const first = Number(await o.client.call<unknown>('getFirstAvailableBlock', [], ctl.signal));
    if (Number.isSafeInteger(first) && first > job.fromSlot)
      return finishReplay(o.db, job.id, 'truncated', `the cluster serves its ledger only from slot ${first} on: slots ${job.fromSlot}..${first - 1} could not be read`);
    return finishReplay(o.db, job.id, 'done');
  }

  const loop = createWorkLoop(async () => {
    let job: ReplayRow | null = null;
    try {
      job = await claimReplay(o.db, leaseMs);
      if (job) {
        await replay(job);
        o.logger?.info({ webhookId: job.webhookId, replay: job.id }, 'webhook replay: read from the cluster');
      }
    } catch (e) {
      if (ctl.signal.aborted) return false;
      o.logger?.warn({ err: e, replay: job?.id }, 'webhook replay: failed');
      if (job) await finishReplay(o.db, job.id, 'failed', errorText(e)).catch(() => {});
    }
    return job !== null;
  }, { idleMs: o.idleMs ?? 2000 });
  return {
    start: loop.start,
    wake: loop.wake,
    async stop() {
      ctl.abort();
      await loop.stop();
    },
  };
}
