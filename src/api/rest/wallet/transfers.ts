/** GET /v1/wallet/{wallet}/transfers: SOL and token movements in and out, newest first, keyset cursor. */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../../core/errors.js';
import { isSignature, uiAmount } from '../../../core/encoding.js';
import { NATIVE_MINT } from '../../../core/programs.js';
import { queryTransfers, type TransferKey } from '../../../store/wallet-activity.js';
import type { ApiDeps } from '../../deps.js';
import { limitSchema, minContextSlotSchema, readableSlot, walletParam, reportCoverage, walletParamsSchema } from './common.js';

/** Cursor = base64url("slot.txIndex.signature.ord.direction") of the last row returned. */
export function encodeTransferCursor(k: TransferKey): string {
  return Buffer.from(`${k.slot}.${k.txIndex}.${k.signature}.${k.ord}.${k.direction}`).toString('base64url');
}

export function decodeTransferCursor(s: string): TransferKey {
  const bad = () => new SolgateError('INVALID_PARAMS', 'Invalid cursor', { details: 'pass pagination.nextCursor from a previous response unchanged' });
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(s)) throw bad();
  const parts = Buffer.from(s, 'base64url').toString('utf8').split('.');
  if (parts.length !== 5) throw bad();
  const [slot, txIndex, signature, ord, direction] = parts;
  // A position is negative when the transaction's place in its slot is not known (src/core/tx-position.ts).
  if (!/^\d{1,15}$/.test(slot) || !/^-?\d{1,10}$/.test(txIndex) || Math.abs(Number(txIndex)) > 2147483647 || !/^\d{1,9}$/.test(ord) || !isSignature(signature) || (direction !== 'i' && direction !== 'o')) throw bad();
  return { slot: Number(slot), txIndex: Number(txIndex), signature, ord: Number(ord), direction };
}

export function registerTransfersRoute(app: FastifyInstance, deps: ApiDeps): void {
  app.get(
    '/v1/wallet/:wallet/transfers',
    {
      schema: {
        params: walletParamsSchema,
        querystring: { type: 'object', properties: { limit: limitSchema(50), cursor: { type: 'string' }, minContextSlot: minContextSlotSchema } },
      },
    },
    async (req, reply) => {
      const wallet = walletParam((req.params as { wallet: string }).wallet);
      await reportCoverage(deps, reply, wallet, 'history');
      const q = req.query as { limit: number; cursor?: string };
      const from = q.cursor !== undefined ? decodeTransferCursor(q.cursor) : null;
      const rows = await queryTransfers(deps.db, wallet, q.limit + 1, from, await readableSlot(deps.db));
      const hasMore = rows.length > q.limit;
      const page = rows.slice(0, q.limit);
      const info = await deps.tokens.lookup([...new Set(page.map((r) => r.mint))], { prices: false });
      return {
        data: page.map((r) => ({
          signature: r.signature,
          timestamp: r.blockTime,
          direction: r.direction === 'i' ? 'in' : 'out',
          counterparty: r.counterparty,
          mint: r.mint,
          amount: uiAmount(r.amount, r.decimals),
          amountRaw: r.amount.toString(),
          decimals: r.decimals,
          symbol: info.get(r.mint)?.symbol ?? (r.mint === NATIVE_MINT ? 'SOL' : null),
        })),
        pagination: { hasMore, nextCursor: hasMore ? encodeTransferCursor(page[page.length - 1]) : null },
      };
    },
  );
}
