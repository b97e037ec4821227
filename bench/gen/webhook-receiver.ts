/**
 * The webhook benchmark's receiver (child process, forked by bench/webhooks.ts so that ingestion and delivery in the
 * benchmark process never delay the time a request is seen): a bare `node:http` server on 127.0.0.1:0 that answers
 * every request `200 ok` once its body is read, and records per request the arrival time (epoch ms, sub-ms, taken
 * when the request's headers are parsed) and its `webhook-id` header. Kept cheap on purpose (no parsing, no
 * verification): the machine has 2 cores shared with PostgreSQL, the workers and the ingester.
 *
 * IPC (parent → child `{cmd, seq}`, answered with the same `seq`):
 *   `take`  → `{ids, at, bytes}`: the arrivals recorded since the last take (and forgets them);
 *   `count` → `{count}`: arrivals recorded since the last take.
 * The port is sent first as `{ready: true, port}`. Exits on SIGTERM or when the parent goes away.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

let ids: string[] = [];
let at: number[] = [];
let bytes = 0;

const server = createServer((req, res) => {
  const t = performance.timeOrigin + performance.now();
  const id = req.headers['webhook-id'];
  req.on('data', (c: Buffer) => {
    bytes += c.length;
  });
  req.on('end', () => {
    ids.push(typeof id === 'string' ? id : '');
    at.push(t);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;

process.on('message', (m: { cmd?: string; seq?: number }) => {
  if (m.cmd === 'take') {
    process.send?.({ seq: m.seq, ids, at, bytes });
    ids = [];
    at = [];
    bytes = 0;
  } else if (m.cmd === 'count') {
    process.send?.({ seq: m.seq, count: ids.length });
  }
});

const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);

server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
});
