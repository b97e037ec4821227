/**
 * API documentation, without a key: `GET /docs` (an HTML page), `GET /docs/openapi.json` (OpenAPI 3.1 of every
 * HTTP route, from the routes' own JSON schemas) and `GET /docs/openrpc.json` (OpenRPC 1.3.2 of the JSON-RPC
 * methods, from the method table and each method's `paramsSchema`). `docsApi` must be called on the root instance
 * before any interface is registered: it records the routes as Fastify registers them. The documents are built
 * on the first request (every route is registered by then) and kept.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { RPC_METHODS } from '../rpc/registry.js';
import type { RpcMethod } from '../rpc/method.js';
import { buildOpenApi, collectRoutes } from './openapi.js';
import { buildOpenRpc } from './openrpc.js';
import { renderDocsPage } from './page.js';

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export interface DocsOptions {
  /** The JSON-RPC methods to describe (default: the registry's, which the endpoint serves). */
  methods?: readonly RpcMethod[];
  /** Standard Solana methods forwarded to the cluster RPC (listed when the process has one). */
  forwarded?: readonly string[];
}

export function docsApi(app: FastifyInstance, opts: DocsOptions = {}): void {
  const routes = collectRoutes(app);
  const version = packageVersion();
  let cache: { openapi: Record<string, unknown>; openrpc: Record<string, unknown>; page: string } | undefined;
  const docs = () => {
    if (!cache) {
      const openapi = buildOpenApi(routes, { version });
      const openrpc = buildOpenRpc(opts.methods ?? RPC_METHODS, { version }, opts.forwarded);
      cache = { openapi, openrpc, page: renderDocsPage(openapi, openrpc) };
    }
    return cache;
  };
  const page = async (_req: unknown, reply: import('fastify').FastifyReply) => reply.type('text/html; charset=utf-8').send(docs().page);
  app.get('/docs', page);
  app.get('/docs/', page);
  app.get('/docs/openapi.json', async () => docs().openapi);
  app.get('/docs/openrpc.json', async () => docs().openrpc);
}
