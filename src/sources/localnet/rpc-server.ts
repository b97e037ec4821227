/**
 * A JSON-RPC 2.0 HTTP server for a `LocalChain` (node:http; no framework needed for one POST route).
 * Single and batch requests; `GET /health` answers `ok` like agave's RPC.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJsonLossless } from '../json.js';
import type { LocalChain } from './chain.js';
import { callMethod } from './rpc-methods.js';
import { RpcError } from './rpc-params.js';
import { stringifyJson } from './rpc-encode.js';

const MAX_BODY_BYTES = 50 * 1024 * 1024;
const MAX_BATCH = 1000;

type Id = string | number | null;

function errorResponse(id: Id, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id };
}

/** Handles one request object; never throws. */
async function handleOne(chain: LocalChain, req: unknown): Promise<unknown> {
  if (!req || typeof req !== 'object' || Array.isArray(req)) return errorResponse(null, -32600, 'Invalid request');
  const r = req as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id: Id = typeof r.id === 'string' || typeof r.id === 'number' ? r.id : null;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return errorResponse(id, -32600, 'Invalid request');
  try {
    const result = await callMethod(chain, r.method, r.params);
    return { jsonrpc: '2.0', result, id };
  } catch (e) {
    if (e instanceof RpcError) return errorResponse(id, e.code, e.message, e.data);
    return errorResponse(id, -32603, `Internal error: ${(e as Error).message}`);
  }
}

/** Handles a parsed request body (object or batch array); returns the response body. */
export async function handleRpcBody(chain: LocalChain, body: unknown): Promise<unknown> {
  if (Array.isArray(body)) {
    if (body.length === 0) return errorResponse(null, -32600, 'Invalid request');
    if (body.length > MAX_BATCH) return errorResponse(null, -32600, `Batch too large; max ${MAX_BATCH}`);
    const out: unknown[] = [];
    // Sequential on purpose: a batch of sendTransaction calls must execute in order.
    for (const item of body) out.push(await handleOne(chain, item));
    return out;
  }
  return handleOne(chain, body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('payload too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export interface LocalRpcServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts the server on `host:port` (port 0 = any free port). */
export async function startRpcServer(chain: LocalChain, opts: { port?: number; host?: string } = {}): Promise<LocalRpcServer> {
  const server: Server = createServer(async (req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-headers': 'content-type', 'access-control-allow-methods': 'POST, GET' }).end();
      return;
    }
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'text/plain' }).end('Method Not Allowed');
      return;
    }
    let text: string;
    try {
      text = await readBody(req);
    } catch {
      res.writeHead(413, { 'content-type': 'text/plain' }).end('Payload Too Large');
      return;
    }
    let body: unknown;
    let reply: unknown;
    try {
      body = parseJsonLossless(text);
      reply = await handleRpcBody(chain, body);
    } catch {
      reply = errorResponse(null, -32700, 'Parse error');
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(stringifyJson(reply));
  });
  server.keepAliveTimeout = 5_000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
