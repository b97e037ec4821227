/**
 * The localnet's PubSub service: agave's WebSocket JSON-RPC (`accountSubscribe`, `programSubscribe`,
 * `signatureSubscribe`, `logsSubscribe`, `slotSubscribe`, `rootSubscribe`, `blockSubscribe` and their
 * `*Unsubscribe`), on the `ws` package. The HTTP server hands it its upgrade requests (`handleUpgrade`); what is
 * notified and when is `pubsub-hub.ts`, the parameters `pubsub-params.ts`.
 *
 * Framing as agave's jsonrpc server: a request answers `{"jsonrpc":"2.0","result":…,"id":…}` or an error object;
 * a message without `id` is a notification and gets no answer (web3.js and kit send `{"method":"ping"}` that way);
 * batches (arrays) are answered with an array; bad JSON is -32700 "Parse error" with id null.
 *
 * Bounds: a node-wide subscription limit (agave's error -32603 when reached), frames up to `maxPayload` bytes
 * (1 MiB; larger ones close the socket with 1009), a client whose unsent notifications exceed `maxBufferedBytes`
 * (16 MiB: it stopped reading) is disconnected with 1008, and a ping every `pingMs` (30 s) drops sockets that no
 * longer answer. A closed socket's subscriptions go with it.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { parseJsonLossless } from '../json.js';
import type { LocalChain } from './chain.js';
import { PubSubHub, type PubSubClient, type Subscription } from './pubsub-hub.js';
import { SUBSCRIBE_METHODS, UNSUBSCRIBE_METHODS, parseSubscribe, parseUnsubscribe } from './pubsub-params.js';
import { stringifyJson } from './rpc-encode.js';
import { RpcError, positional } from './rpc-params.js';

export interface LocalPubSubOptions {
  /** Active subscriptions over all connections (default 100,000). */
  maxSubscriptions?: number;
  /** Largest incoming frame in bytes (default 1 MiB). */
  maxPayload?: number;
  /** Unsent bytes after which a client that does not read is disconnected (default 16 MiB). */
  maxBufferedBytes?: number;
  /** Interval of the server's pings; a socket that did not answer the previous one is dropped (default 30 s). */
  pingMs?: number;
  warn?: (message: string, context: Record<string, unknown>) => void;
}

type Id = string | number | null;
const MAX_BATCH = 1000;

function errorResponse(id: Id, code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id };
}

interface Connection extends PubSubClient {
  alive: boolean;
}

export class LocalPubSub {
  private readonly hub: PubSubHub;
  private readonly wss: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  private readonly ping: NodeJS.Timeout;
  private readonly maxBuffered: number;

  constructor(chain: LocalChain, opts: LocalPubSubOptions = {}) {
    this.hub = new PubSubHub(chain, { maxSubscriptions: opts.maxSubscriptions, warn: opts.warn });
    this.maxBuffered = opts.maxBufferedBytes ?? 16 * 1024 * 1024;
    this.wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxPayload ?? 1024 * 1024, perMessageDeflate: false, clientTracking: false });
    const conns = new WeakMap<WebSocket, Connection>();
    this.wss.on('connection', (ws: WebSocket) => conns.set(ws, this.accept(ws)));
    this.ping = setInterval(() => {
      for (const ws of this.sockets) {
        const c = conns.get(ws);
        if (!c) continue;
        if (!c.alive) {
          ws.terminate();
          continue;
        }
        c.alive = false;
        ws.ping();
      }
    }, opts.pingMs ?? 30_000);
    this.ping.unref();
  }

  /** Active subscriptions over all connections. */
  get subscriptionCount(): number {
    return this.hub.size;
  }

  /** Open WebSocket connections. */
  get connectionCount(): number {
    return this.sockets.size;
  }

  /** Takes over an HTTP upgrade request (the `upgrade` event of a node:http server). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  /** Drops every connection and stops listening to the chain. */
  close(): void {
    clearInterval(this.ping);
    this.hub.close();
    for (const ws of this.sockets) ws.terminate();
    this.sockets.clear();
    this.wss.close();
  }

  private accept(ws: WebSocket): Connection {
    this.sockets.add(ws);
    const conn: Connection = {
      alive: true,
      subscriptions: new Map<number, Subscription>(),
      send: (text) => {
        if (ws.readyState !== WebSocket.OPEN) return;
        if (ws.bufferedAmount > this.maxBuffered) {
          ws.close(1008, 'notifications not read: client too slow');
          // A socket that does not read may never finish the closing handshake.
          setTimeout(() => ws.terminate(), 1000).unref();
          this.hub.disconnect(conn);
          return;
        }
        ws.send(text);
      },
    };
    ws.on('pong', () => (conn.alive = true));
    ws.on('message', (data: RawData) => this.onMessage(conn, rawText(data)));
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      this.sockets.delete(ws);
      this.hub.disconnect(conn);
    });
    return conn;
  }

  private onMessage(conn: Connection, text: string): void {
    let body: unknown;
    try {
      body = parseJsonLossless(text);
    } catch {
      conn.send(stringifyJson(errorResponse(null, -32700, 'Parse error')));
      return;
    }
    const after: (() => void)[] = [];
    let reply: unknown;
    if (Array.isArray(body)) {
      if (body.length === 0) reply = errorResponse(null, -32600, 'Invalid request');
      else if (body.length > MAX_BATCH) reply = errorResponse(null, -32600, `Batch too large; max ${MAX_BATCH}`);
      else {
        const out = body.map((item) => this.handleOne(conn, item, after)).filter((r) => r !== null);
        reply = out.length ? out : null;
      }
    } else {
      reply = this.handleOne(conn, body, after);
    }
    if (reply !== null) conn.send(stringifyJson(reply));
    for (const run of after) run();
  }

  /** One request: its response, or null for a notification (no `id`). `after` collects what must follow the response. */
  private handleOne(conn: Connection, req: unknown, after: (() => void)[]): unknown {
    if (!req || typeof req !== 'object' || Array.isArray(req)) return errorResponse(null, -32600, 'Invalid request');
    const r = req as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id: Id = typeof r.id === 'string' || typeof r.id === 'number' ? r.id : null;
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return errorResponse(id, -32600, 'Invalid request');
    if (!('id' in r)) return null;
    try {
      const params = positional(r.params);
      if (SUBSCRIBE_METHODS.has(r.method)) {
        const sub = this.hub.subscribe(conn, parseSubscribe(r.method, params));
        after.push(() => this.hub.afterSubscribe(sub));
        return { jsonrpc: '2.0', result: sub.id, id };
      }
      if (UNSUBSCRIBE_METHODS.has(r.method)) {
        if (!this.hub.unsubscribe(conn, parseUnsubscribe(params))) return errorResponse(id, -32602, 'Invalid subscription id.');
        return { jsonrpc: '2.0', result: true, id };
      }
      return errorResponse(id, -32601, 'Method not found');
    } catch (e) {
      if (e instanceof RpcError) return errorResponse(id, e.code, e.message);
      return errorResponse(id, -32603, `Internal error: ${(e as Error).message}`);
    }
  }
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
