/**
 * The JSON-RPC endpoint (POST /): envelope validation, single and batch requests, dispatch to method files,
 * and every error in the JSON-RPC envelope (auth failures keep their HTTP status, as production clients expect).
 * Responses are written by `stringifyRpc` (api/wire/json.ts), which writes a `bigint` anywhere in a result as a bare JSON integer
 * with every digit (as the Rust/serde reference indexers write u64 values).
 */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../core/errors.js';
import { rpcCalls, rpcIndexAnswers } from '../../core/metrics.js';
import type { ApiDeps } from '../deps.js';
import { createAuthenticator } from '../plugins/auth.js';
import { normalizeError } from '../plugins/errors.js';
import { isRpcId, rpcErrorBody } from '../wire/errors.js';
import { isZkMethod, methodCalls, methodTable, UNBATCHABLE } from './registry.js';
import { batchCap, isIdempotent, STANDARD_METHODS, standardCall } from './standard.js';
import { INDEX_ANSWERS } from './indexed/index.js';
import type { RpcReply } from '../../core/upstream.js';
import { stringifyRpc } from '../wire/json.js';

import type { RpcCallContext } from './method.js';
import { awaitContextSlot, DEFAULT_MIN_CONTEXT_WAIT_MS, takeMinContextSlot } from './min-context.js';
import { COVERAGE_HEADER, coverageHeaderValue, type CoverageReport } from '../../core/coverage.js';

const MAX_BATCH = 100;

export async function jsonRpcApi(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const methods = methodTable();
  const calls = methodCalls();
  const authenticate = createAuthenticator(deps.primaryDb ?? deps.db, 'rpc');
  // this scope only (the JSON-RPC endpoint); other interfaces keep Fastify's default serializer
  app.setReplySerializer((payload) => stringifyRpc(payload));
  app.addHook('preValidation', authenticate);
  app.setErrorHandler((err, req, reply) => {
    const e = normalizeError(err);
    if (e.code === 'INTERNAL') req.log.error({ err }, 'json-rpc: internal error');
    const id = (req.body as { id?: unknown } | undefined)?.id ?? null;
    const { status, body } = rpcErrorBody(e, Array.isArray(req.body) ? null : id);
    if (e.retryAfter !== undefined) reply.header('retry-after', String(e.retryAfter));
    reply.status(status).send(body);
  });

  // solgate_rpc_calls_total children by method and outcome, made once (the method label only for known methods).
  const counted = new Map<string, { inc(): void }>();
  // Standard Solana methods go to the cluster RPC (src/api/rpc/standard.ts) when the process has one.
  const upstream = deps.upstreamRpc;
  const forwarded = (method: unknown): method is string => upstream !== undefined && typeof method === 'string' && !methods.has(method) && STANDARD_METHODS.has(method);
  const countCall = (method: unknown, outcome: 'ok' | 'error' | 'internal') => {
    const name = typeof method === 'string' && (methods.has(method) || forwarded(method)) ? method : 'unknown';
    const k = `${name} ${outcome}`;
    let c = counted.get(k);
    if (!c) counted.set(k, (c = rpcCalls.labels(name, outcome)));
    c.inc();
  };

  /** One call; `sent`, the cluster's answer when the call already went to it in a batch with others. */
  async function one(req: unknown, ctx: RpcCallContext, sent?: Promise<RpcReply>): Promise<unknown> {
    const r = req as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown } | null;
    // a request whose id is not a string, number or null is invalid (and answered with id null)
    const given = r && typeof r === 'object' && 'id' in r ? r.id : null;
    const id = isRpcId(given) ? given : null;
    try {
      if (!r || typeof r !== 'object' || Array.isArray(r) || r.jsonrpc !== '2.0' || typeof r.method !== 'string' || !isRpcId(given))
        throw new SolgateError('INVALID_REQUEST', 'Invalid request');
      const m = methods.get(r.method);
      if (!m && forwarded(r.method)) {
        // Where the index is authoritative it answers (src/api/rpc/indexed/); otherwise the cluster does.
        const indexed = INDEX_ANSWERS.get(r.method);
        const local = indexed ? await indexed(r.params, deps) : undefined;
        if (local !== undefined) {
          countCall(r.method, 'ok');
          rpcIndexAnswers.labels(r.method).inc();
          return { jsonrpc: '2.0', result: local, id };
        }
        // The cluster's own answer (complete by definition: no coverage header), its errors passed through unchanged.
        const answer = await (sent ?? upstream!.forward(r.method, r.params, id, isIdempotent(r.method)));
        countCall(r.method, answer.error ? 'error' : 'ok');
        return answer;
      }
      if (!m) throw new SolgateError('METHOD_NOT_FOUND', 'Method not found');
      // minContextSlot: the index this process reads reaches it first (bounded wait), else -32016 (./min-context.ts).
      const min = takeMinContextSlot({ name: m.name, paramsSchema: m.paramsSchema, zk: isZkMethod(m) }, r.params);
      if (min.slot !== null) await awaitContextSlot(deps.db, min.slot, deps.minContextWaitMs ?? DEFAULT_MIN_CONTEXT_WAIT_MS);
      // Coverage: the method's own report (per address), else the index's (complete from genesis, or since its origin).
      let reported = false;
      const result = await m.handler(min.params, deps, { coverage: (c) => ((reported = true), ctx.coverage(c)) });
      if (!reported && deps.indexCoverage) ctx.coverage(await deps.indexCoverage(isZkMethod(m) ? 'zk' : undefined));
      countCall(r.method, 'ok');
      return { jsonrpc: '2.0', result, id };
    } catch (err) {
      const e = normalizeError(err);
      if (e.code === 'INTERNAL') app.log.error({ err }, 'json-rpc: internal error');
      countCall(r?.method, e.code === 'INTERNAL' ? 'internal' : 'error');
      return rpcErrorBody(e, id).body;
    }
  }

  app.post('/', async (req, reply) => {
    const body = req.body;
    if (Array.isArray(body)) {
      if (body.length === 0) throw new SolgateError('INVALID_REQUEST', 'Empty batch');
      if (body.length > MAX_BATCH) throw new SolgateError('INVALID_REQUEST', `Batch too large: at most ${MAX_BATCH} requests`);
    }
    const requests = (Array.isArray(body) ? body : [body]) as ({ method?: unknown; params?: unknown } | null)[];
    if (Array.isArray(body))
      for (const r of requests)
        if (typeof r?.method === 'string' && UNBATCHABLE.has(r.method)) throw new SolgateError('INVALID_REQUEST', `${r.method} cannot be sent in a batch`);
    // A batch carries at most 100 getTransaction calls and 10 of each other archival method (compat-facts-rpc §7).
    if (Array.isArray(body) && upstream) {
      const perMethod = new Map<string, number>();
      for (const r of requests) if (forwarded(r?.method)) perMethod.set(r.method, (perMethod.get(r.method) ?? 0) + 1);
      for (const [method, n] of perMethod) {
        const cap = batchCap(method);
        if (cap !== null && n > cap) throw new SolgateError('INVALID_REQUEST', `Batch too large: at most ${cap} ${method} calls per batch (this one has ${n})`);
      }
    }
    // Each call of a known method is rate-limited and charged (a batch as several calls) before any runs.
    if (deps.meter)
      for (const r of requests) {
        const call = calls.get(r?.method as string) ?? (forwarded(r?.method) ? standardCall(r.method, r.params) : undefined);
        if (call) await deps.meter.charge(req, reply, call);
      }
    // Coverage reported by the calls: the header says partial when any answer is (the first such report).
    // Reports are kept per call, so the header does not depend on which call of a batch finished first.
    const reports: CoverageReport[][] = [];
    // The standard calls of a batch that only the cluster answers go to it together, as one batch (one round trip).
    const together = new Map<number, Promise<RpcReply>>();
    if (Array.isArray(body) && upstream) {
      const picked = requests.flatMap((r, i) =>
        r && typeof r === 'object' && !Array.isArray(r) && (r as { jsonrpc?: unknown }).jsonrpc === '2.0' && isRpcId((r as { id?: unknown }).id ?? null)
          && 'id' in r && forwarded(r.method) && !INDEX_ANSWERS.has(r.method) ? [i] : []);
      if (picked.length > 1) {
        const sent = upstream.forwardBatch(picked.map((i) => {
          const r = requests[i] as { method: string; params?: unknown; id?: unknown };
          return { method: r.method, params: r.params, id: r.id, idempotent: isIdempotent(r.method) };
        }));
        sent.catch(() => {}); // each call reports the failure as its own error
        picked.forEach((i, k) => together.set(i, sent.then((answers) => answers[k])));
      }
    }
    const ctxOf = (i: number): RpcCallContext => ({ coverage: (r) => void (reports[i] ??= []).push(r) });
    const out = Array.isArray(body) ? await Promise.all(body.map((r, i) => one(r, ctxOf(i), together.get(i)))) : await one(body, ctxOf(0));
    const all = reports.flat();
    if (all.length) reply.header(COVERAGE_HEADER, coverageHeaderValue(all.find((r) => !r.complete) ?? all[0]));
    return out;
  });
}
