/**
 * Forwarding of standard JSON-RPC requests to the cluster RPC (src/api/rpc/standard.ts): one keep-alive connection
 * pool (undici), a deadline per request, retries only of idempotent methods and only for failures that say nothing
 * reached the node or it asked to be tried again (connection refused/reset, HTTP 429/502/503/504), and the node's
 * answer passed back unchanged — `result`, or its JSON-RPC `error` with code, message and data — under the client's
 * own request id. Integers too long to be exact as a JS number (u64 `rentEpoch`, supplies) stay exact
 * (`parseJsonBigInt` into bigints, written back as bare integers by the response serializer).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Agent, request } from 'undici';
import { SolgateError, errorText } from '../core/errors.js';
import { parseJsonBigInt } from './json.js';
import type { AccountFetch, RpcReply, UpstreamRpc } from '../core/upstream.js';

export type { UpstreamRpc } from '../core/upstream.js';

export interface UpstreamRpcOptions {
  url: string;
  /** Deadline of one forwarded request, retries included (default 30 s). */
  timeoutMs?: number;
  /** Retries of an idempotent request after a transient failure (default 2). */
  retries?: number;
  /** Connections kept to the node (default 32). */
  connections?: number;
  logger?: Logger;
}

const RETRY_STATUS = new Set([429, 502, 503, 504]);
const RETRY_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

export function createUpstreamRpc(o: UpstreamRpcOptions): UpstreamRpc {
  const agent = new Agent({ connections: o.connections ?? 32, keepAliveTimeout: 30_000, pipelining: 1 });
  const timeoutMs = o.timeoutMs ?? 30_000;
  const retries = o.retries ?? 2;
  let seq = 0;

  async function once(body: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
    const res = await request(o.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, dispatcher: agent, signal });
    return { status: res.statusCode, text: await res.body.text() };
  }

  /**
   * POSTs `body` (retrying what `idempotent` allows) and returns the parsed JSON of a usable answer: HTTP 2xx, or a
   * JSON-RPC error object the node sent with another status. `what` names the call in errors.
   */
  async function post(body: string, idempotent: boolean, what: string): Promise<unknown> {
    const deadline = AbortSignal.timeout(timeoutMs);
    for (let attempt = 0; ; attempt++) {
      let status = 0;
      let text = '';
      try {
        ({ status, text } = await once(body, deadline));
      } catch (e) {
        if (deadline.aborted) throw new SolgateError('UPSTREAM_TIMEOUT', `The cluster RPC did not answer ${what} within ${timeoutMs} ms`);
        const code = (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
        if (idempotent && attempt < retries && code && RETRY_CODES.has(code)) {
          await sleep(100 * 2 ** attempt);
          continue;
        }
        o.logger?.warn({ err: e, what }, 'rpc proxy: the cluster RPC could not be reached');
        throw new SolgateError('UNAVAILABLE', `The cluster RPC could not be reached (${errorText(e)})`);
      }
      let parsed: unknown = undefined;
      try {
        parsed = parseJsonBigInt(text);
      } catch {
        // not JSON: handled by status below
      }
      const isReply = (x: unknown) => !!x && typeof x === 'object' && !Array.isArray(x) && ('result' in x || 'error' in x);
      const usable = (status >= 200 && status < 300 && (isReply(parsed) || Array.isArray(parsed))) || (isReply(parsed) && (parsed as RpcReply).error);
      // A node that rate-limits with a JSON-RPC error body is retried like one that answers a bare 429.
      if (usable && !(status === 429 && idempotent && attempt < retries)) return parsed;
      if (idempotent && attempt < retries && RETRY_STATUS.has(status)) {
        await sleep(100 * 2 ** attempt);
        continue;
      }
      throw new SolgateError('UNAVAILABLE', `The cluster RPC answered ${what} with HTTP ${status}`, { details: text.slice(0, 200) });
    }
  }

  /** The node's answer under the client's id. */
  const own = (reply: Partial<RpcReply>, id: unknown): RpcReply => (reply.error ? { jsonrpc: '2.0', id, error: reply.error } : { jsonrpc: '2.0', id, result: reply.result });

  const api: UpstreamRpc = {
    async forward(method, params, id, idempotent) {
      const n = ++seq;
      const body = JSON.stringify(params === undefined ? { jsonrpc: '2.0', id: n, method } : { jsonrpc: '2.0', id: n, method, params });
      const parsed = await post(body, idempotent, method);
      if (Array.isArray(parsed)) throw new SolgateError('UNAVAILABLE', `The cluster RPC answered ${method} with a batch`);
      return own(parsed as RpcReply, id);
    },
    async forwardBatch(calls) {
      if (calls.length === 1) return [await api.forward(calls[0].method, calls[0].params, calls[0].id, calls[0].idempotent)];
      const first = ++seq;
      seq += calls.length;
      const body = JSON.stringify(calls.map((c, i) => (c.params === undefined ? { jsonrpc: '2.0', id: first + i, method: c.method } : { jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })));
      const parsed = await post(body, calls.every((c) => c.idempotent), `a batch of ${calls.length} calls`);
      const byId = new Map<number, Partial<RpcReply>>();
      if (Array.isArray(parsed)) for (const r of parsed as Partial<RpcReply>[]) if (r && typeof r === 'object' && typeof r.id === 'number') byId.set(r.id, r);
      // A node without batches (one error object), or an answer missing some calls: those go one by one.
      return Promise.all(calls.map((c, i) => {
        const r = byId.get(first + i);
        return r && ('result' in r || 'error' in r) ? own(r, c.id) : api.forward(c.method, c.params, c.id, c.idempotent);
      }));
    },
    async close() {
      await agent.close();
    },
  };
  return api;
}

/** `getMultipleAccounts` through the forwarder, as the enhanced accountSubscribe reads written accounts. */
export function accountFetch(upstream: UpstreamRpc, commitment: 'confirmed' | 'finalized'): AccountFetch {
  return async (keys, o) => {
    const reply = await upstream.forward('getMultipleAccounts', [keys, { commitment, encoding: o.encoding, minContextSlot: o.minContextSlot, ...(o.dataSlice ? { dataSlice: o.dataSlice } : {}) }], 0, true);
    if (reply.error) throw new Error(`getMultipleAccounts: ${reply.error.code} ${reply.error.message}`);
    const r = reply.result as { context: { slot: number }; value: (Record<string, unknown> | null)[] };
    return { slot: r.context.slot, values: r.value };
  };
}
