/**
 * `postOnConnection`, the delivery worker's POST: the same guard as `guardedRequest` (target checked once, the
 * connection's address checked at connect), the status as the outcome, no redirects, bounded answer bodies, and one
 * deadline per request that closes the pipelined connection when it passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkTarget, createGuardedAgent, GuardedFetchError, postOnConnection, SsrfError } from '../../src/net/ssrf.js';

describe('postOnConnection', () => {
  let server: Server;
  let port: number;
  const seen: { path: string; body: string }[] = [];
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/ok': (_q, res) => res.writeHead(204).end(),
    '/teapot': (_q, res) => res.writeHead(418, { 'content-type': 'text/plain' }).end('no'),
    '/moved': (_q, res) => res.writeHead(302, { location: '/ok' }).end(),
    '/big': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(200_000)),
    '/hang': () => {},
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const path = req.url ?? '';
        seen.push({ path, body });
        (routes[path.split('?')[0]] ?? routes['/ok'])(req, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const post = (conn: Parameters<typeof postOnConnection>[0], path: string, timeoutMs = 5000) =>
    postOnConnection(conn, checkTarget(`http://127.0.0.1:${port}${path}`, { allowPrivate: true }), {
      headers: { 'content-type': 'application/json' }, body: `{"path":"${path}"}`, timeoutMs, maxBytes: 64 * 1024, idempotent: true,
    });

  it('returns the status of each answer, keeps order on one pipelined connection, and sends path, query and body', async () => {
    const agent = createGuardedAgent({ allowPrivate: true });
    const conn = agent.connection(`http://127.0.0.1:${port}`, 4);
    seen.length = 0;
    const statuses = await Promise.all(['/ok?a=1', '/teapot', '/ok?a=2', '/big'].map((p) => post(conn, p)));
    expect(statuses).toEqual([204, 418, 204, 200]);
    expect(seen).toEqual(['/ok?a=1', '/teapot', '/ok?a=2', '/big'].map((p) => ({ path: p, body: `{"path":"${p}"}` })));
    // An answer body larger than maxBytes is dropped with its connection; the next request opens another.
    expect(await post(conn, '/ok')).toBe(204);
    await agent.close();
    await conn.close();
  });

  it('does not follow redirects', async () => {
    const agent = createGuardedAgent({ allowPrivate: true });
    const conn = agent.connection(`http://127.0.0.1:${port}`, 1);
    seen.length = 0;
    const err = await post(conn, '/moved').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuardedFetchError);
    expect((err as GuardedFetchError).kind).toBe('too_many_redirects');
    expect(seen.map((s) => s.path)).toEqual(['/moved']);
    await conn.close();
    await agent.close();
  });

  it('a request past its deadline fails with a timeout and closes the connection; those pipelined behind it fail with a timeout too', async () => {
    const agent = createGuardedAgent({ allowPrivate: true });
    const conn = agent.connection(`http://127.0.0.1:${port}`, 4);
    const results = await Promise.allSettled([post(conn, '/hang', 300), post(conn, '/ok', 5000), post(conn, '/ok', 5000)]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const e = (r as PromiseRejectedResult).reason as GuardedFetchError;
      expect(e).toBeInstanceOf(GuardedFetchError);
      expect(e.kind).toBe('timeout');
    }
    expect(((results[0] as PromiseRejectedResult).reason as Error).message).toBe('timed out after 300 ms');
    expect(((results[1] as PromiseRejectedResult).reason as Error).message).toMatch(/behind a request on the same connection/);
    expect(conn.destroyed).toBe(true);
    // A new connection to the same origin works.
    const again = agent.connection(`http://127.0.0.1:${port}`, 4);
    expect(await post(again, '/ok')).toBe(204);
    await again.close();
    await agent.close();
  });

  it('the default policy refuses the target before any request (literal loopback) and at connect (a name resolving to loopback)', async () => {
    expect(() => checkTarget(`http://127.0.0.1:${port}/ok`)).toThrow(SsrfError);
    const agent = createGuardedAgent({}, { lookupAll: async () => [{ address: '127.0.0.1', family: 4 }] });
    const conn = agent.connection(`http://hooks.example:${port}`, 1);
    seen.length = 0;
    const err = await postOnConnection(conn, checkTarget(`http://hooks.example:${port}/ok`), { headers: {}, body: '{}', timeoutMs: 5000, maxBytes: 1024 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SsrfError);
    expect(seen).toEqual([]);
    await conn.destroy();
    await agent.close();
  });
});
