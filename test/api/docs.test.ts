/**
 * /docs: the OpenAPI document validates and lists every registered route, the OpenRPC document validates against
 * the OpenRPC meta-schema and lists every method and alias, the page links both, and the schemas in the documents
 * are the objects the routes and methods validate with.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import metaSchemaModule from '@open-rpc/meta-schema';
import { Ajv } from 'ajv';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { registeredRoutes } from '../helpers/routes.js';
import { RPC_METHODS } from '../../src/api/rpc/registry.js';
import { isListParams, isNoParams, paramNames, type JsonSchema, type ObjectParamsSchema } from '../../src/api/rpc/params-schema.js';
import { openApiPath, UNCLAIMED_TAG } from '../../src/api/docs/openapi.js';
import { walletParamsSchema } from '../../src/api/rest/wallet/common.js';
import { getAssetsByOwner } from '../../src/api/rpc/methods/getAssetsByOwner.js';
import { getMultipleCompressedAccountProofs } from '../../src/api/rpc/methods/zk/getMultipleCompressedAccountProofs.js';
import type { SenderDeps } from '../../src/sender/routes.js';

let ta: TestApp;
let openapi: { paths: Record<string, Record<string, Record<string, unknown>>>; [k: string]: unknown };
let openrpc: { methods: { name: string; params: { name: string; required?: boolean; schema: unknown }[]; [k: string]: unknown }[]; [k: string]: unknown };

beforeAll(async () => {
  // Every optional interface on: the admin API and the Sender (its router is never called here).
  ta = await createTestApp({
    admin: { token: 'docs-test-admin-token' },
    sender: { router: {} as SenderDeps['router'], policy: {} as SenderDeps['policy'], rateLimitPerSecond: 10 },
  });
  openapi = (await ta.app.inject({ url: '/docs/openapi.json' })).json();
  openrpc = (await ta.app.inject({ url: '/docs/openrpc.json' })).json();
});
afterAll(async () => {
  await ta?.close();
});

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(openapi.openapi).toBe('3.1.0');
    const res = await new Validator().validate(structuredClone(openapi) as unknown as Parameters<Validator['validate']>[0]);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
  });

  it('lists every registered route, each under an interface tag, and nothing else', () => {
    const routes = registeredRoutes(ta.app);
    expect(routes.size).toBeGreaterThan(20);
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(openapi.paths)) for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${path}`);
    const expected = new Set([...routes].map((r) => { const [m, u] = r.split(' '); return `${m} ${openApiPath(u)}`; }));
    expect([...expected].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((r) => !expected.has(r))).toEqual([]);
    for (const [path, ops] of Object.entries(openapi.paths)) for (const [m, op] of Object.entries(ops)) expect(op.tags, `${m} ${path}`).not.toEqual([UNCLAIMED_TAG]);
    // each interface is there
    for (const r of ['GET /v1/wallet/{wallet}/balances', 'POST /v0/token-metadata', 'POST /v0/webhooks', 'POST /v0/transactions', 'POST /', 'POST /fast', 'GET /admin/api/keys', 'GET /health', 'GET /docs'])
      expect(documented).toContain(r);
  });

  it('has the key security and the REST error format on keyed routes, none on /docs and /health', () => {
    const comps = openapi.components as { securitySchemes: Record<string, { in?: string; name?: string }>; schemas: Record<string, { required?: string[] }> };
    expect(comps.securitySchemes.apiKeyQuery).toMatchObject({ in: 'query', name: 'api-key' });
    expect(comps.securitySchemes.apiKeyHeader).toMatchObject({ in: 'header', name: 'X-Api-Key' });
    expect(comps.schemas.RestError.required).toEqual(['error', 'code']);
    const balances = openapi.paths['/v1/wallet/{wallet}/balances'].get;
    expect(balances.security).toEqual([{ apiKeyQuery: [] }, { apiKeyHeader: [] }]);
    expect((balances.responses as Record<string, unknown>)['401']).toEqual({ description: expect.any(String), content: { 'application/json': { schema: { $ref: '#/components/schemas/RestError' } } } });
    expect((openapi.paths['/'].post.responses as Record<string, unknown>)['401']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcError' } } } });
    expect(openapi.paths['/docs'].get.security).toEqual([]);
    expect(openapi.paths['/health'].get.security).toEqual([]);
  });

  it('carries the schemas the routes validate with', async () => {
    // The path parameter of the funded-by route is the property of the route's params schema.
    const funded = openapi.paths['/v1/wallet/{wallet}/funded-by'].get.parameters as { name: string; in: string; schema: unknown }[];
    expect(funded[0]).toEqual({ name: 'wallet', in: 'path', required: true, schema: walletParamsSchema.properties.wallet });
    // Its one query parameter, minContextSlot (every Wallet route takes it): the schema Fastify validates with.
    expect(funded.slice(1)).toMatchObject([{ name: 'minContextSlot', in: 'query', schema: { type: 'integer', minimum: 0 } }]);
    // The balances query parameters: what Fastify validates (limit ≤ 100) is what the document says.
    const limit = (openapi.paths['/v1/wallet/{wallet}/balances'].get.parameters as { name: string; schema: { maximum?: number } }[]).find((p) => p.name === 'limit')!;
    expect(limit.schema.maximum).toBe(100);
    const w = '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY';
    expect((await ta.app.inject({ url: `/v1/wallet/${w}/balances?limit=101&api-key=${ta.key}` })).statusCode).toBe(400);
    // The webhook creation body: the document's schema validates like the route (required fields refused alike).
    const body = (openapi.paths['/v0/webhooks'].post.requestBody as { content: Record<string, { schema: Record<string, unknown> }> }).content['application/json'].schema;
    expect(body.required).toEqual(['webhookURL', 'accountAddresses']);
    const res = await ta.app.inject({ method: 'POST', url: `/v0/webhooks?api-key=${ta.key}`, payload: { webhookURL: 'https://example.test/hook' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400 });
  });
});

describe('OpenRPC document', () => {
  it('validates against the OpenRPC meta-schema', () => {
    const meta = ((metaSchemaModule as { openrpcDocument?: object }).openrpcDocument ?? metaSchemaModule) as Record<string, unknown>;
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, validateFormats: false });
    // The meta-schema names JSON Schema by an external address (meta.json-schema.tools, not fetched): the draft-07
    // meta-schema Ajv ships stands for it, so each param's schema is checked to be a valid JSON Schema too.
    const local = JSON.parse(
      JSON.stringify(meta)
        .replaceAll('"https://meta.json-schema.tools/#/definitions/JSONSchemaObject/properties/$ref"', '"#/definitions/refString"')
        .replaceAll('"https://meta.json-schema.tools"', '"http://json-schema.org/draft-07/schema#"'),
    ) as Record<string, unknown> & { definitions: Record<string, unknown> };
    local.definitions.refString = { type: 'string' };
    const { $schema: _ignored, ...schema } = local;
    const validate = ajv.compile(schema);
    const ok = validate(openrpc);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    expect(openrpc.openrpc).toBe('1.3.2');
  });

  it('lists every method name and alias of the registry', () => {
    const names = openrpc.methods.map((m) => m.name);
    const expected = RPC_METHODS.flatMap((m) => [m.name, ...(m.aliases ?? [])]);
    expect(names.sort()).toEqual([...expected].sort());
  });

  it("describes a method's params from the schema its handler uses", () => {
    const doc = openrpc.methods.find((m) => m.name === 'getAssetsByOwner')!;
    const schema = getAssetsByOwner.paramsSchema as ObjectParamsSchema;
    expect(doc.params.map((p) => p.name)).toEqual(paramNames(schema));
    expect(doc.params.find((p) => p.name === 'ownerAddress')).toMatchObject({ required: true, schema: schema.properties.ownerAddress });
    const alias = openrpc.methods.find((m) => m.name === 'get_assets_by_owner')!;
    expect(alias.params).toEqual(doc.params);
    // a list method: `params` is the array itself, described as one repeated positional param
    const list = openrpc.methods.find((m) => m.name === 'getMultipleCompressedAccountProofs')!;
    const listSchema = getMultipleCompressedAccountProofs.paramsSchema!;
    expect(list.paramStructure).toBe('by-position');
    expect(list.params).toMatchObject([{ name: 'hashes', required: false, schema: (listSchema as { items: unknown }).items }]);
    // a method that reads no params
    expect(openrpc.methods.find((m) => m.name === 'getIndexerSlot')).toMatchObject({ params: [], 'x-params-described': true });
  });

  it('describes every method from its paramsSchema (no method listed by name only)', () => {
    expect(RPC_METHODS.filter((m) => !m.paramsSchema).map((m) => m.name)).toEqual([]);
    for (const m of RPC_METHODS)
      for (const n of [m.name, ...(m.aliases ?? [])]) {
        const doc = openrpc.methods.find((d) => d.name === n)!;
        expect(doc['x-params-described'], n).toBe(true);
        expect(doc['x-params-schema'], n).toEqual(m.paramsSchema);
      }
  });
});

describe('paramsSchema agrees with the handlers', () => {
  const rpc = async (method: string, params: unknown) =>
    (await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method, params } })).json() as { error?: { code: number; message: string } };

  const expectedOneOf = (names: string[]) => names.map((n) => `\`${n}\``).join(', ');
  /** A value of `s` (the pubkey/hash pattern, or an object of its required fields). */
  const sample = (s: JsonSchema): unknown =>
    s.type === 'object' ? Object.fromEntries(((s.required ?? []) as string[]).map((r) => [r, sample((s.properties as Record<string, JsonSchema>)[r])])) : '11111111111111111111111111111111';

  /** By-name methods: unknown fields against exactly the schema's names, required fields, null params, no positional form. */
  async function checkObject(name: string, s: ObjectParamsSchema) {
    const unknown = await rpc(name, { notAField: 1 });
    expect(unknown.error?.code, name).toBe(-32602);
    expect(unknown.error?.message, name).toContain(`unknown field \`notAField\`, expected one of ${expectedOneOf(paramNames(s))}`);
    const empty = await rpc(name, {});
    if (s.required?.length) {
      expect(empty.error?.code, `${name} {}`).toBe(-32602);
      // the field named missing is one the schema requires
      expect(s.required, `${name}: ${empty.error?.message}`).toContain(/missing field `(\w+)`/.exec(empty.error?.message ?? '')?.[1]);
    } else {
      // nothing required by itself; a field named missing is one of alternatives (getNftEditions: mint or mintAddress)
      const named = /missing field `(\w+)`/.exec(empty.error?.message ?? '')?.[1];
      if (named !== undefined) expect(paramNames(s), `${name} {}`).toContain(named);
    }
    // omitted/null params: `{}` when the schema's type admits null, a params error otherwise
    const none = await rpc(name, null);
    if (Array.isArray(s.type)) expect(none, `${name} null`).toEqual(empty);
    else expect(none.error?.code, `${name} null`).toBe(-32602);
    // the by-name form only: a positional array is a params error
    expect((await rpc(name, [])).error?.code, `${name} []`).toBe(-32602);
  }

  it('every method: the params its schema describes are the ones the handler accepts (object, list or none)', async () => {
    expect(RPC_METHODS.filter((m) => !m.paramsSchema).map((m) => m.name)).toEqual([]);
    const kinds = { object: 0, list: 0, none: 0 };
    for (const m of RPC_METHODS) {
      const s = m.paramsSchema!;
      if (isNoParams(s)) {
        kinds.none++;
        // whatever params hold is ignored
        for (const params of [{ notAField: 1 }, [], [1, 'x'], null, undefined]) expect((await rpc(m.name, params)).error, `${m.name} ${JSON.stringify(params)}`).toBeUndefined();
      } else if (isListParams(s)) {
        kinds.list++;
        // the params are the array itself: an object is a params error
        const obj = await rpc(m.name, { notAField: 1 });
        expect(obj.error, m.name).toMatchObject({ code: -32602, message: expect.stringContaining('expected an array') });
        const item = s.items as JsonSchema;
        if (item.type === 'object') {
          const unknown = await rpc(m.name, [{ ...(sample(item) as object), notAField: 1 }]);
          expect(unknown.error?.code, m.name).toBe(-32602);
          expect(unknown.error?.message, m.name).toContain(`unknown field \`notAField\`, expected ${expectedOneOf(paramNames(item as ObjectParamsSchema))}`);
          for (const r of (item.required ?? []) as string[]) {
            const { [r]: _dropped, ...rest } = sample(item) as Record<string, unknown>;
            const missing = await rpc(m.name, [rest]);
            expect(missing.error?.code, `${m.name} item without ${r}`).toBe(-32602);
            expect(missing.error?.message, m.name).toContain(`missing field \`${r}\``);
          }
        }
        // the bound: one item more than maxItems is refused with it
        const tooMany = await rpc(m.name, Array(s.maxItems + 1).fill(sample(item)));
        expect(tooMany.error?.message, m.name).toContain(`Maximum allowed: ${s.maxItems}`);
      } else {
        kinds.object++;
        await checkObject(m.name, s as ObjectParamsSchema);
      }
    }
    // Lists: the four Photon list methods and the positional RPC extensions (getTransactionsForAddress,
    // getPriorityFeeEstimate, getProgramAccountsV2, getTokenAccountsByOwnerV2).
    expect(kinds).toEqual({ object: RPC_METHODS.length - 10, list: 8, none: 2 });
  }, 120_000);
});

describe('/docs page', () => {
  it('answers HTML without a key and links both documents', async () => {
    const res = await ta.app.inject({ url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('href="/docs/openapi.json"');
    expect(res.body).toContain('href="/docs/openrpc.json"');
    expect(res.body).toContain('/v1/wallet/{wallet}/balances');
    expect(res.body).toContain('getAssetsByOwner');
    // self-contained: no external script, stylesheet or image
    expect(res.body).not.toMatch(/<(script|link|img)\b/i);
    expect((await ta.app.inject({ url: '/docs/openapi.json' })).statusCode).toBe(200);
    expect((await ta.app.inject({ url: '/docs/openrpc.json' })).statusCode).toBe(200);
  });
});
