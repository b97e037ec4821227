/**
 * The /docs page: one self-contained HTML page (inline CSS, no script, no external asset, so it works offline)
 * rendered on the server from the two generated documents — each interface with its routes, parameters, request
 * bodies and authentication, then each JSON-RPC method with its aliases and params — linking both documents.
 */

const esc = (s: unknown): string => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A schema as compact, readable JSON. */
function schemaText(s: unknown): string {
  return esc(JSON.stringify(s, null, 1).replace(/\n\s*/g, ' '));
}

const SECURITY_LABEL: Record<string, string> = {
  apiKeyQuery: '?api-key=',
  apiKeyHeader: 'X-Api-Key header',
  adminBearer: 'Authorization: Bearer admin token',
};

function securityText(sec: unknown): string {
  const alts = (sec as Record<string, unknown>[] | undefined) ?? [];
  if (!alts.length) return 'none';
  return alts.map((a) => (Object.keys(a).length ? Object.keys(a).map((k) => SECURITY_LABEL[k] ?? k).join(' + ') : 'none')).join(' or ');
}

interface Op {
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required: boolean; schema: unknown; description?: string }[];
  requestBody?: { description?: string; content: Record<string, { schema: unknown }> };
  responses?: Record<string, { description?: string }>;
  security?: unknown;
}

function paramTable(rows: { name: string; where: string; required: boolean; schema: unknown; description?: string }[]): string {
  if (!rows.length) return '';
  return (
    '<table><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr>' +
    rows
      .map((r) => `<tr><td><code>${esc(r.name)}</code></td><td>${esc(r.where)}</td><td>${r.required ? 'yes' : ''}</td><td><code class="s">${schemaText(r.schema)}</code>${r.description ? `<br>${esc(r.description)}` : ''}</td></tr>`)
      .join('') +
    '</table>'
  );
}

function routeHtml(method: string, path: string, op: Op): string {
  const body = op.requestBody ? Object.values(op.requestBody.content)[0]?.schema : undefined;
  const errs = Object.keys(op.responses ?? {}).filter((s) => s !== '200');
  return (
    `<details class="op"><summary><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></summary>` +
    (op.description ? `<p>${esc(op.description)}</p>` : '') +
    `<p>Authentication: ${esc(securityText(op.security))}</p>` +
    paramTable((op.parameters ?? []).map((p) => ({ name: p.name, where: p.in, required: p.required, schema: p.schema, description: p.description }))) +
    (body !== undefined ? `<p>Request body${op.requestBody?.description ? ` (${esc(op.requestBody.description)})` : ''}:</p><pre>${esc(JSON.stringify(body, null, 2))}</pre>` : '') +
    (errs.length ? `<p>Error statuses: ${errs.map(esc).join(', ')}</p>` : '') +
    '</details>'
  );
}

interface RpcEntry {
  name: string;
  summary?: string;
  params: { name: string; required?: boolean; schema: unknown; description?: string }[];
  paramStructure?: string;
  'x-params-described'?: boolean;
  'x-aliases'?: string[];
  tags?: { name: string }[];
}

function methodHtml(m: RpcEntry): string {
  const aliases = m['x-aliases']?.length ? ` <small>aliases: ${m['x-aliases'].map((a) => `<code>${esc(a)}</code>`).join(', ')}</small>` : '';
  const params = m['x-params-described']
    ? paramTable(m.params.map((p) => ({ name: p.name, where: m.paramStructure === 'by-position' ? 'params[i]' : 'params', required: Boolean(p.required), schema: p.schema, description: p.description }))) || '<p>No params.</p>'
    : '<p class="muted">Params not described by a schema (validated by hand in the method).</p>';
  return `<details class="op" id="rpc-${esc(m.name)}"><summary><code>${esc(m.name)}</code> <small>${esc(m.summary ?? '')}</small>${aliases}</summary>${params}</details>`;
}

const CSS = `body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 2rem;color:#1b1f24}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2rem;margin-top:2rem}
details.op{border:1px solid #d0d7de;border-radius:6px;margin:.35rem 0;padding:.35rem .6rem}
summary{cursor:pointer}.m{display:inline-block;min-width:4.2em;font-weight:600;font-family:monospace}
.get{color:#0969da}.post{color:#1a7f37}.put{color:#9a6700}.patch{color:#8250df}.delete{color:#cf222e}
table{border-collapse:collapse;margin:.4rem 0;width:100%}td,th{border:1px solid #d0d7de;padding:.2rem .4rem;text-align:left;vertical-align:top}
pre{background:#f6f8fa;padding:.5rem;overflow:auto;max-height:24rem}code.s{font-size:12px;word-break:break-word}.muted{color:#57606a}
nav a{margin-right:.8rem}`;

/** The page, from the OpenAPI and OpenRPC documents. */
export function renderDocsPage(openapi: Record<string, unknown>, openrpc: Record<string, unknown>): string {
  const paths = openapi.paths as Record<string, Record<string, Op>>;
  const tags = (openapi.tags as { name: string; description?: string }[]) ?? [];
  const byTag = new Map<string, string[]>(tags.map((t) => [t.name, []]));
  for (const [path, ops] of Object.entries(paths))
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(routeHtml(method, path, op));
    }
  const methods = (openrpc.methods as RpcEntry[]).filter((m) => !m.summary?.startsWith('alias of '));
  const rpcGroups = new Map<string, RpcEntry[]>();
  for (const m of methods) {
    const g = m.tags?.[0]?.name ?? 'Methods';
    rpcGroups.set(g, [...(rpcGroups.get(g) ?? []), m]);
  }
  const described = methods.filter((m) => m['x-params-described']).length;
  const info = openapi.info as { version?: string };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>solgate API documentation</title><style>${CSS}</style></head><body>
<h1>solgate API documentation</h1>
<p class="muted">Version ${esc(info.version ?? '')}. Generated from the schemas the server validates with.</p>
<p>Documents: <a href="/docs/openapi.json">OpenAPI 3.1 (openapi.json)</a> · <a href="/docs/openrpc.json">OpenRPC 1.3.2 (openrpc.json)</a></p>
<nav>${[...byTag.keys()].map((t) => `<a href="#${esc(t.replace(/\W+/g, '-'))}">${esc(t)}</a>`).join('')}<a href="#json-rpc-methods">JSON-RPC methods</a></nav>
${[...byTag]
  .filter(([, ops]) => ops.length)
  .map(([t, ops]) => `<h2 id="${esc(t.replace(/\W+/g, '-'))}">${esc(t)}</h2>${tags.find((x) => x.name === t)?.description ? `<p>${esc(tags.find((x) => x.name === t)!.description)}</p>` : ''}${ops.join('\n')}`)
  .join('\n')}
<h2 id="json-rpc-methods">JSON-RPC methods</h2>
<p>POST / with a JSON-RPC 2.0 request (or a batch). ${methods.length} methods, ${described} with params described from their schema; aliases answer like the method they name.</p>
${[...rpcGroups].map(([g, ms]) => `<h3>${esc(g)}</h3>${ms.map(methodHtml).join('\n')}`).join('\n')}
</body></html>`;
}
