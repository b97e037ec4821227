/**
 * Enhanced Transactions REST `POST /v0/transactions` ("parse transactions"): body `{transactions: string[]}`
 * (1..100 base58 signatures) → 200 with an array of enhanced transactions (src/enhanced/types.ts,
 * compat-facts §6), in request order (a signature given twice is answered twice).
 *
 * The index does not store wire transactions, so each signature is fetched from the cluster RPC
 * (`getTransaction`, base64, max supported version 0, the configured commitment), normalised
 * (`normalizeRpcTransaction`), parsed (`parseTransaction`) and classified (`classifyTransaction`). The fetcher is
 * `deps.enhanced.getTransaction`, else the cluster fetcher the ZK methods use (`deps.zk.getTransaction`, wired by
 * `serve` whenever a cluster RPC is configured).
 *
 * Signatures the cluster does not know (never landed, or older than the node's ledger) are left out of the
 * answer: the result only holds transactions that exist, so it can be shorter than the request (an empty array
 * when none is known); the reference documents no per-signature error shape.
 *
 * Errors are the REST format `{error, code, details?}` (as /v0/webhooks and /v0/token-metadata): 400 for a missing
 * or malformed body, an empty list, more than 100 signatures or a string that is not a base58 signature (named by
 * its index); 401 key; 503 when no cluster RPC is configured, when the cluster cannot be reached or times out, or
 * answers with an error or an unreadable transaction — never a 500 for the cluster's failures.
 */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../core/errors.js';
import { isAddress, isSignature } from '../../core/encoding.js';
import { COVERAGE_HEADER, coverageHeaderValue } from '../../core/coverage.js';
import { addressTransactionsPage, transactionPosition } from '../../store/chain-reads.js';
import { classifyTransaction } from '../../enhanced/classify.js';
import type { EnhancedTransaction } from '../../enhanced/types.js';
import { parseTransaction } from '../../parsers/registry.js';
import { normalizeRpcTransaction } from '../../sources/normalize-rpc.js';
import type { ApiDeps } from '../deps.js';
import { contextSlotHeader, contextSlotOnSuccess, minContextHook, minContextSlotSchema } from './min-context.js';
import { createAuthenticator } from '../plugins/auth.js';
import { meterHook } from '../plugins/metering.js';
import { normalizeError } from '../plugins/errors.js';
import { restErrorBody } from '../wire/errors.js';
import type { EncodedTransaction, TransactionFetcher } from '../zk/transaction-fetcher.js';
import '../zk/deps.js';

/** Signatures per request (the reference's documented maximum). */
export const MAX_TRANSACTIONS = 100;
/** Cluster `getTransaction` calls in flight for one request. */
const FETCH_CONCURRENCY = 8;

/** Optional dependencies of the enhanced transactions API. */
export interface EnhancedApiDeps {
  /** The cluster's `getTransaction`; defaults to `deps.zk.getTransaction`. */
  getTransaction?: TransactionFetcher;
}

declare module '../deps.js' {
  interface ApiDeps {
    /** Enhanced transactions (`POST /v0/transactions`); see `src/api/rest/transactions.ts`. */
    enhanced?: EnhancedApiDeps;
  }
}

interface Body {
  transactions: unknown[];
}

const bodySchema = {
  type: 'object',
  properties: { transactions: { type: 'array' } },
  required: ['transactions'],
} as const;

/** The /v0/transactions interface: key auth, the route, REST errors. */
export async function transactionsApi(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const authenticate = createAuthenticator(deps.db, 'rest');
  app.addHook('preValidation', authenticate);
  app.addHook('preValidation', meterHook(deps, (req) => ({ bucket: 'das', cost: 'enhanced', method: req.method === 'GET' ? 'addresses.transactions' : 'transactions' })));
  app.setErrorHandler((err, req, reply) => {
    const e = normalizeError(err);
    if (e.code === 'INTERNAL') req.log.error({ err }, 'transactions: internal error');
    else if (e.code === 'UNAVAILABLE') req.log.warn({ err: e.cause ?? err }, 'transactions: cluster RPC unavailable');
    const { status, body } = restErrorBody(e);
    if (e.retryAfter !== undefined) reply.header('retry-after', String(e.retryAfter));
    contextSlotHeader(e, reply);
    reply.status(status).send(body);
  });
  // ?minContextSlot on the address history, which reads the index (./min-context.ts).
  app.addHook('preHandler', minContextHook(deps));
  app.addHook('onSend', contextSlotOnSuccess(deps, (req) => req.method === 'GET'));
  app.post('/v0/transactions', { schema: { body: bodySchema } }, async (req) => {
    const signatures = validateSignatures((req.body as Body).transactions);
    const fetcher = deps.enhanced?.getTransaction ?? deps.zk?.getTransaction;
    if (!fetcher)
      throw new SolgateError('UNAVAILABLE', 'Transaction parsing is unavailable', {
        details: 'no cluster RPC is configured (SOLANA_RPC_URL): transactions are fetched from the cluster to be parsed',
      });
    return enhancedTransactions(fetcher, signatures);
  });

  app.get('/v0/addresses/:address/transactions', { schema: { params: ADDRESS_PARAMS, querystring: HISTORY_QUERY } }, async (req, reply) => {
    const address = (req.params as { address: string }).address;
    if (!isAddress(address)) throw new SolgateError('INVALID_PARAMS', 'Invalid address', { details: `${JSON.stringify(String(address).slice(0, 100))} is not a base58 public key` });
    const q = req.query as HistoryQueryString;
    const fetcher = deps.enhanced?.getTransaction ?? deps.zk?.getTransaction;
    if (!fetcher)
      throw new SolgateError('UNAVAILABLE', 'Transaction history is unavailable', {
        details: 'no cluster RPC is configured (SOLANA_RPC_URL): transactions are fetched from the cluster to be parsed',
      });
    if (q['before-signature'] !== undefined && q['after-signature'] !== undefined)
      throw new SolgateError('INVALID_PARAMS', 'Give before-signature or after-signature, not both');
    const beforeSig = q['before-signature'] ?? q.before;
    const afterSig = q['after-signature'];
    const asc = (q['sort-order'] ?? (afterSig !== undefined ? 'asc' : 'desc')) === 'asc';
    const cursorSig = asc ? afterSig : beforeSig;
    if ((asc && beforeSig !== undefined) || (!asc && afterSig !== undefined))
      throw new SolgateError('INVALID_PARAMS', 'before-signature pages a descending listing, after-signature an ascending one', { details: 'set sort-order accordingly' });
    let after: { slot: number; index: number } | undefined;
    if (cursorSig !== undefined) {
      if (!isSignature(cursorSig)) throw new SolgateError('INVALID_PARAMS', 'Invalid signature', { details: `${JSON.stringify(String(cursorSig).slice(0, 100))} is not a base58 transaction signature` });
      const at = await transactionPosition(deps.db, cursorSig);
      if (!at) throw new SolgateError('INVALID_PARAMS', 'Unknown signature', { details: `transaction ${cursorSig} is not in ${address}'s history` });
      after = at;
    }
    const range = (p: 'slot' | 'time') => {
      const out: Record<string, number> = {};
      for (const k of ['gt', 'gte', 'lt', 'lte'] as const) if (q[`${k}-${p}`] !== undefined) out[k] = q[`${k}-${p}`]!;
      return out;
    };
    const until = q.until;
    if (deps.ensureCovered) reply.header(COVERAGE_HEADER, coverageHeaderValue(await deps.ensureCovered(address, 'history')));
    const tokenAccounts = q['token-accounts'] ?? 'none';
    const limit = q.limit ?? 100;
    const wanted = q.source?.toUpperCase();
    // The source is known only once a transaction is classified: with a source filter, pages are read on until
    // `limit` matches or SOURCE_SCAN_LIMIT transactions were looked at.
    const out: EnhancedTransaction[] = [];
    let scanned = 0;
    for (;;) {
      const page = await addressTransactionsPage(deps.db, {
        address, desc: !asc, limit: wanted ? Math.min(100, limit * 2) : limit, after, slot: range('slot'), blockTime: range('time'), status: 'any',
        relations: tokenAccounts === 'none' ? [1] : tokenAccounts === 'balanceChanged' ? [1, 2] : [1, 2, 3],
        types: q.type ? [q.type.toUpperCase()] : undefined,
      });
      let rows = page.rows;
      const stop = until !== undefined ? rows.findIndex((r) => r.signature === until) : -1;
      if (stop >= 0) rows = rows.slice(0, stop);
      const txs = await enhancedTransactions(fetcher, rows.map((r) => r.signature));
      for (const t of txs) if (!wanted || t.source === wanted) out.push(t);
      scanned += rows.length;
      if (!wanted || out.length >= limit || !page.more || stop >= 0 || scanned >= SOURCE_SCAN_LIMIT || !rows.length) break;
      const last = rows[rows.length - 1];
      after = { slot: last.slot, index: last.txIndex };
    }
    return out.slice(0, limit);
  });
}

/** Transactions looked at for one page filtered by `source` (the classification is not stored). */
const SOURCE_SCAN_LIMIT = 1000;

const ADDRESS_PARAMS = { type: 'object', properties: { address: { type: 'string', maxLength: 64 } }, required: ['address'] } as const;
const RANGE = { type: 'integer', minimum: 0 } as const;
const HISTORY_QUERY = {
  type: 'object',
  properties: {
    'before-signature': { type: 'string', maxLength: 100 },
    'after-signature': { type: 'string', maxLength: 100 },
    before: { type: 'string', maxLength: 100 },
    until: { type: 'string', maxLength: 100 },
    'sort-order': { type: 'string', enum: ['asc', 'desc'] },
    'gt-slot': RANGE, 'gte-slot': RANGE, 'lt-slot': RANGE, 'lte-slot': RANGE,
    'gt-time': RANGE, 'gte-time': RANGE, 'lt-time': RANGE, 'lte-time': RANGE,
    commitment: { type: 'string', enum: ['confirmed', 'finalized'] },
    source: { type: 'string', maxLength: 64 },
    type: { type: 'string', maxLength: 64 },
    'token-accounts': { type: 'string', enum: ['none', 'balanceChanged', 'all'] },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    minContextSlot: minContextSlotSchema,
    'api-key': { type: 'string' },
  },
  additionalProperties: false,
} as const;

type HistoryQueryString = Partial<Record<`${'gt' | 'gte' | 'lt' | 'lte'}-${'slot' | 'time'}`, number>> & {
  'before-signature'?: string;
  'after-signature'?: string;
  before?: string;
  until?: string;
  'sort-order'?: 'asc' | 'desc';
  source?: string;
  type?: string;
  'token-accounts'?: 'none' | 'balanceChanged' | 'all';
  limit?: number;
};

/** The request's signatures, checked: 1..100 base58 signatures. */
export function validateSignatures(list: unknown[]): string[] {
  if (list.length === 0) throw new SolgateError('INVALID_PARAMS', 'transactions must not be empty', { details: 'pass 1 to 100 transaction signatures' });
  if (list.length > MAX_TRANSACTIONS)
    throw new SolgateError('INVALID_PARAMS', 'Too many transactions', { details: `at most ${MAX_TRANSACTIONS} signatures per request, got ${list.length}` });
  list.forEach((s, i) => {
    if (typeof s !== 'string' || !isSignature(s))
      throw new SolgateError('INVALID_PARAMS', 'Invalid transaction signature', {
        // a string is quoted (shortened); anything else is named by its type (a nested value is never serialised)
        details: `${typeof s === 'string' ? JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s) : s === null ? 'null' : Array.isArray(s) ? 'an array' : typeof s === 'object' ? 'an object' : String(s)} at transactions[${i}] is not a base58 transaction signature`,
      });
  });
  return list as string[];
}

/** Fetches, parses and classifies `signatures` (request order, unknown ones left out). */
export async function enhancedTransactions(fetcher: TransactionFetcher, signatures: string[]): Promise<EnhancedTransaction[]> {
  const unique = [...new Set(signatures)];
  const fetched = new Map<string, EncodedTransaction | null>();
  let next = 0;
  const worker = async () => {
    while (next < unique.length) {
      const sig = unique[next++];
      fetched.set(sig, await fetchOne(fetcher, sig));
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCH_CONCURRENCY, unique.length) }, worker));
  const out = new Map<string, EnhancedTransaction>();
  for (const sig of unique) {
    const raw = fetched.get(sig);
    if (raw) out.set(sig, enhance(sig, raw));
  }
  return signatures.flatMap((s) => (out.has(s) ? [out.get(s)!] : []));
}

async function fetchOne(fetcher: TransactionFetcher, signature: string): Promise<EncodedTransaction | null> {
  try {
    return await fetcher(signature);
  } catch (e) {
    const why = e instanceof Error ? (e.name === 'TimeoutError' ? 'timed out' : e.message) : String(e);
    throw new SolgateError('UNAVAILABLE', 'Cluster RPC unavailable', {
      details: `fetching transaction ${signature} failed: ${why}`,
      cause: e,
      retryAfter: 5,
    });
  }
}

function enhance(signature: string, raw: EncodedTransaction): EnhancedTransaction {
  let tx;
  try {
    tx = normalizeRpcTransaction(raw);
  } catch (e) {
    throw new SolgateError('UNAVAILABLE', 'Cluster RPC returned an unreadable transaction', {
      details: `transaction ${signature}: ${e instanceof Error ? e.message : String(e)}`,
      cause: e,
    });
  }
  return classifyTransaction(tx, parseTransaction(tx));
}
