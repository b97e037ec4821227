/**
 * The shapes shared by the webhook table families (src/store/webhooks.ts, src/store/webhook-events.ts), the pure
 * matcher (src/webhooks/match.ts) and the ingester that writes the outbox in the block's transaction. They live in
 * core so the store depends on no webhook logic and the matcher on no store module (no import cycle).
 */

export type WebhookType = 'enhanced' | 'raw' | 'discord' | 'enhancedDevnet' | 'rawDevnet' | 'discordDevnet';
export type TxnStatus = 'all' | 'success' | 'failed';

/** An active webhook as the matcher sees it (already selected by watched address). */
export interface Subscription {
  id: string;
  webhookType: WebhookType;
  transactionTypes: readonly string[];
  txnStatus: TxnStatus;
}

/** One outbox row: a transaction to deliver to one webhook. */
export interface OutboxEvent {
  webhookId: string;
  signature: string;
  slot: number;
  /** slot * 1e6 + index in block: the order of first attempts. */
  position: number;
}

/** The bodies of a matched transaction, stored once however many webhooks take it. */
export interface Payload {
  signature: string;
  slot: number;
  /** JSON text of the raw transaction. */
  raw: string;
  /** JSON text of the enhanced transaction; null for failed transactions. */
  enhanced: string | null;
}

export interface Matches {
  events: OutboxEvent[];
  payloads: Payload[];
}
