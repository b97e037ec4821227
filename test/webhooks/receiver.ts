/**
 * A local HTTP receiver for webhook tests: records every request (path, headers, raw body, time) and answers as
 * the test's `behave(request)` says (status, optional delay, or dropping the connection).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  status: number | 'dropped';
}

export type Behaviour = (r: { path: string; headers: IncomingHttpHeaders; body: string; seen: number }) =>
  | { status: number; delayMs?: number }
  | { drop: true };

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Requests to `path` that were answered 2xx. */
  ok(path: string): Received[];
  behave: Behaviour;
  close(): Promise<void>;
}

export async function startReceiver(behave: Behaviour = () => ({ status: 200 }), port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const seen = new Map<string, number>();
  const rcv: Receiver = {
    url: '',
    port: 0,
    received,
    ok: (path) => rcv.received.filter((r) => r.path === path && typeof r.status === 'number' && r.status >= 200 && r.status < 300),
    behave,
    close: () => new Promise<void>((res) => {
      server.closeAllConnections();
      server.close(() => res());
    }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      const key = `${req.url}|${id}`;
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      const b = rcv.behave({ path: req.url ?? '/', headers: req.headers, body, seen: n });
      const entry: Received = { path: req.url ?? '/', headers: req.headers, body, at: Date.now(), status: 'drop' in b ? 'dropped' : b.status };
      if ('drop' in b) {
        rcv.received.push(entry);
        req.socket.destroy();
        return;
      }
      setTimeout(() => {
        rcv.received.push(entry);
        if (!res.destroyed) res.writeHead(b.status, { 'content-type': 'text/plain' }).end('ok');
      }, b.delayMs ?? 0);
    });
  });
  await new Promise<void>((res) => server.listen(port, '127.0.0.1', () => res()));
  rcv.port = (server.address() as AddressInfo).port;
  rcv.url = `http://127.0.0.1:${rcv.port}`;
  return rcv;
}
