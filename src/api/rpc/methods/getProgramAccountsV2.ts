/**
 * getProgramAccountsV2 `[programId, config?]` and getTokenAccountsByOwnerV2 `[owner, {mint}|{programId}, config?]`
 * (the RPC extensions' cursor-paged forms, compat-facts-rpc §3): the accounts the cluster's getProgramAccounts /
 * getTokenAccountsByOwner answer (same filters, encoding and dataSlice, read at one context slot), ordered by pubkey,
 * `limit` (1–10 000, default 1000) after `paginationKey` (the last pubkey of the previous page; null only on an empty
 * page — a short page is not the end). `changedSinceSlot` S keeps only the accounts the index saw written at a slot
 * from S through the list's context slot (../changed-since.ts); paging and `totalResults` (the number of accounts
 * matching, after that filter) apply to what is kept. Each page reads the whole list from the cluster.
 */
import { SolgateError } from '../../../core/errors.js';
import { isAddress } from '../../../core/encoding.js';
import type { ApiDeps } from '../../deps.js';
import { changedSinceOf, checkOrigin, checkProgramTracked, keepChanged } from '../changed-since.js';
import type { RpcMethod } from '../method.js';
import { listParams } from '../params-schema.js';

const bad = (m: string): never => {
  throw new SolgateError('INVALID_PARAMS', `Invalid params: ${m}`);
};

interface Keyed {
  pubkey: string;
  account: unknown;
}

interface PageConfig {
  limit: number;
  after: string | null;
  /** `changedSinceSlot`, or null. */
  since: number | null;
  upstream: Record<string, unknown>;
}

function pageConfig(cfg: Record<string, unknown>): PageConfig {
  const since = changedSinceOf(cfg);
  const limit = cfg.limit ?? 1000;
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > 10_000) bad('limit must be 1–10000');
  const after = cfg.paginationKey ?? null;
  if (after !== null && (typeof after !== 'string' || !isAddress(after))) bad('paginationKey must be the paginationKey of a previous page');
  const { limit: _l, paginationKey: _p, withContext: _w, changedSinceSlot: _c, ...upstream } = cfg;
  return { limit: limit as number, after: after as string | null, since, upstream: { ...upstream, withContext: true } };
}

/** A total order of base58 pubkeys (by length, then the alphabet's ASCII order): a page resumes after its last key. */
const before = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

function page(all: Keyed[], after: string | null, limit: number) {
  const sorted = [...all].sort((a, b) => before(a.pubkey, b.pubkey));
  const start = after === null ? 0 : sorted.findIndex((x) => before(x.pubkey, after) > 0);
  const items = start < 0 ? [] : sorted.slice(start, start + limit);
  return { accounts: items, paginationKey: items.length ? items[items.length - 1].pubkey : null, totalResults: all.length };
}

/**
 * The list to page: the cluster's, or with `changedSinceSlot` the part of it the index saw written since. `byAccount`
 * (getTokenAccountsByOwnerV2): a slot before the index's origin is answered when every listed account's history was
 * read back.
 */
async function selected(deps: ApiDeps, p: PageConfig, r: { context: unknown; value: Keyed[] }, byAccount: boolean): Promise<Keyed[]> {
  if (p.since === null) return r.value;
  const at = (r.context as { slot?: unknown } | null)?.slot;
  if (typeof at !== 'number' || !Number.isSafeInteger(at)) throw new SolgateError('UNAVAILABLE', 'The cluster RPC answered without a context slot');
  if (byAccount) await checkOrigin(deps.db, p.since, r.value.map((a) => a.pubkey));
  return keepChanged(deps.db, r.value, p.since, at);
}

async function forward(deps: ApiDeps, method: string, params: unknown[]): Promise<{ context: unknown; value: Keyed[] }> {
  if (!deps.upstreamRpc) throw new SolgateError('METHOD_NOT_FOUND', 'Method not found');
  const reply = await deps.upstreamRpc.forward(method, params, 1, true);
  if (reply.error) throw new SolgateError('INVALID_ARGUMENT', reply.error.message);
  const r = reply.result as { context?: unknown; value?: unknown } | null;
  if (!r || !Array.isArray(r.value)) throw new SolgateError('UNAVAILABLE', `The cluster RPC answered ${method} without a list of accounts`);
  return { context: r.context, value: r.value as Keyed[] };
}

export const getProgramAccountsV2: RpcMethod = {
  name: 'getProgramAccountsV2',
  credits: 10,
  paramsSchema: listParams('programAndConfig', { description: 'the program id, then the optional config object' }, 2, '[programId, {commitment, minContextSlot, withContext, encoding, dataSlice, filters, limit, paginationKey, changedSinceSlot}]'),
  async handler(params, deps) {
    if (!Array.isArray(params)) return bad('expected an array [programId, config?]');
    if (params.length > 2) return bad(`expected [programId, config?], got ${params.length} params. Maximum allowed: 2`);
    const [program, cfgRaw] = params as [unknown, unknown];
    if (typeof program !== 'string' || !isAddress(program)) return bad('programId must be a base58 public key');
    const cfg = (cfgRaw ?? {}) as Record<string, unknown>;
    if (typeof cfg !== 'object' || Array.isArray(cfg)) return bad('config must be an object');
    const withContext = cfg.withContext === true;
    const p = pageConfig(cfg);
    if (p.since !== null) {
      checkProgramTracked(program);
      // The program's accounts are not known before the cluster lists them: before the origin is refused outright.
      await checkOrigin(deps.db, p.since, null);
    }
    const r = await forward(deps, 'getProgramAccounts', [program, p.upstream]);
    const value = page(await selected(deps, p, r, false), p.after, p.limit);
    return withContext ? { context: r.context, value } : value;
  },
};

export const getTokenAccountsByOwnerV2: RpcMethod = {
  name: 'getTokenAccountsByOwnerV2',
  credits: 10,
  paramsSchema: listParams('ownerFilterAndConfig', { description: 'the owner, then {mint} or {programId}, then the optional config object' }, 3, '[owner, {mint}|{programId}, {commitment, minContextSlot, encoding, dataSlice, limit, paginationKey, changedSinceSlot}]'),
  async handler(params, deps) {
    if (!Array.isArray(params)) return bad('expected an array [owner, {mint}|{programId}, config?]');
    if (params.length > 3) return bad(`expected [owner, {mint}|{programId}, config?], got ${params.length} params. Maximum allowed: 3`);
    const [owner, filter, cfgRaw] = params as [unknown, unknown, unknown];
    if (typeof owner !== 'string' || !isAddress(owner)) return bad('owner must be a base58 public key');
    if (!filter || typeof filter !== 'object' || Array.isArray(filter)) return bad('the second param must be {mint} or {programId}');
    const cfg = (cfgRaw ?? {}) as Record<string, unknown>;
    if (typeof cfg !== 'object' || Array.isArray(cfg)) return bad('config must be an object');
    if (cfg.filters !== undefined) bad('unknown field `filters`');
    const p = pageConfig(cfg);
    const r = await forward(deps, 'getTokenAccountsByOwner', [owner, filter, p.upstream]);
    return { context: r.context, value: page(await selected(deps, p, r, true), p.after, p.limit) };
  },
};
