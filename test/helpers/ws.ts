/** A WebSocket client for the PubSub tests: every frame it receives, parsed, in order. */
import WebSocket from 'ws';

export interface WsClient {
  sock: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
}

export function openWs(url: string): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const sock = new WebSocket(url);
    const messages: any[] = [];
    const closed = new Promise<{ code: number; reason: string }>((r) => sock.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    sock.on('message', (d) => messages.push(JSON.parse(d.toString())));
    sock.once('open', () => resolve({ sock, messages, closed }));
    sock.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    sock.once('error', reject);
  });
}

/** Polls `f` every 20 ms until it returns a value (not undefined); throws naming `what` after `ms`. */
export async function until<T>(what: string, f: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
