/**
 * `?minContextSlot=S` on the REST interfaces that read the index (Wallet REST, /v0/addresses/{a}/transactions,
 * /v0/token-metadata): read-your-writes across API processes on replicas (docs/operations.md). The request waits, at
 * most SOLGATE_MIN_CONTEXT_WAIT_MS, until the index it reads (the replica's with DATABASE_READ_URL) has reached S,
 * then is answered from it; otherwise 503 `{error: "Minimum context slot has not been reached", code: 503, details}`
 * (the interface's error format, nothing added), the slot the index is at in `details` and in the
 * `x-solgate-context-slot` header, with `Retry-After: 1`. The value is validated by each route's query schema.
 * A successful answer of these routes carries `x-solgate-context-slot` too: the index's slot read after the answer
 * was built, so the answer reflects no later slot and a next request with `minContextSlot` set to it never gets an
 * older view.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiDeps } from '../deps.js';
import { SolgateError } from '../../core/errors.js';
import { isAddress } from '../../core/encoding.js';
import { awaitContextSlot, DEFAULT_MIN_CONTEXT_WAIT_MS } from '../rpc/min-context.js';
import { getCheckpoint } from '../../store/chain.js';

/**
 * The slot the index is at: on a 503 for a minContextSlot it has not reached (the JSON-RPC error's data.contextSlot),
 * and on a successful answer read from the index (read after it, so the answer reflects no later slot).
 */
export const CONTEXT_SLOT_HEADER = 'x-solgate-context-slot';

/**
 * The `minContextSlot` query parameter's schema. The description names the behaviour in the OpenAPI document.
 */
export const minContextSlotSchema = {
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'answer from an index at this slot or later: waits for it up to SOLGATE_MIN_CONTEXT_WAIT_MS (2 s), else 503 with the slot the index is at (`details`, header `x-solgate-context-slot`) and Retry-After',
} as const;

/** A preHandler hook: waits for `?minContextSlot` (when given) before the route reads the index. */
export function minContextHook(deps: Pick<ApiDeps, 'db' | 'minContextWaitMs'>): (req: FastifyRequest) => Promise<void> {
  const waitMs = deps.minContextWaitMs ?? DEFAULT_MIN_CONTEXT_WAIT_MS;
  return async (req) => {
    const slot = (req.query as { minContextSlot?: number } | undefined)?.minContextSlot;
    if (slot === undefined) return;
    // Bad input is answered at once (the handler's 400), not after waiting: a route's address parameter first.
    const p = req.params as { wallet?: unknown; address?: unknown } | undefined;
    const a = p?.wallet ?? p?.address;
    if (a !== undefined && (typeof a !== 'string' || !isAddress(a))) return;
    try {
      await awaitContextSlot(deps.db, slot, waitMs);
    } catch (err) {
      if (!(err instanceof SolgateError) || err.code !== 'INDEX_BEHIND') throw err;
      const at = (err.context?.data as { contextSlot?: number } | undefined)?.contextSlot ?? 0;
      throw new SolgateError('INDEX_BEHIND', err.message, {
        details: `the index this process reads is at slot ${at}, behind minContextSlot ${slot}, after waiting ${waitMs} ms; try again`,
        context: err.context,
        retryAfter: 1,
      });
    }
  };
}

/** Sets `x-solgate-context-slot` on a REST error reply for a minContextSlot the index has not reached. */
export function contextSlotHeader(e: SolgateError, reply: FastifyReply): void {
  const contextSlot = (e.context?.data as { contextSlot?: unknown } | undefined)?.contextSlot;
  if (e.code === 'INDEX_BEHIND' && typeof contextSlot === 'number') reply.header(CONTEXT_SLOT_HEADER, String(contextSlot));
}

/**
 * An onSend hook: a successful answer (2xx) carries `x-solgate-context-slot`, the index's checkpoint read after the
 * answer was built (the index it reads: the replica's with DATABASE_READ_URL). `readsIndex` leaves out routes that
 * answer from the cluster. An index with nothing yet says 0.
 */
export function contextSlotOnSuccess(deps: Pick<ApiDeps, 'db'>, readsIndex: (req: FastifyRequest) => boolean = () => true) {
  return async (req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (reply.statusCode < 200 || reply.statusCode >= 300 || !readsIndex(req)) return payload;
    reply.header(CONTEXT_SLOT_HEADER, String((await getCheckpoint(deps.db)) ?? 0));
    return payload;
  };
}
