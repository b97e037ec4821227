/**
 * WebSocket connections to the cluster's PubSub endpoint (agave's `*Subscribe` methods), one per client connection
 * of the gateway's own WebSocket endpoint (src/api/ws/pubsub.ts): frames pass through as text, a ping every 30 s
 * keeps idle connections open through proxies and finds a dead node (no pong before the next ping: closed).
 */
import WebSocket from 'ws';
import type { UpstreamSocket, UpstreamSocketFactory } from '../core/upstream.js';

/** The PubSub URL of a JSON-RPC URL: the same host and port with the ws/wss scheme (as hosted providers serve it). */
export function pubsubUrlOf(httpUrl: string): string {
  const u = new URL(httpUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  return u.toString();
}

export function createUpstreamSocketFactory(url: string, o: { pingMs?: number; connectTimeoutMs?: number } = {}): UpstreamSocketFactory {
  return () => {
    const ws = new WebSocket(url, { handshakeTimeout: o.connectTimeoutMs ?? 10_000, maxPayload: 64 * 1024 * 1024 });
    let closed = false;
    const closers: ((reason: string) => void)[] = [];
    const end = (reason: string) => {
      if (closed) return;
      closed = true;
      clearInterval(ping);
      for (const c of closers) c(reason);
    };
    let alive = true;
    const ping = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      if (ws.readyState === WebSocket.OPEN) ws.ping();
    }, o.pingMs ?? 30_000);
    ping.unref();
    ws.on('pong', () => (alive = true));
    const ready = new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', (e) => reject(e));
    });
    ready.catch(() => {});
    ws.on('error', (e) => end(`the cluster WebSocket failed: ${(e as Error).message}`));
    ws.on('close', (code, reason) => end(`the cluster WebSocket closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`));
    const socket: UpstreamSocket = {
      ready,
      send(text) {
        if (ws.readyState === WebSocket.OPEN) ws.send(text);
      },
      onMessage(cb) {
        ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
          if (!isBinary) cb(data.toString());
        });
      },
      onClose(cb) {
        closers.push(cb);
      },
      close() {
        closed = true;
        clearInterval(ping);
        ws.terminate();
      },
    };
    return socket;
  };
}
