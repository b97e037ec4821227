/**
 * A JSON-RPC 2.0 HTTP server for a `LocalChain` (node:http; no framework needed for one POST route).
 * Single and batch requests; `GET /health` answers `ok` like agave's RPC.
 *
 * WebSocket upgrades (any path) go to the PubSub service (`pubsub.ts`), on the same port and, by default, also on
 * port + 1: agave's validator serves PubSub there, and web3.js `Connection` derives its WebSocket URL from an http URL
 * with an explicit port by adding one (`makeWebsocketUrl`), so `new Connection('http://127.0.0.1:8899')` finds it at
 * 8900 with no `wsEndpoint`. Port + 1 answers plain HTTP requests with 426. With port 0 the server picks a free port
 * whose successor is free too; with a given port, a busy port + 1 fails start-up with EADDRINUSE, as agave does.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJsonLossless } from '../json.js';
import type { LocalChain } from './chain.js';
import { LocalPubSub, type LocalPubSubOptions } from './pubsub.js';
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
  /** The PubSub (WebSocket) endpoint on the HTTP port, e.g. `ws://127.0.0.1:8899`. */
  readonly wsUrl: string;
  /** The same PubSub endpoint on port + 1 (where web3.js `Connection` looks by default), or null when not served. */
  readonly pubsubUrl: string | null;
  readonly pubsub: LocalPubSub;
  close(): Promise<void>;
}

export interface RpcServerOptions {
  /** HTTP port; 0 (default) picks a free one (with a free successor when `pubsubPortPlusOne`). */
  port?: number;
  /** Bind address; default 127.0.0.1. */
  host?: string;
  /** Also serve PubSub on port + 1 (default true). */
  pubsubPortPlusOne?: boolean;
  pubsub?: LocalPubSubOptions;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const fail = (e: Error) => reject(e);
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Starts the server on `host:port` (port 0 = any free port). */
export async function startRpcServer(chain: LocalChain, opts: RpcServerOptions = {}): Promise<LocalRpcServer> {
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
  const pubsub = new LocalPubSub(chain, opts.pubsub);
  server.on('upgrade', (req, socket, head) => pubsub.handleUpgrade(req, socket, head));
  const plusOne: Server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain', connection: 'Upgrade', upgrade: 'websocket' }).end('Upgrade Required');
  });
  plusOne.on('upgrade', (req, socket, head) => pubsub.handleUpgrade(req, socket, head));

  const host = opts.host ?? '127.0.0.1';
  const requested = opts.port ?? 0;
  const wantPlusOne = opts.pubsubPortPlusOne ?? true;
  let port = 0;
  let plusOnePort: number | null = null;
  try {
    for (let attempt = 1; ; attempt++) {
      port = await listen(server, requested, host);
      if (!wantPlusOne) break;
      try {
        if (port === 65535) throw Object.assign(new Error(`no port after ${port} for PubSub`), { code: 'EADDRINUSE' });
        plusOnePort = await listen(plusOne, port + 1, host);
        break;
      } catch (e) {
        await stop(server);
        // A port picked by the system may have a busy successor: pick again.
        if (requested !== 0 || attempt >= 20 || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
      }
    }
  } catch (e) {
    pubsub.close();
    throw e;
  }
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    wsUrl: `ws://${shown}:${port}`,
    pubsubUrl: plusOnePort === null ? null : `ws://${shown}:${plusOnePort}`,
    pubsub,
    close: async () => {
      pubsub.close();
      await Promise.all([stop(server), stop(plusOne)]);
    },
  };
}
