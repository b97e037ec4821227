/**
 * A minimal Solana JSON-RPC client with the retry policy a long-running indexer needs.
 *
 * Public RPC endpoints fail routinely (rate limits, 5xx from load balancers, dropped keep-alive connections,
 * blocks not yet in the node's store), and a stalled indexer is far better than one that dies or skips data.
 * So every call retries transient failures with exponential backoff and full jitter, honours `Retry-After`,
 * and distinguishes "not available yet" (retried without a cap) from errors that can never succeed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Agent, fetch as undiciFetch } from 'undici';
import { parseJsonLossless } from './json.js';

/** The commitments `getBlocks` accepts: the RPC poller's levels (account reads also take `processed`). */
export type PollerCommitment = 'confirmed' | 'finalized';

/** The subset of `fetch` the client uses, so tests and embedders can substitute their own transport. */
export type FetchLike = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ status: number; headers: { get(name: string): string | null }; text(): Promise<string> }>;

/** A JSON-RPC `error` object returned by the node. */
export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method}: RPC error ${code}: ${message}`);
    this.name = 'RpcError';
  }
}

/** A non-2xx HTTP response. */
export class RpcHttpError extends Error {
  constructor(
    readonly method: string,
    readonly status: number,
    readonly retryAfterMs: number | null,
    body: string,
  ) {
    super(`${method}: HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    this.name = 'RpcHttpError';
  }
}

/** Agave's "block not available for slot" (not produced/confirmed yet on this node): wait and retry. */
export const RPC_BLOCK_NOT_AVAILABLE = -32004;
/** "Slot N was skipped, or missing due to ledger jump to recent snapshot". */
export const RPC_SLOT_SKIPPED = -32007;
/** "Slot N was skipped, or missing in long-term storage". */
export const RPC_LONG_TERM_STORAGE_SLOT_SKIPPED = -32009;

/** JSON-RPC codes that mean "try again later" and are retried without counting against `maxRetries`. */
const WAIT_CODES = new Set([
  RPC_BLOCK_NOT_AVAILABLE,
  -32014, // block status not yet available
  -32016, // minimum context slot not reached
]);
/** Codes that can never succeed on retry: bad request, unsupported, history cleaned up, skipped slots. */
const FATAL_CODES = new Set([-32600, -32601, -32602, -32001, -32010, -32011, -32015]);

/** True for the RPC errors that mean the slot has no block (skipped, or absent from long-term storage). */
export function isSkippedSlotError(e: unknown): boolean {
  return (
    e instanceof RpcError &&
    (e.code === RPC_SLOT_SKIPPED || e.code === RPC_LONG_TERM_STORAGE_SLOT_SKIPPED) &&
    // Some providers reuse -32007 for rate limiting; only the node's own wording means "skipped".
    /skipped|missing/i.test(e.message)
  );
}

/** How a failed attempt is handled: retried (counted), waited for (not counted), or given up on. */
export type FailureKind = 'retry' | 'wait' | 'fatal';

export function classifyRpcFailure(e: unknown): FailureKind {
  if (e instanceof RpcError) {
    if (isSkippedSlotError(e) || FATAL_CODES.has(e.code)) return 'fatal';
    return WAIT_CODES.has(e.code) ? 'wait' : 'retry';
  }
  if (e instanceof RpcHttpError) return e.status === 408 || e.status === 429 || e.status >= 500 ? 'retry' : 'fatal';
  return 'retry'; // network errors, timeouts, truncated or non-JSON bodies
}

export interface RetryOptions {
  /** Attempts after the first for retryable failures before giving up (default 10). */
  maxRetries?: number;
  /** First backoff delay (default 200 ms); doubles each attempt, with full jitter. */
  backoffBaseMs?: number;
  /** Cap of one backoff delay, also of an honoured `Retry-After` (default 10 s). */
  backoffMaxMs?: number;
  /** Per-request timeout (default 30 s); a timeout is retried. */
  requestTimeoutMs?: number;
}

export interface RpcClientOptions extends RetryOptions {
  url: string;
  /** Transport; default undici `fetch` over a keep-alive `Agent`. */
  fetchImpl?: FetchLike;
  /** Upper bound of open connections of the default agent (default 16). */
  connections?: number;
  logger?: Pick<Logger, 'warn' | 'debug'>;
  /** Called before each retry (for metrics). */
  onRetry?: (info: { method: string; attempt: number; delayMs: number; error: unknown }) => void;
  /** Called for every failed attempt, retried or not (for metrics). */
  onError?: (info: { method: string; error: unknown }) => void;
}

export interface RpcClient {
  readonly url: string;
  /** Calls `method`, retrying transient failures; throws the last error otherwise or when `signal` aborts. */
  call<T>(method: string, params: unknown[], signal?: AbortSignal): Promise<T>;
  /** Closes the keep-alive connections of the default agent. */
  close(): Promise<void>;
}

/** Creates a JSON-RPC client with retries; see {@link RetryOptions} for the policy. */
export function createRpcClient(opts: RpcClientOptions): RpcClient {
  const maxRetries = opts.maxRetries ?? 10;
  const base = opts.backoffBaseMs ?? 200;
  const cap = opts.backoffMaxMs ?? 10_000;
  const timeoutMs = opts.requestTimeoutMs ?? 30_000;
  let agent: Agent | null = null;
  let fetchImpl = opts.fetchImpl;
  if (!fetchImpl) {
    const a = new Agent({ keepAliveTimeout: 30_000, connections: opts.connections ?? 16 });
    agent = a;
    fetchImpl = (url, init) => undiciFetch(url, { ...init, dispatcher: a });
  }
  const doFetch = fetchImpl;
  let nextId = 1;

  async function once<T>(method: string, params: unknown[], signal: AbortSignal): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
    const res = await doFetch(opts.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
      signal,
    });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) {
      throw new RpcHttpError(method, res.status, parseRetryAfter(res.headers.get('retry-after')), text);
    }
    let json: unknown;
    try {
      json = parseJsonLossless(text);
    } catch {
      throw new Error(`${method}: response is not JSON: ${text.slice(0, 200)}`);
    }
    const env = json as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (env && typeof env === 'object' && env.error) {
      const code = typeof env.error.code === 'number' ? env.error.code : 0;
      throw new RpcError(method, code, String(env.error.message ?? 'unknown error'), env.error.data);
    }
    if (!env || typeof env !== 'object' || !('result' in env)) {
      throw new Error(`${method}: response has neither result nor error: ${text.slice(0, 200)}`);
    }
    return env.result as T;
  }

  async function call<T>(method: string, params: unknown[], signal?: AbortSignal): Promise<T> {
    let counted = 0;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        return await once<T>(method, params, signal ? AbortSignal.any([signal, timeout]) : timeout);
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        opts.onError?.({ method, error });
        const kind = classifyRpcFailure(error);
        if (kind === 'fatal') throw error;
        if (kind === 'retry' && ++counted > maxRetries) throw error;
        let delayMs = Math.round(Math.min(cap, base * 2 ** Math.min(attempt, 20)) * (0.5 + Math.random() / 2));
        if (error instanceof RpcHttpError && error.retryAfterMs !== null) {
          delayMs = Math.max(delayMs, Math.min(error.retryAfterMs, cap));
        }
        opts.onRetry?.({ method, attempt: attempt + 1, delayMs, error });
        const log = kind === 'wait' || attempt < 2 ? opts.logger?.debug : opts.logger?.warn;
        const fields = { method, attempt: attempt + 1, delayMs, err: String(error) };
        log?.call(opts.logger, fields, 'rpc call failed; retrying');
        await sleep(delayMs, undefined, signal ? { signal } : undefined);
      }
    }
  }

  return {
    url: opts.url,
    call,
    async close() {
      await agent?.close();
    },
  };
}

/** `Retry-After` in seconds or as an HTTP date → milliseconds. */
function parseRetryAfter(v: string | null): number | null {
  if (!v) return null;
  const s = Number(v);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, t - Date.now());
}
