/**
 * GET /v1/wallet/{wallet}/history: the wallet's transactions with its balance changes, newest first
 * (`before` pages backwards; `after` pages forwards, oldest first). `tokenAccounts` chooses which links count;
 * `type` keeps the transactions of one enhanced type (classified at ingest), with the same paging.
 */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../../core/errors.js';
import { isSignature, uiAmount } from '../../../core/encoding.js';
import { NATIVE_DECIMALS } from '../../../core/programs.js';
import { getTxPosition, queryHistory } from '../../../store/chain-reads.js';
import type { ApiDeps } from '../../deps.js';
import { limitSchema, minContextSlotSchema, readableSlot, walletParam, reportCoverage, walletParamsSchema } from './common.js';

/**
 * The `type` values of the interface (service-interface "history"; a subset of the enhanced transaction types,
 * src/enhanced/transaction-types.ts). A filter matches the type the classifier gave the transaction at ingest;
 * transactions indexed before types were stored (migration 015) have none and match no filter. The classifier
 * does not emit CREATE_AUCTION_MANAGER, START_AUCTION and CREATE_AUCTION_MANAGER_V2 (not in the enhanced type
 * list either): filtering by them returns no transactions.
 */
export const HISTORY_TYPES = [
  'SWAP', 'TRANSFER', 'NFT_SALE', 'NFT_BID', 'NFT_LISTING', 'NFT_MINT', 'NFT_CANCEL_LISTING', 'TOKEN_MINT', 'BURN',
  'COMPRESSED_NFT_MINT', 'COMPRESSED_NFT_TRANSFER', 'COMPRESSED_NFT_BURN', 'CREATE_STORE', 'WHITELIST_CREATOR',
  'ADD_TO_WHITELIST', 'REMOVE_FROM_WHITELIST', 'AUCTION_MANAGER_CLAIM_BID', 'EMPTY_PAYMENT_ACCOUNT',
  'UPDATE_PRIMARY_SALE_METADATA', 'ADD_TOKEN_TO_VAULT', 'ACTIVATE_VAULT', 'INIT_VAULT', 'INIT_BANK', 'INIT_STAKE',
  'MERGE_STAKE', 'SPLIT_STAKE', 'CREATE_AUCTION_MANAGER', 'START_AUCTION', 'CREATE_AUCTION_MANAGER_V2',
  'UPDATE_EXTERNAL_PRICE_ACCOUNT', 'EXECUTE_TRANSACTION',
] as const;

const RELATION = { none: 1, balanceChanged: 2, all: 3 } as const;

interface Query {
  limit: number;
  before?: string;
  after?: string;
  type?: string;
  tokenAccounts: keyof typeof RELATION;
}

/** Renders the stored error value as the string the interface carries. */
function errorString(err: unknown): string | null {
  if (err == null) return null;
  return typeof err === 'string' ? err : JSON.stringify(err);
}

export function registerHistoryRoute(app: FastifyInstance, deps: ApiDeps): void {
  app.get(
    '/v1/wallet/:wallet/history',
    {
      schema: {
        params: walletParamsSchema,
        querystring: {
          type: 'object',
          properties: {
            limit: limitSchema(100),
            minContextSlot: minContextSlotSchema,
            before: { type: 'string' },
            after: { type: 'string' },
            type: { type: 'string', enum: [...HISTORY_TYPES] },
            tokenAccounts: { type: 'string', enum: Object.keys(RELATION), default: 'balanceChanged' },
          },
        },
      },
    },
    async (req, reply) => {
      const wallet = walletParam((req.params as { wallet: string }).wallet);
      await reportCoverage(deps, reply, wallet, 'history');
      const q = req.query as Query;
      if (q.before !== undefined && q.after !== undefined)
        throw new SolgateError('INVALID_PARAMS', 'Use either before or after, not both');
      const cursor = q.before ?? q.after;
      let from = null;
      if (cursor !== undefined) {
        const name = q.before !== undefined ? 'before' : 'after';
        if (!isSignature(cursor)) throw new SolgateError('INVALID_PARAMS', `Invalid ${name} cursor`, { details: `'${cursor}' is not a transaction signature` });
        from = await getTxPosition(deps.db, cursor);
        if (!from) throw new SolgateError('INVALID_PARAMS', `Unknown ${name} cursor`, { details: `transaction ${cursor} is not indexed` });
      }
      const maxSlot = await readableSlot(deps.db);
      const rows = await queryHistory(deps.db, {
        address: wallet,
        maxRelation: RELATION[q.tokenAccounts],
        limit: q.limit + 1,
        from,
        ascending: q.after !== undefined,
        maxSlot,
        type: q.type,
      });
      const hasMore = rows.length > q.limit;
      const page = rows.slice(0, q.limit);
      return {
        data: page.map((r) => ({
          signature: r.signature,
          slot: r.slot,
          timestamp: r.blockTime,
          fee: r.fee === null ? 0 : uiAmount(BigInt(r.fee), NATIVE_DECIMALS),
          feePayer: r.feePayer,
          error: errorString(r.err),
          balanceChanges: r.changes.map((c) => ({ mint: c.mint, amount: uiAmount(BigInt(c.amount), c.decimals), decimals: c.decimals })),
        })),
        pagination: { hasMore, nextCursor: hasMore ? page[page.length - 1].signature : null },
      };
    },
  );
}
