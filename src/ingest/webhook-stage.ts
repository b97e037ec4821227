/**
 * The ingest pipeline's webhook stage: matches a batch's transactions against the active webhooks
 * (src/webhooks/match.ts) while the previous batch is being written, and hands back the outbox statements that
 * the batch's own write commits (so an event exists exactly when its block does: none lost in a crash between the
 * two, none invented for a block that was never written). The events' insert NOTIFYs workers of every process at
 * the write's commit (src/store/webhook-events.ts `outboxStatements`); after the write, in-process workers are woken
 * directly too.
 */
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import type { Statement } from '../store/bulk.js';
import { anyActiveWebhook, outboxStatements, subscriptionsFor } from '../store/webhook-events.js';
import { classifyTransaction, type ClassifyContext } from '../enhanced/classify.js';
import type { Matches } from '../core/webhook-types.js';
import { matchTransactions, watchedAddresses } from '../webhooks/match.js';
import { webhookEventsQueued } from '../core/metrics.js';
import type { ParsedTx } from './fold-block.js';

export interface WebhookStage {
  /**
   * The outbox rows of `parsed` (the batch's transactions in chain order); `ctx` resolves token accounts. With
   * `onlyWebhook`, for that webhook alone (a replay read from the cluster).
   */
  prepare(parsed: readonly ParsedTx[], ctx: ClassifyContext, onlyWebhook?: string): Promise<Matches>;
  /** The statements that write `m` with the batch. */
  statements(m: Matches): Statement[];
  /** Called once the batch committed. */
  afterWrite(m: Matches): void;
}

export interface WebhookStageOptions {
  /** Events were queued (e.g. wake in-process delivery workers). */
  onQueued?: () => void;
  logger?: Logger;
}

export function createWebhookStage(db: Db, opts: WebhookStageOptions = {}): WebhookStage {
  return {
    async prepare(parsed, ctx, onlyWebhook) {
      // Without an active webhook nothing matches: the batch's addresses (about 8,000 per mainnet block) are not gathered.
      if (!(await anyActiveWebhook(db))) return { events: [], payloads: [] };
      const addresses = new Set<string>();
      for (const p of parsed) if (!p.tx.isVote) for (const a of watchedAddresses(p.tx)) addresses.add(a);
      const subs = await subscriptionsFor(db, [...addresses]);
      if (onlyWebhook !== undefined)
        for (const [a, list] of subs) {
          const mine = list.filter((s) => s.id === onlyWebhook);
          if (mine.length) subs.set(a, mine);
          else subs.delete(a);
        }
      return matchTransactions(parsed, subs, (p) => {
        try {
          return classifyTransaction(p.tx, p.events, ctx);
        } catch (err) {
          // A classifier bug must not stop ingestion: raw webhooks still get the transaction, typed ones cannot.
          opts.logger?.error({ err, signature: p.tx.signature }, 'webhooks: transaction could not be classified; only raw webhooks receive it');
          return null;
        }
      });
    },
    statements: outboxStatements,
    afterWrite(m) {
      if (!m.events.length) return;
      webhookEventsQueued.inc(m.events.length);
      // Workers in other processes were notified by the commit; a lost notification only delays them to their next poll.
      opts.onQueued?.();
    },
  };
}
