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
import { isSignature } from '../../core/encoding.js';
import { classifyTransaction } from '../../enhanced/classify.js';
import type { EnhancedTransaction } from '../../enhanced/types.js';
import { parseTransaction } from '../../parsers/registry.js';
import { normalizeRpcTransaction } from '../../sources/normalize-rpc.js';
import type { ApiDeps } from '../deps.js';
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
  app.addHook('preValidation', meterHook(deps, () => ({ bucket: 'das', cost: 'enhanced', method: 'transactions' })));
  app.setErrorHandler((err, req, reply) => {
    const e = normalizeError(err);
    if (e.code === 'INTERNAL') req.log.error({ err }, 'transactions: internal error');
    else if (e.code === 'UNAVAILABLE') req.log.warn({ err: e.cause ?? err }, 'transactions: cluster RPC unavailable');
    const { status, body } = restErrorBody(e);
    if (e.retryAfter !== undefined) reply.header('retry-after', String(e.retryAfter));
    reply.status(status).send(body);
  });
  app.post('/v0/transactions', { schema: { body: bodySchema } }, async (req) => {
    const signatures = validateSignatures((req.body as Body).transactions);
    const fetcher = deps.enhanced?.getTransaction ?? deps.zk?.getTransaction;
    if (!fetcher)
      throw new SolgateError('UNAVAILABLE', 'Transaction parsing is unavailable', {
        details: 'no cluster RPC is configured (SOLANA_RPC_URL): transactions are fetched from the cluster to be parsed',
      });
    return enhancedTransactions(fetcher, signatures);
  });
}

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
