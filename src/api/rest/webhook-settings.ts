/**
 * Validation of a webhook's settings for `/v0/webhooks` (create and edit): turns a request body, merged over the
 * stored settings for an edit, into {@link WebhookSettings}, or throws a 400 SolgateError naming the field.
 *
 * Rules (compat-facts §5, service-interface "Webhook"):
 * - `webhookURL`: an absolute https URL. `http:` only when the operator allows it (`allowHttp`, local testing);
 *   `localhost` names and literal private/loopback/link-local/... addresses only when the operator allows private
 *   targets (`allowPrivate`). Host names are resolved when the webhook is saved (src/api/rest/webhooks.ts: refused when
 *   any address is non-public) and checked again when deliveries connect.
 * - `webhookType`: enhanced | raw | discord | enhancedDevnet | rawDevnet | discordDevnet (default enhanced).
 * - `transactionTypes`: values of the listed enhanced transaction types (src/enhanced/transaction-types.ts; case is
 *   normalised, duplicates dropped), `ANY` matching all. Types filter the enhanced and discord forms (discord posts
 *   formatted enhanced transactions) and need at least one value there; a raw webhook delivers every transaction of
 *   its addresses, so it takes none or just `ANY`.
 * - `accountAddresses`: base58 public keys, duplicates removed (first occurrence kept), 1..100,000 of them.
 * - `txnStatus`: all | success | failed (default all); `encoding`: jsonParsed | json | base58 | base64 (default
 *   jsonParsed); `authHeader`: sent verbatim as `Authorization`, one line, at most 4096 characters (empty = none).
 */
import { SolgateError } from '../../core/errors.js';
import { isAddress } from '../../core/encoding.js';
import { isTransactionType } from '../../enhanced/transaction-types.js';
import { refusedRange, describeRange } from '../../net/address-policy.js';
import type { TxnStatus, WebhookSettings, WebhookType } from '../../store/webhooks.js';

export const WEBHOOK_TYPES: readonly WebhookType[] = ['enhanced', 'raw', 'discord', 'enhancedDevnet', 'rawDevnet', 'discordDevnet'];
export const TXN_STATUSES: readonly TxnStatus[] = ['all', 'success', 'failed'];
export const ENCODINGS = ['jsonParsed', 'json', 'base58', 'base64'] as const;
export const MAX_ACCOUNT_ADDRESSES = 100_000;
export const MAX_URL_LENGTH = 2048;
export const MAX_AUTH_HEADER_LENGTH = 4096;

/** What the operator allows for webhook targets. */
export interface WebhookUrlPolicy {
  /** Accept `http:` URLs (local testing). */
  allowHttp: boolean;
  /** Accept localhost and literal non-public addresses (local testing, trusted networks). */
  allowPrivate: boolean;
}

/** The request body of create / edit (every field optional here; create checks the required ones). */
export interface WebhookBody {
  webhookURL?: string;
  webhookType?: string;
  transactionTypes?: string[];
  accountAddresses?: string[];
  txnStatus?: string;
  encoding?: string;
  authHeader?: string | null;
  active?: boolean;
}

const bad = (message: string, details?: string) => new SolgateError('INVALID_PARAMS', message, { details });

/** What an operator sets to accept the webhook URLs refused by default (named in the refusals). */
export const ALLOW_HTTP_HINT = 'the operator can allow them with SOLGATE_WEBHOOKS_ALLOW_HTTP=true';
export const ALLOW_PRIVATE_HINT = 'the operator can allow private and local targets with SOLGATE_WEBHOOKS_ALLOW_PRIVATE=true';

/** Whether transaction types filter deliveries of this webhook type. */
export function typedWebhook(t: WebhookType): boolean {
  return t !== 'raw' && t !== 'rawDevnet';
}

/** Validates a webhook URL under the operator's policy; returns it unchanged. */
export function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy): string {
  if (raw.length > MAX_URL_LENGTH) throw bad('Invalid webhookURL', `at most ${MAX_URL_LENGTH} characters`);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw bad('Invalid webhookURL', `'${raw}' is not an absolute URL`);
  }
  if (u.protocol === 'http:') {
    if (!policy.allowHttp) throw bad('Invalid webhookURL', `webhookURL must use https (http targets are not enabled on this gateway; ${ALLOW_HTTP_HINT})`);
  } else if (u.protocol !== 'https:') {
    throw bad('Invalid webhookURL', `webhookURL must use https${policy.allowHttp ? ' or http' : ''}, got ${u.protocol.replace(/:$/, '')}`);
  }
  if (u.hostname === '') throw bad('Invalid webhookURL', 'webhookURL has no host');
  if (!policy.allowPrivate) {
    // A fully qualified name may end with a dot (`localhost.` is localhost).
    const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost'))
      throw bad('Invalid webhookURL', `webhookURL must be a public address; localhost is not allowed (${ALLOW_PRIVATE_HINT})`);
    if (/^[\d.]+$/.test(host) || host.includes(':')) {
      const r = refusedRange(host);
      if (r) throw bad('Invalid webhookURL', `webhookURL must be a public address; ${host} is ${describeRange(r)} (${ALLOW_PRIVATE_HINT})`);
    }
  }
  return raw;
}

function checkTransactionTypes(raw: string[], type: WebhookType): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i].trim().toUpperCase();
    if (!isTransactionType(t)) throw bad('Invalid transactionTypes', `'${raw[i]}' at transactionTypes[${i}] is not a known transaction type`);
    if (!seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  }
  if (typedWebhook(type)) {
    if (!out.length) throw bad('Invalid transactionTypes', `a ${type} webhook needs at least one transaction type (ANY matches all)`);
  } else if (out.some((t) => t !== 'ANY')) {
    throw bad('Invalid transactionTypes', `transaction types filter only enhanced and discord webhooks; a ${type} webhook takes [] or ["ANY"]`);
  }
  return out;
}

/** Deduplicated (first occurrence kept) and validated account addresses. */
export function checkAccountAddresses(raw: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i++) {
    const a = raw[i];
    if (!isAddress(a)) throw bad('Invalid accountAddresses', `'${a}' at accountAddresses[${i}] is not a valid Solana address`);
    if (!seen.has(a)) {
      seen.add(a);
      out.push(a);
    }
  }
  if (!out.length) throw bad('Invalid accountAddresses', 'accountAddresses must list at least one address');
  if (out.length > MAX_ACCOUNT_ADDRESSES)
    throw bad('Too many accountAddresses', `at most ${MAX_ACCOUNT_ADDRESSES} addresses per webhook, got ${out.length}`);
  return out;
}

function checkAuthHeader(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined || raw === '') return null;
  if (raw.length > MAX_AUTH_HEADER_LENGTH) throw bad('Invalid authHeader', `at most ${MAX_AUTH_HEADER_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(raw)) throw bad('Invalid authHeader', 'authHeader must be one line without control characters');
  return raw;
}

function oneOf<T extends string>(field: string, v: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(v)) throw bad(`Invalid ${field}`, `'${v}' is not one of ${allowed.join(', ')}`);
  return v as T;
}

/**
 * The settings a body asks for: a create when `stored` is undefined (webhookURL and accountAddresses required,
 * defaults applied), else an edit where each absent field keeps its stored value. The merged result is checked as
 * a whole (e.g. a raw → enhanced change needs transaction types).
 */
export function webhookSettings(body: WebhookBody, stored: WebhookSettings | undefined, policy: WebhookUrlPolicy): WebhookSettings {
  if (!stored) {
    if (body.webhookURL === undefined) throw bad("Missing required body parameter 'webhookURL'");
    if (body.accountAddresses === undefined) throw bad("Missing required body parameter 'accountAddresses'");
  }
  const webhookType = body.webhookType !== undefined ? oneOf('webhookType', body.webhookType, WEBHOOK_TYPES) : (stored?.webhookType ?? 'enhanced');
  const url = body.webhookURL !== undefined ? checkWebhookUrl(body.webhookURL, policy) : stored!.url;
  // An edit to a raw type that gives no types keeps only a stored ANY (the others filter nothing there).
  const kept = stored ? (typedWebhook(webhookType) ? stored.transactionTypes : stored.transactionTypes.filter((t) => t === 'ANY')) : [];
  const types = body.transactionTypes ?? kept;
  return {
    url,
    webhookType,
    transactionTypes: checkTransactionTypes(types, webhookType),
    accountAddresses: body.accountAddresses !== undefined ? checkAccountAddresses(body.accountAddresses) : stored!.accountAddresses,
    txnStatus: body.txnStatus !== undefined ? oneOf('txnStatus', body.txnStatus, TXN_STATUSES) : (stored?.txnStatus ?? 'all'),
    encoding: body.encoding !== undefined ? oneOf('encoding', body.encoding, ENCODINGS) : (stored?.encoding ?? 'jsonParsed'),
    authHeader: body.authHeader !== undefined ? checkAuthHeader(body.authHeader) : (stored?.authHeader ?? null),
    active: body.active ?? stored?.active ?? true,
  };
}
