/** The routes an app has, read from Fastify's own route tree (not from the docs' route hook). */
import type { FastifyInstance } from 'fastify';

/** Every route of the app, one entry per method (HEAD and OPTIONS included), in the order of the route tree. */
export function listRoutes(app: FastifyInstance): { method: string; url: string }[] {
  const out: { method: string; url: string }[] = [];
  // printRoutes without a common prefix prints a tree: each line's text continues its parent's path, e.g.
  // `└── / (POST)`, `    ├── v0/webhooks (POST, GET, HEAD)`, `    │   └── /:webhookID (GET, …)`.
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│├└─\s]*)(\S.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m || !m[2]) continue;
    const depth = Math.round(m[1].length / 4);
    const path = (stack[depth - 1] ?? '') + m[2];
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of m[3]?.split(', ') ?? []) out.push({ method, url: path });
  }
  return out;
}

/** Every route of the app as `METHOD /url`, without the HEAD and OPTIONS routes Fastify adds. */
export function registeredRoutes(app: FastifyInstance): Set<string> {
  return new Set(listRoutes(app).filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS').map((r) => `${r.method} ${r.url}`));
}
