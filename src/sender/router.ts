/**
 * Sender routing: an admitted transaction goes concurrently to every validator-path RPC URL and (unless
 * `swqos_only`) to the block-builder endpoint, over keep-alive connection pools (undici). The caller gets the
 * signature as soon as one path accepts it ("already processed" counts as accepted); the others finish in the
 * background. Accepted transactions are rebroadcast every `rebroadcastMs` until the status RPC reports them
 * confirmed (or failed), their blockhash is no longer valid, or `maxRebroadcastMs` passed.
 */
import { Pool, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { senderOutcomes, senderUpstreamLatency } from '../core/metrics.js';

export interface SenderUpstreams {
  /** Validator-path JSON-RPC URLs (staked connections / SWQoS). */
  rpcUrls: readonly string[];
  /** Block-builder JSON-RPC `sendTransaction` URL (e.g. a Jito block engine's /api/v1/transactions); null = none. */
  blockEngineUrl: string | null;
  /** JSON-RPC URL for getSignatureStatuses / isBlockhashValid (default: the first RPC URL). */
  statusUrl?: string;
}

export interface RouterOptions extends SenderUpstreams {
  /** Deadline of one upstream request. */
  upstreamTimeoutMs: number;
  rebroadcastMs: number;
  maxRebroadcastMs: number;
  /** Transactions followed for rebroadcast at once; beyond it the oldest stops being rebroadcast. */
  maxTracked?: number;
  logger?: Logger;
}

export type UpstreamResult =
  | { ok: true; upstream: string; signature: string | null }
  | { ok: false; upstream: string; kind: 'rejected'; code: number; message: string; data?: unknown }
  | { ok: false; upstream: string; kind: 'unreachable' | 'timeout'; message: string };

export interface Router {
  /** Sends to every path; resolves with the first acceptance, or every path's failure. */
  submit(tx: { signature: string; base64: string; recentBlockhash: string }, swqosOnly: boolean): Promise<{ accepted: UpstreamResult & { ok: true } } | { failures: UpstreamResult[] }>;
  /** Forwards a read-only JSON-RPC call to the status RPC (getSignatureStatuses passthrough). */
  status(body: unknown): Promise<unknown>;
  readonly tracked: number;
  close(): Promise<void>;
}

const ALREADY = /already (been )?processed|AlreadyProcessed/i;

type RpcAnswer = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** A JSON-RPC client over a keep-alive pool for one upstream origin. */
function upstreamClient(url: string, timeoutMs: number) {
  const u = new URL(url);
  const pool = new Pool(u.origin, { connections: 16, pipelining: 1, keepAliveTimeout: 60_000, connect: { timeout: timeoutMs } });
  const path = `${u.pathname}${u.search}`;
  async function exchange(method: string, params: unknown[]): Promise<RpcAnswer> {
    const res: Dispatcher.ResponseData = await pool.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    let body: RpcAnswer;
    try {
      body = JSON.parse(text);
    } catch {
      throw Object.assign(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`), { code: 'BAD_RESPONSE' });
    }
    if (res.statusCode >= 500 && !body.error) throw Object.assign(new Error(`HTTP ${res.statusCode}`), { code: 'BAD_RESPONSE' });
    return body;
  }
  /**
   * One call, answered within `timeoutMs` (a TimeoutError otherwise). The deadline is a timer raced with the exchange
   * rather than an AbortSignal per request (a signal and its listeners cost ≈ 12 µs of CPU each in the webhook worker's
   * profile, src/net/guarded-request.ts; here the change was within the noise of `sender-hop`); an exchange still
   * running at the deadline ends by undici's own header and body timeouts.
   */
  async function call(method: string, params: unknown[]): Promise<RpcAnswer> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' })), timeoutMs);
    });
    const answer = exchange(method, params);
    // Handled here when the deadline wins.
    answer.catch(() => {});
    try {
      return await Promise.race([answer, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
  return { url, call, close: () => pool.close() };
}
type Client = ReturnType<typeof upstreamClient>;

function isTimeout(e: unknown): boolean {
  const x = e as { name?: string; code?: string };
  return x?.name === 'TimeoutError' || x?.name === 'AbortError' || x?.code === 'UND_ERR_HEADERS_TIMEOUT' || x?.code === 'UND_ERR_BODY_TIMEOUT' || x?.code === 'UND_ERR_CONNECT_TIMEOUT';
}

export function createRouter(o: RouterOptions): Router {
  const rpcs = o.rpcUrls.map((u) => upstreamClient(u, o.upstreamTimeoutMs));
  const engine = o.blockEngineUrl ? upstreamClient(o.blockEngineUrl, o.upstreamTimeoutMs) : null;
  const statusClient = o.statusUrl ? upstreamClient(o.statusUrl, o.upstreamTimeoutMs) : rpcs[0];
  const maxTracked = o.maxTracked ?? 10_000;
  const tracked = new Map<string, { base64: string; recentBlockhash: string; swqosOnly: boolean; until: number }>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  async function sendTo(c: Client, base64: string, isEngine: boolean): Promise<UpstreamResult> {
    const started = performance.now();
    const label = isEngine ? 'block_engine' : 'rpc';
    try {
      const params = isEngine ? [base64, { encoding: 'base64' }] : [base64, { encoding: 'base64', skipPreflight: true, maxRetries: 0 }];
      const body = await c.call('sendTransaction', params);
      senderUpstreamLatency.observe({ upstream: label }, (performance.now() - started) / 1000);
      if (body.error) {
        if (ALREADY.test(body.error.message)) return { ok: true, upstream: c.url, signature: null };
        return { ok: false, upstream: c.url, kind: 'rejected', code: body.error.code, message: body.error.message, data: body.error.data };
      }
      return { ok: true, upstream: c.url, signature: typeof body.result === 'string' ? body.result : null };
    } catch (e) {
      return { ok: false, upstream: c.url, kind: isTimeout(e) ? 'timeout' : 'unreachable', message: (e as Error).message };
    }
  }

  function paths(swqosOnly: boolean): { c: Client; engine: boolean }[] {
    return [...rpcs.map((c) => ({ c, engine: false })), ...(engine && !swqosOnly ? [{ c: engine, engine: true }] : [])];
  }

  function broadcast(base64: string, swqosOnly: boolean): Promise<UpstreamResult>[] {
    return paths(swqosOnly).map(({ c, engine: e }) => sendTo(c, base64, e));
  }

  async function rebroadcastRound(): Promise<void> {
    if (!tracked.size) return;
    const now = Date.now();
    const sigs = [...tracked.keys()];
    const statuses = new Map<string, { confirmationStatus?: string; err?: unknown } | null>();
    for (let i = 0; i < sigs.length; i += 256) {
      try {
        const r = await statusClient.call('getSignatureStatuses', [sigs.slice(i, i + 256), { searchTransactionHistory: false }]);
        const value = (r.result as { value?: ({ confirmationStatus?: string; err?: unknown } | null)[] } | undefined)?.value ?? [];
        sigs.slice(i, i + 256).forEach((s, j) => statuses.set(s, value[j] ?? null));
      } catch (err) {
        o.logger?.debug({ err }, 'sender: status lookup failed');
      }
    }
    const blockhashes = new Map<string, boolean>();
    for (const [sig, t] of tracked) {
      const st = statuses.get(sig);
      if (st && (st.confirmationStatus === 'confirmed' || st.confirmationStatus === 'finalized' || st.err)) {
        tracked.delete(sig);
        senderOutcomes.inc({ outcome: st.err ? 'landed_failed' : 'confirmed' });
        continue;
      }
      if (now > t.until) {
        tracked.delete(sig);
        senderOutcomes.inc({ outcome: 'gave_up' });
        continue;
      }
      if (!blockhashes.has(t.recentBlockhash)) {
        try {
          const r = await statusClient.call('isBlockhashValid', [t.recentBlockhash, { commitment: 'processed' }]);
          blockhashes.set(t.recentBlockhash, (r.result as { value?: boolean } | undefined)?.value !== false);
        } catch {
          blockhashes.set(t.recentBlockhash, true);
        }
      }
      if (!blockhashes.get(t.recentBlockhash)) {
        tracked.delete(sig);
        senderOutcomes.inc({ outcome: 'expired' });
        continue;
      }
      for (const p of broadcast(t.base64, t.swqosOnly)) p.catch(() => {});
    }
  }

  function schedule(): void {
    if (timer || closed) return;
    timer = setTimeout(async () => {
      try {
        await rebroadcastRound();
      } catch (err) {
        o.logger?.warn({ err }, 'sender: rebroadcast round failed');
      } finally {
        timer = null;
        if (tracked.size) schedule();
      }
    }, o.rebroadcastMs);
    timer.unref();
  }

  return {
    get tracked() {
      return tracked.size;
    },
    async submit(tx, swqosOnly) {
      const all = broadcast(tx.base64, swqosOnly);
      const accepted = await new Promise<(UpstreamResult & { ok: true }) | null>((resolve) => {
        let left = all.length;
        for (const p of all)
          p.then((r) => {
            if (r.ok) resolve(r);
            else if (--left === 0) resolve(null);
          });
      });
      if (!accepted) return { failures: await Promise.all(all) };
      if (tracked.size >= maxTracked) {
        const oldest = tracked.keys().next().value as string;
        tracked.delete(oldest);
        senderOutcomes.inc({ outcome: 'untracked' });
      }
      tracked.set(tx.signature, { base64: tx.base64, recentBlockhash: tx.recentBlockhash, swqosOnly, until: Date.now() + o.maxRebroadcastMs });
      schedule();
      return { accepted };
    },
    async status(body) {
      const b = body as { method: string; params?: unknown[]; id?: unknown };
      const r = await statusClient.call(b.method, b.params ?? []);
      return { jsonrpc: '2.0', id: b.id ?? null, ...(r.error ? { error: r.error } : { result: r.result }) };
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...rpcs, ...(engine ? [engine] : []), ...(o.statusUrl ? [statusClient] : [])].map((c) => c.close()));
    },
  };
}
