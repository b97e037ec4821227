/** Shared pieces of the Wallet REST routes: path validation, freshness, JSON-schema fragments. */
import { SolgateError } from '../../../core/errors.js';
import { isAddress } from '../../../core/encoding.js';
import type { Queryable } from '../../../store/db.js';
import { getCheckpoint } from '../../../store/chain.js';
import type { FastifyReply } from 'fastify';
import { COVERAGE_HEADER, coverageHeaderValue, type CoverageNeed, type CoverageReport } from '../../../core/coverage.js';
import type { ApiDeps } from '../../deps.js';

/** Validates the `{wallet}` path parameter (a base58 public key). */
export function walletParam(raw: unknown): string {
  const s = typeof raw === 'string' ? raw : '';
  if (!isAddress(s)) throw new SolgateError('INVALID_PARAMS', 'Invalid wallet address', { details: `'${s}' is not a valid Solana address` });
  return s;
}

/** The highest slot reads may report (the ingest checkpoint); -1 before anything was indexed. */
export async function readableSlot(q: Queryable): Promise<number> {
  return (await getCheckpoint(q)) ?? -1;
}

export const walletParamsSchema = {
  type: 'object',
  properties: { wallet: { type: 'string' } },
  required: ['wallet'],
} as const;

export const errorSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, code: { type: 'integer' }, details: { type: 'string' } },
  required: ['error', 'code'],
} as const;

/** The `minContextSlot` query parameter every Wallet REST route takes (../min-context.ts). */
export { minContextSlotSchema } from '../min-context.js';
import { minContextSlotSchema } from '../min-context.js';

/** The query schema of a route whose only query parameter is `minContextSlot`. */
export const minContextOnlyQuery = { type: 'object', properties: { minContextSlot: minContextSlotSchema } } as const;

export const limitSchema = (def: number) => ({ type: 'integer', minimum: 1, maximum: 100, default: def }) as const;

/**
 * Makes sure the index knows what the answer needs about `wallet` — its current state, or its history — reading it
 * from the cluster when it does not, and says in the `x-solgate-coverage` header whether the answer is complete.
 * Returns the report (null when the deps have no coverage service).
 */
export async function reportCoverage(deps: Pick<ApiDeps, 'ensureCovered'>, reply: FastifyReply, wallet: string, need: CoverageNeed = 'state'): Promise<CoverageReport | null> {
  if (!deps.ensureCovered) return null;
  const r = await deps.ensureCovered(wallet, need);
  reply.header(COVERAGE_HEADER, coverageHeaderValue(r));
  return r;
}
