/**
 * The OpenRPC 1.3.2 document of the JSON-RPC methods (POST /), from the method table the endpoint dispatches with
 * (`RPC_METHODS`): one entry per wire name, aliases included (an alias entry says which method it names). A method
 * that exports a `paramsSchema` has one by-name param per property of that schema — the schema its handler takes
 * its accepted names from; a method without one is listed by name only (`params: []`, `x-params-described: false`).
 * Errors are the JSON-RPC codes of the error table the endpoint answers with.
 */
import { ERROR_TABLE } from '../wire/errors.js';
import type { RpcMethod } from '../rpc/method.js';

const DAS = new Set(['getAsset', 'getAssetBatch', 'getTokenAccounts', 'getNftEditions', 'getAssetProof', 'getAssetProofBatch', 'getSignaturesForAsset',
  'getAssetsByOwner', 'getAssetsByGroup', 'getAssetsByCreator', 'getAssetsByAuthority', 'searchAssets', 'getGrouping']);

/** The JSON-RPC errors a method call can answer (the error table's codes with the messages' kinds). */
function errors(): { code: number; message: string }[] {
  const byCode = new Map<number, string[]>();
  for (const [name, { rpcCode }] of Object.entries(ERROR_TABLE)) byCode.set(rpcCode, [...(byCode.get(rpcCode) ?? []), name]);
  return [...byCode].sort((a, b) => b[0] - a[0]).map(([code, names]) => ({ code, message: names.join(' / ') }));
}

function methodEntry(m: RpcMethod, wireName: string): Record<string, unknown> {
  const s = m.paramsSchema;
  const required = new Set(s?.required ?? []);
  const params = s
    ? Object.entries(s.properties).map(([name, schema]) => ({
        name,
        required: required.has(name),
        schema,
        ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      }))
    : [];
  const isAlias = wireName !== m.name;
  return {
    name: wireName,
    summary: isAlias ? `alias of ${m.name}` : `${m.name} (${m.credits} credits)`,
    ...(isAlias ? { description: `Same method as ${m.name}: same params and result.` } : {}),
    tags: [{ name: DAS.has(m.name) ? 'DAS' : 'ZK Compression' }],
    paramStructure: 'by-name',
    params,
    result: { name: 'result', schema: {} },
    errors: errors(),
    'x-params-described': Boolean(s),
    ...(m.aliases?.length && !isAlias ? { 'x-aliases': m.aliases } : {}),
  };
}

/** The OpenRPC document of `methods` (every wire name and alias). */
export function buildOpenRpc(methods: readonly RpcMethod[], info: { version: string }): Record<string, unknown> {
  const entries: Record<string, unknown>[] = [];
  for (const m of methods) for (const n of [m.name, ...(m.aliases ?? [])]) entries.push(methodEntry(m, n));
  return {
    openrpc: '1.3.2',
    info: {
      title: 'solgate JSON-RPC methods',
      version: info.version,
      description:
        'POST / with `?api-key=` (or the X-Api-Key header). Params are described from each method\'s paramsSchema where it has one ' +
        '(x-params-described: true); the other methods are listed by name and aliases only.',
    },
    methods: entries,
  };
}
