/**
 * getTransactionsForAddress `[address, config?]` (the RPC extension, compat-facts-rpc §1), from the history index:
 * the transactions that concern `address` — naming it directly, or with `filters.tokenAccounts` `balanceChanged` also
 * those that changed the balance of a token account it owns, `all` also those that touched one — in chain order
 * (`sortOrder` desc by default), as signatures (`{signature, slot, transactionIndex, err, memo, blockTime,
 * confirmationStatus}`) or full transactions (`{slot, transactionIndex, blockTime, transaction, meta}`, read from the
 * cluster RPC with the requested encoding). Filters on slot, blockTime, signature (lexicographic) and status;
 * `paginationToken` `"slot:position"` continues a listing in either direction.
 *
 * The address's history is read back from the cluster first when the index began after it (coverage, the
 * `x-solgate-coverage` header). `memo` is agave's memo string (null for none, and for transactions indexed before
 * memos were kept, until their slot is ingested again).
 */
import { SolgateError } from '../../../core/errors.js';
import { isAddress } from '../../../core/encoding.js';
import { addressTransactionsPage, type AddressTxQuery } from '../../../store/chain-reads.js';
import type { RpcMethod } from '../method.js';
import { listParams } from '../params-schema.js';

export const paramsSchema = listParams(
  'addressAndConfig',
  { description: 'the address (base58), then the optional config object' },
  2,
  '[address, {transactionDetails, sortOrder, limit, paginationToken, commitment, encoding, maxSupportedTransactionVersion, minContextSlot, filters}]',
);

const CONFIG_KEYS = new Set(['transactionDetails', 'sortOrder', 'limit', 'paginationToken', 'commitment', 'encoding', 'maxSupportedTransactionVersion', 'minContextSlot', 'filters']);
const FILTER_KEYS = new Set(['slot', 'blockTime', 'signature', 'status', 'tokenAccounts']);
const RANGE_KEYS = ['gt', 'gte', 'lt', 'lte', 'eq'] as const;

const bad = (message: string): never => {
  throw new SolgateError('INVALID_PARAMS', `Invalid params: ${message}`);
};

type Range = Partial<Record<(typeof RANGE_KEYS)[number], number | string>>;

function range(v: unknown, name: string, kind: 'int' | 'signature', allowEq: boolean): Range | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) return bad(`filters.${name} must be an object of gt/gte/lt/lte${allowEq ? '/eq' : ''}`);
  const out: Range = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (!(RANGE_KEYS as readonly string[]).includes(k) || (k === 'eq' && !allowEq)) return bad(`unknown field filters.${name}.${k}`);
    if (kind === 'int' ? !Number.isSafeInteger(x) || (x as number) < 0 : typeof x !== 'string' || !x) return bad(`filters.${name}.${k} must be ${kind === 'int' ? 'a non-negative integer' : 'a signature'}`);
    out[k as keyof Range] = x as number | string;
  }
  return out;
}

export const getTransactionsForAddress: RpcMethod = {
  name: 'getTransactionsForAddress',
  credits: 100,
  paramsSchema,
  async handler(params, deps, ctx) {
    if (!Array.isArray(params)) return bad('expected an array [address, config?]');
    if (params.length > 2) return bad(`expected [address, config?], got ${params.length} params. Maximum allowed: 2`);
    if (params.length < 1) return bad('expected [address, config?]');
    const [address, cfgRaw] = params as [unknown, unknown];
    if (typeof address !== 'string' || !isAddress(address)) return bad('address must be a base58 public key');
    const cfg = (cfgRaw ?? {}) as Record<string, unknown>;
    if (typeof cfg !== 'object' || Array.isArray(cfg)) return bad('config must be an object');
    for (const k of Object.keys(cfg)) if (!CONFIG_KEYS.has(k)) bad(`unknown field \`${k}\``);
    const details = cfg.transactionDetails ?? 'signatures';
    if (details !== 'signatures' && details !== 'full') return bad('transactionDetails must be "signatures" or "full"');
    const sortOrder = cfg.sortOrder ?? 'desc';
    if (sortOrder !== 'asc' && sortOrder !== 'desc') return bad('sortOrder must be "asc" or "desc"');
    const max = details === 'full' ? 100 : 1000;
    const limit = cfg.limit ?? (details === 'full' ? 100 : 1000);
    if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > max) return bad(`limit must be 1–${max} for transactionDetails "${details}"`);
    const commitment = cfg.commitment ?? 'finalized';
    if (commitment !== 'confirmed' && commitment !== 'finalized') return bad('commitment must be "confirmed" or "finalized"');
    const encoding = cfg.encoding ?? 'json';
    if (!['json', 'jsonParsed', 'base58', 'base64'].includes(encoding as string)) return bad('encoding must be json, jsonParsed, base58 or base64');
    if (cfg.maxSupportedTransactionVersion !== undefined && cfg.maxSupportedTransactionVersion !== 0) return bad('maxSupportedTransactionVersion must be 0');
    let after: { slot: number; index: number } | undefined;
    if (cfg.paginationToken !== undefined && cfg.paginationToken !== null) {
      // A position is negative when the transaction's place in its slot is not known (src/core/tx-position.ts).
      const m = typeof cfg.paginationToken === 'string' ? /^(\d{1,15}):(-?\d{1,10})$/.exec(cfg.paginationToken) : null;
      if (!m || Math.abs(Number(m[2])) > 2147483647) return bad('paginationToken must be the token of a previous page ("slot:position")');
      after = { slot: Number(m[1]), index: Number(m[2]) };
    }
    const f = (cfg.filters ?? {}) as Record<string, unknown>;
    if (typeof f !== 'object' || Array.isArray(f)) return bad('filters must be an object');
    for (const k of Object.keys(f)) if (!FILTER_KEYS.has(k)) bad(`unknown field filters.${k}`);
    const status = f.status ?? 'any';
    if (!['succeeded', 'failed', 'any'].includes(status as string)) return bad('filters.status must be succeeded, failed or any');
    const tokenAccounts = f.tokenAccounts ?? 'none';
    if (!['none', 'balanceChanged', 'all'].includes(tokenAccounts as string)) return bad('filters.tokenAccounts must be none, balanceChanged or all');
    const q: AddressTxQuery = {
      address, desc: sortOrder === 'desc', limit: limit as number, after,
      slot: range(f.slot, 'slot', 'int', true), blockTime: range(f.blockTime, 'blockTime', 'int', true) , signature: range(f.signature, 'signature', 'signature', false),
      status: status as AddressTxQuery['status'], relations: tokenAccounts === 'none' ? [1] : tokenAccounts === 'balanceChanged' ? [1, 2] : [1, 2, 3],
    };
    if (deps.ensureCovered) ctx?.coverage(await deps.ensureCovered(address, 'history'));
    if (details === 'full' && !deps.upstreamRpc)
      throw new SolgateError('UNAVAILABLE', 'Full transactions are read from the cluster RPC, which this server does not have (set SOLANA_RPC_URL)');
    const page = await addressTransactionsPage(deps.db, q);
    const token = page.more && page.rows.length ? `${page.rows[page.rows.length - 1].slot}:${page.rows[page.rows.length - 1].txIndex}` : null;
    if (details === 'signatures')
      return {
        data: page.rows.map((r) => ({
          signature: r.signature, slot: r.slot, transactionIndex: positionOrNull(r.txIndex), err: r.err, memo: r.memo || null, blockTime: r.blockTime, confirmationStatus: commitment,
        })),
        paginationToken: token,
      };
    const data = await Promise.all(page.rows.map(async (r) => {
      const reply = await deps.upstreamRpc!.forward('getTransaction', [r.signature, { encoding, commitment, maxSupportedTransactionVersion: 0 }], 1, true);
      if (reply.error) throw new SolgateError('UNAVAILABLE', `The cluster RPC could not give transaction ${r.signature}: ${reply.error.message}`);
      const tx = reply.result as { transaction?: unknown; meta?: unknown; blockTime?: number | null } | null;
      if (!tx) throw new SolgateError('UNAVAILABLE', `The cluster RPC no longer serves transaction ${r.signature} (slot ${r.slot})`);
      return { slot: r.slot, transactionIndex: positionOrNull(r.txIndex), blockTime: tx.blockTime ?? r.blockTime, transaction: tx.transaction, meta: tx.meta };
    }));
    return { data, paginationToken: token };
  },
};

/** The transaction's index in its block; null when it is not known (stored negative: src/core/tx-position.ts). */
function positionOrNull(i: number): number | null {
  return i < 0 ? null : i;
}
