/**
 * A fault-injecting JSON-RPC proxy for the reliability suite (test/reliability/upstream-faults.test.ts): sits between
 * a Solana JSON-RPC endpoint (the built-in localnet) and an ingester, forwards every request, and lets a test decide
 * per request what goes wrong instead:
 *
 * - `http` — an HTTP error status (429 with or without `Retry-After`, 500, 503…) and no JSON-RPC body;
 * - `hold` — the request is never answered (the client's timeout fires; the socket is destroyed when the proxy closes);
 * - `drop` — the connection is destroyed without a response (a load balancer resetting it);
 * - `rpcError` — a JSON-RPC error object (e.g. -32007 "Slot N was skipped" for a block that exists);
 * - `mutate` — the upstream's result rewritten (a `getBlocks` list reversed, or with a slot left out).
 *
 * Single (non-batch) JSON-RPC requests only: what solgate's RPC client sends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface RpcRequest {
  id: unknown;
  method: string;
  params: unknown[];
}

export type Fault =
  | { kind: 'http'; status: number; retryAfter?: string; label?: string }
  | { kind: 'hold'; label?: string }
  | { kind: 'drop'; label?: string }
  | { kind: 'rpcError'; code: number; message: string; label?: string }
  | { kind: 'mutate'; mutate: (result: unknown) => unknown; label?: string };

/** Decides the fault of one request (null/undefined: forward it unchanged). */
export type FaultPlan = (req: RpcRequest) => Fault | null | undefined;

export interface FaultProxy {
  readonly url: string;
  readonly port: number;
  /** Requests seen, by method. */
  readonly requests: Record<string, number>;
  /** Faults injected, by label (default: the kind, with the status for `http`). */
  readonly injected: Record<string, number>;
  plan: FaultPlan;
  close(): Promise<void>;
}

const label = (f: Fault) => f.label ?? (f.kind === 'http' ? `http${f.status}${f.retryAfter !== undefined ? '+retry-after' : ''}` : f.kind);

export async function startFaultProxy(upstream: string, plan: FaultPlan = () => null): Promise<FaultProxy> {
  const requests: Record<string, number> = {};
  const injected: Record<string, number> = {};
  const sockets = new Set<Socket>();
  const held = new Set<ServerResponse>();

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const server: Server = createServer(async (req, res) => {
    let body: string;
    try {
      body = await read(req);
    } catch {
      return;
    }
    let parsed: RpcRequest;
    try {
      const j = JSON.parse(body) as { id?: unknown; method?: unknown; params?: unknown };
      parsed = { id: j.id ?? null, method: String(j.method), params: Array.isArray(j.params) ? j.params : [] };
    } catch {
      parsed = { id: null, method: '(unparsable)', params: [] };
    }
    requests[parsed.method] = (requests[parsed.method] ?? 0) + 1;
    const fault = proxy.plan(parsed) ?? null;
    if (fault && fault.kind !== 'mutate') injected[label(fault)] = (injected[label(fault)] ?? 0) + 1;
    if (fault?.kind === 'http') {
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      res.writeHead(fault.status, headers).end(fault.status === 429 ? 'Too Many Requests' : 'upstream failure');
      return;
    }
    if (fault?.kind === 'hold') {
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'rpcError') {
      res.writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: parsed.id, error: { code: fault.code, message: fault.message } }));
      return;
    }
    let text: string;
    let status: number;
    try {
      const r = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      status = r.status;
      text = await r.text();
    } catch (e) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: upstream unreachable: ${String(e)}`);
      return;
    }
    if (fault?.kind === 'mutate') {
      try {
        const j = JSON.parse(text) as { result?: unknown; error?: unknown };
        if (j.error === undefined) {
          const result = fault.mutate(j.result);
          if (result !== j.result) {
            injected[label(fault)] = (injected[label(fault)] ?? 0) + 1;
            text = JSON.stringify({ ...j, result });
          }
        }
      } catch {
        /* forwarded unchanged */
      }
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(text);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  const proxy: FaultProxy = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    injected,
    plan,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of held) r.destroy();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
