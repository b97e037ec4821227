/**
 * The Sender benchmark's bare relay (child process, forked by bench/sender.ts): the floor of any gateway that runs
 * as a process of its own between a client and an upstream. A `node:http` server on 127.0.0.1:0 that reads each
 * request's body, POSTs it unchanged to the upstream over one undici keep-alive pool, and answers with the
 * upstream's status and body. Nothing else: no parsing, validation, rate limit, metrics or logging, so what it adds
 * over posting to the upstream directly is the cost of one more process hop (two more loopback exchanges and the
 * wake-ups of a third process on the same cores).
 *
 * argv[2]: the upstream URL. The port is sent first as `{ready: true, port}`. Exits on SIGTERM or when the parent
 * goes away.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

const upstream = new URL(process.argv[2] ?? '');
const path = `${upstream.pathname}${upstream.search}`;
const pool = new Pool(upstream.origin, { connections: 16, pipelining: 1, keepAliveTimeout: 60_000 });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    pool
      .request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
      .then(async (r) => {
        const body = Buffer.from(await r.body.arrayBuffer());
        res.writeHead(r.statusCode, { 'content-type': 'application/json', 'content-length': String(body.length) }).end(body);
      })
      .catch((e: unknown) => {
        const body = JSON.stringify({ error: (e as Error).message });
        res.writeHead(502, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
      });
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;

const stop = () => {
  server.closeAllConnections();
  server.close(() => void pool.close().finally(() => process.exit(0)));
  setTimeout(() => process.exit(0), 1000).unref();
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);

server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
});
