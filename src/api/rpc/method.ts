/** The shape every JSON-RPC method file exports (one method per file, registered in `registry.ts`). */
import type { ApiDeps } from '../deps.js';
import type { CoverageNeed, CoverageReport, KeyNeed } from '../../core/coverage.js';
import { mapLimit } from '../../core/map-limit.js';
import { getStateCoverage } from '../../store/coverage.js';
import type { ParamsSchema } from './params-schema.js';

export interface RpcMethod {
  /** Wire name, e.g. `getAsset`. */
  name: string;
  /** Other names the same method answers to (e.g. the Metaplex dialect). */
  aliases?: string[];
  /** Credits charged per call (plans and credits arrive with accounts/limits). */
  credits: number;
  /**
   * JSON Schema of `params`: a by-name object (the handler takes the names it accepts from it, `paramNames`), a list
   * (`params` is the array itself) or none (`NO_PARAMS`); /docs/openrpc.json describes the method from it. Every
   * registered method has one (test/api/docs.test.ts); a method without one would be listed by name only.
   */
  paramsSchema?: ParamsSchema;
  /** Validates `params` (throwing SolgateError INVALID_PARAMS) and returns the `result`. */
  handler(params: unknown, deps: ApiDeps, ctx?: RpcCallContext): Promise<unknown>;
}

/** What a handler can tell about its call besides the result. */
export interface RpcCallContext {
  /** How complete the answer is (sent as the `x-solgate-coverage` header of the HTTP response). */
  coverage(report: CoverageReport): void;
}

/** Asks `deps.ensureCovered` about `address` and reports the answer's coverage to the call. */
export async function requireCoverage(deps: ApiDeps, ctx: RpcCallContext | undefined, address: string): Promise<void> {
  if (!deps.ensureCovered) return;
  ctx?.coverage(await deps.ensureCovered(address, 'state'));
}

/**
 * The same for asset ids (read from the cluster the first time, 8 at a time); reports the first partial answer.
 * Ids already read are looked up together, so a batch of known assets costs one query, not one per id.
 */
export async function requireAssetCoverage(deps: ApiDeps, ctx: RpcCallContext | undefined, ids: string[]): Promise<void> {
  const ensure = deps.ensureCovered;
  if (!ensure || !ids.length) return;
  // An index complete from genesis knows every asset: no per-id lookup.
  const index = await deps.indexCoverage?.();
  if (index?.complete) return ctx?.coverage(index);
  const known = await getStateCoverage(deps.db, ids);
  const rest = ids.filter((id) => !known.has(id));
  if (!rest.length) return ctx?.coverage({ complete: true, basis: 'hydrated', slot: Math.min(...known.values()) });
  const reports = await mapLimit(rest, 8, (id) => ensure(id, 'asset'));
  ctx?.coverage(reports.find((r) => !r.complete) ?? reports[0]);
}

/**
 * A list by collection (`group`), creator or authority: asks `deps.ensureCovered` about the key (read from the
 * cluster the first time, `ingest/hydrate-group.ts`) and reports the answer's coverage to the call.
 */
export async function requireKeyCoverage(deps: ApiDeps, ctx: RpcCallContext | undefined, need: KeyNeed, key: string): Promise<void> {
  if (!deps.ensureCovered) return;
  ctx?.coverage(await deps.ensureCovered(key, need));
}

/**
 * searchAssets: the filters' keys (owner, collection, creator, authority) each select a candidate set and the answer
 * is their intersection, so it is complete as soon as one set is (every matching asset is in that set). The keys are
 * asked in order until one is complete; otherwise the first partial report is the answer's.
 */
export async function requireAnyCoverage(deps: ApiDeps, ctx: RpcCallContext | undefined, keys: { need: CoverageNeed; key: string }[]): Promise<void> {
  const ensure = deps.ensureCovered;
  if (!ensure || !keys.length) return;
  let first: CoverageReport | undefined;
  for (const k of keys) {
    const r = await ensure(k.key, k.need);
    if (r.complete) return ctx?.coverage(r);
    first ??= r;
  }
  if (first) ctx?.coverage(first);
}
