/**
 * Delivery identity and signatures, in the Standard Webhooks form (https://www.standardwebhooks.com/, the scheme of
 * Svix and others, with verifying libraries in most languages):
 *  - `webhook-id`: the event id, stable for a (webhook, transaction) pair across retries, replays and workers, so
 *    a receiver dedupes on it;
 *  - `webhook-timestamp`: Unix seconds of this attempt;
 *  - `webhook-signature`: `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}` with the webhook's secret
 *    (the bytes after `whsec_`, base64-decoded).
 * Pure (the clock comes in as an argument; decoded keys are kept per secret).
 */
import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** The event id of `signature` delivered to `webhookId`: `evt_` + 32 hex digits of SHA-256(webhookId:signature). */
export function eventId(webhookId: string, signature: string): string {
  return `evt_${createHash('sha256').update(`${webhookId}:${signature}`).digest('hex').slice(0, 32)}`;
}

// The key of each secret seen, decoded once (a worker signs thousands of deliveries per second with a few secrets).
const keys = new Map<string, KeyObject>();

function secretKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64'));
    if (keys.size >= 10_000) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** `v1,<base64 HMAC-SHA256>` of one delivery. */
export function signDelivery(secret: string, id: string, timestampSec: number, body: string): string {
  // The signed content `${id}.${timestamp}.${body}`, fed in two parts (no copy of the body).
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSec}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The headers of one attempt (authHeader sent verbatim as Authorization when set). */
export function deliveryHeaders(o: { webhookId: string; signature: string; secret: string; body: string; authHeader: string | null; nowMs: number }): Record<string, string> {
  const id = eventId(o.webhookId, o.signature);
  const ts = Math.floor(o.nowMs / 1000);
  const h: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'solgate-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': signDelivery(o.secret, id, ts, o.body),
  };
  if (o.authHeader) h.authorization = o.authHeader;
  return h;
}
