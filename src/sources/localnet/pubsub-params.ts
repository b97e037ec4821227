/**
 * Parameters of the localnet's PubSub (WebSocket) methods, parsed as agave's `rpc_pubsub.rs` does: an invalid key or
 * signature is -32602 "Invalid Request: Invalid pubkey provided" (signature, mentions, …), `logsSubscribe` mentions
 * exactly one address, `blockSubscribe` refuses a commitment below `confirmed`, `commitment` defaults to finalized;
 * the account, encoding, dataSlice and filter parts reuse the HTTP methods' parsers (`rpc-accounts.ts`,
 * `rpc-params.ts`).
 */
import { isAddress, isSignature } from '../../core/encoding.js';
import { accountOpts, parseFilters, type AccountFilter, type AccountOpts } from './rpc-accounts.js';
import type { Commitment } from './commitment.js';
import type { TransactionDetails, TxEncoding } from './rpc-encode.js';
import {
  RpcError, boolOpt, configParam, confirmedLevelOpt, invalidParam, invalidParams, jsonType, levelOpt, maxVersionOpt, requireArgs,
  slotParam, txEncodingOpt,
} from './rpc-params.js';

/** What one subscription watches (its kind and the options it was made with); `commitment`: the level notified. */
export type SubscriptionSpec =
  | { kind: 'account'; address: string; opts: AccountOpts; commitment: Commitment }
  | { kind: 'program'; program: string; opts: AccountOpts; filters: AccountFilter[]; commitment: Commitment }
  | { kind: 'signature'; signature: string; received: boolean; commitment: Commitment }
  /** `mentions` null: every transaction (`votes`: vote transactions too). */
  | { kind: 'logs'; mentions: string | null; votes: boolean; commitment: Commitment }
  | { kind: 'slot' }
  | { kind: 'root' }
  | {
      kind: 'block'; mentions: string | null; encoding: TxEncoding; details: TransactionDetails; rewards: boolean;
      maxVersion: number | undefined; commitment: Commitment;
    };

export type SubscriptionKind = SubscriptionSpec['kind'];

/** The notification method of each kind (`accountNotification`, …). */
export const NOTIFICATION: Record<SubscriptionKind, string> = {
  account: 'accountNotification',
  program: 'programNotification',
  signature: 'signatureNotification',
  logs: 'logsNotification',
  slot: 'slotNotification',
  root: 'rootNotification',
  block: 'blockNotification',
};

/** `param::<T>(s, thing)` of rpc_pubsub.rs: a string that does not parse is "Invalid Request: Invalid {thing} provided". */
function keyParam(v: unknown, thing: string, check: (s: string) => boolean = isAddress): string {
  if (typeof v !== 'string') throw invalidParams(`invalid type: ${jsonType(v)}, expected a string.`);
  if (!check(v)) throw invalidParam(`Invalid Request: Invalid ${thing} provided`);
  return v;
}

function noParams(p: unknown[]): void {
  if (p.length) throw invalidParam('Invalid parameters: No parameters were expected');
}

function logsFilter(v: unknown): { mentions: string | null; votes: boolean } {
  if (v === 'all') return { mentions: null, votes: false };
  if (v === 'allWithVotes') return { mentions: null, votes: true };
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && 'mentions' in v) {
    const keys = (v as { mentions: unknown }).mentions;
    if (!Array.isArray(keys)) throw invalidParams(`invalid type: ${jsonType(keys)}, expected a sequence.`);
    if (keys.length !== 1) throw invalidParam('Invalid Request: Only 1 address supported');
    return { mentions: keyParam(keys[0], 'mentions'), votes: true };
  }
  throw invalidParams('unknown variant, expected one of `all`, `allWithVotes`, `mentions`.');
}

function blockFilter(v: unknown): string | null {
  if (v === 'all') return null;
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && 'mentionsAccountOrProgram' in v) {
    return keyParam((v as { mentionsAccountOrProgram: unknown }).mentionsAccountOrProgram, 'mentions_account_or_program');
  }
  throw invalidParams('unknown variant, expected `all` or `mentionsAccountOrProgram`.');
}

const DETAILS: readonly string[] = ['full', 'signatures', 'none', 'accounts'];

/** The spec of a `*Subscribe` call; throws `RpcError` (-32602) for invalid params. */
export function parseSubscribe(method: string, p: unknown[]): SubscriptionSpec {
  switch (method) {
    case 'accountSubscribe': {
      requireArgs(p, 1);
      const address = keyParam(p[0], 'pubkey');
      const cfg = configParam(p[1]);
      return { kind: 'account', address, opts: accountOpts(cfg), commitment: levelOpt(cfg) };
    }
    case 'programSubscribe': {
      requireArgs(p, 1);
      const program = keyParam(p[0], 'pubkey');
      const cfg = configParam(p[1]);
      const filters = parseFilters(cfg.filters);
      boolOpt(cfg.withContext, false, 'withContext');
      return { kind: 'program', program, opts: accountOpts(cfg), filters, commitment: levelOpt(cfg) };
    }
    case 'signatureSubscribe': {
      requireArgs(p, 1);
      const signature = keyParam(p[0], 'signature', isSignature);
      const cfg = configParam(p[1]);
      const commitment = levelOpt(cfg);
      return { kind: 'signature', signature, received: boolOpt(cfg.enableReceivedNotification, false, 'enableReceivedNotification'), commitment };
    }
    case 'logsSubscribe': {
      requireArgs(p, 1);
      const filter = logsFilter(p[0]);
      return { kind: 'logs', ...filter, commitment: levelOpt(configParam(p[1])) };
    }
    case 'slotSubscribe':
      noParams(p);
      return { kind: 'slot' };
    case 'rootSubscribe':
      noParams(p);
      return { kind: 'root' };
    case 'blockSubscribe': {
      requireArgs(p, 1);
      const mentions = blockFilter(p[0]);
      const cfg = configParam(p[1]);
      const commitment = confirmedLevelOpt(cfg);
      const details = cfg.transactionDetails ?? 'full';
      if (typeof details !== 'string' || !DETAILS.includes(details)) {
        throw invalidParams(`unknown variant \`${String(details)}\`, expected one of \`full\`, \`signatures\`, \`none\`, \`accounts\`.`);
      }
      return {
        kind: 'block', mentions, encoding: txEncodingOpt(cfg.encoding, 'base64'), details: details as TransactionDetails,
        rewards: boolOpt(cfg.showRewards, false, 'showRewards'), maxVersion: maxVersionOpt(cfg.maxSupportedTransactionVersion), commitment,
      };
    }
    default:
      throw new RpcError(-32601, 'Method not found');
  }
}

export const SUBSCRIBE_METHODS = new Set([
  'accountSubscribe', 'programSubscribe', 'signatureSubscribe', 'logsSubscribe', 'slotSubscribe', 'rootSubscribe', 'blockSubscribe',
]);
export const UNSUBSCRIBE_METHODS = new Set([...SUBSCRIBE_METHODS].map((m) => m.replace('Subscribe', 'Unsubscribe')));

/** The subscription id of an `*Unsubscribe` call (a u64). */
export function parseUnsubscribe(p: unknown[]): number {
  requireArgs(p, 1);
  return slotParam(p[0], 'subscription id');
}
