/**
 * What one delivery attempt sends and how its failure reads in the delivery log: the POST body built from the
 * stored payload (`raw` / `enhanced` arrays of one transaction, or a Discord message), and the error text of an
 * attempt that got no usable answer.
 */
import type { WebhookType } from '../core/webhook-types.js';
import type { EnhancedTransaction } from '../enhanced/types.js';
import { GuardedFetchError, SsrfError } from '../net/ssrf.js';
import type { DueEvent } from '../store/webhook-events.js';
import { discordMessage } from './discord.js';

/** The body of one delivery, or the reason none can be built (a permanent failure). */
export function deliveryBody(w: { webhookType: WebhookType }, e: Pick<DueEvent, 'raw' | 'enhanced'>, explorerTxUrl?: string): { body: string } | { error: string } {
  if (e.raw === null) return { error: 'payload no longer stored (retention); replay is not possible for this event' };
  const base = w.webhookType.replace(/Devnet$/, '');
  if (base === 'raw') return { body: `[${e.raw}]` };
  if (e.enhanced === null) return { error: 'failed transaction: enhanced and discord webhooks do not receive failed transactions' };
  if (base === 'enhanced') return { body: `[${e.enhanced}]` };
  return { body: JSON.stringify(discordMessage(JSON.parse(e.enhanced) as EnhancedTransaction, explorerTxUrl)) };
}

/** The delivery log's error text of an attempt that failed without a usable answer. */
export function attemptError(e: unknown): string {
  if (e instanceof SsrfError) return `refused target: ${e.message}`;
  if (e instanceof GuardedFetchError) return e.kind === 'too_many_redirects' ? 'redirect not followed (webhook URLs must answer directly)' : `${e.kind}: ${e.message}`;
  return (e as Error)?.message ?? String(e);
}
