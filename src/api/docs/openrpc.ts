/**
 * The OpenRPC 1.3.2 document of the JSON-RPC methods (POST /), from the method table the endpoint dispatches with
 * (`RPC_METHODS`): one entry per wire name, aliases included (an alias entry says which method it names). A method's
 * params come from its `paramsSchema` — the schema its handler takes its accepted names from: one by-name param per
 * property of an object schema; for a list method (`params` is the array itself) one by-position param describing
 * the repeated item; none for a method that reads no params. `x-params-schema` is the schema of the whole `params`
 * value (object or null, the list with its bound). A method without a schema would be listed by name only
 * (`params: []`, `x-params-described: false`). Errors are the JSON-RPC codes of the error table the endpoint
 * answers with.
 */
import { ERROR_TABLE } from '../wire/errors.js';
import type { Call } from '../../accounts/meter.js';
import { standardCall } from '../rpc/standard.js';
import type { RpcMethod } from '../rpc/method.js';
import { isListParams, isNoParams, type ParamsSchema } from '../rpc/params-schema.js';

const DAS = new Set(['getAsset', 'getAssetBatch', 'getTokenAccounts', 'getNftEditions', 'getAssetProof', 'getAssetProofBatch', 'getSignaturesForAsset',
  'getAssetsByOwner', 'getAssetsByGroup', 'getAssetsByCreator', 'getAssetsByAuthority', 'searchAssets', 'getGrouping']);

/** The JSON-RPC errors a method call can answer (the error table's codes with the messages' kinds). */
function errors(): { code: number; message: string }[] {
  const byCode = new Map<number, string[]>();
  for (const [name, { rpcCode }] of Object.entries(ERROR_TABLE)) byCode.set(rpcCode, [...(byCode.get(rpcCode) ?? []), name]);
  return [...byCode].sort((a, b) => b[0] - a[0]).map(([code, names]) => ({ code, message: names.join(' / ') }));
}

/** The OpenRPC params of a method: one by-name param per property; a list is one by-position param (repeated). */
function paramsOf(s: ParamsSchema | undefined): { paramStructure: 'by-name' | 'by-position'; params: Record<string, unknown>[] } {
  if (!s || isNoParams(s)) return { paramStructure: 'by-name', params: [] };
  if (isListParams(s))
    return {
      paramStructure: 'by-position',
      params: [{
        name: s.title,
        required: false,
        schema: s.items,
        description: `${s.description} — repeated: \`params\` is the list itself ([x, x, …], up to ${s.maxItems}); x-params-schema is the whole params schema`,
      }],
    };
  const required = new Set(s.required ?? []);
  return {
    paramStructure: 'by-name',
    params: Object.entries(s.properties).map(([name, schema]) => ({
      name,
      required: required.has(name),
      schema,
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    })),
  };
}

function methodEntry(m: RpcMethod, wireName: string): Record<string, unknown> {
  const s = m.paramsSchema;
  const { paramStructure, params } = paramsOf(s);
  const isAlias = wireName !== m.name;
  return {
    name: wireName,
    summary: isAlias ? `alias of ${m.name}` : `${m.name} (${m.credits} credits)`,
    ...(isAlias ? { description: `Same method as ${m.name}: same params and result.` } : typeof s?.description === 'string' ? { description: s.description } : {}),
    tags: [{ name: DAS.has(m.name) ? 'DAS' : ['getTransactionsForAddress', 'getPriorityFeeEstimate', 'getProgramAccountsV2', 'getTokenAccountsByOwnerV2'].includes(m.name) ? 'RPC extensions' : 'ZK Compression' }],
    paramStructure,
    params,
    result: { name: 'result', schema: {} },
    errors: errors(),
    'x-params-described': Boolean(s),
    ...(s ? { 'x-params-schema': s } : {}),
    ...(m.aliases?.length && !isAlias ? { 'x-aliases': m.aliases } : {}),
  };
}

/** A standard Solana method the gateway forwards to the cluster RPC (its params and result are the node's). */
function forwardedEntry(name: string, call: Call): Record<string, unknown> {
  return {
    name,
    summary: `${name} (${call.cost === 'rpcHeavy' ? 10 : 1} credit${call.cost === 'rpcHeavy' ? 's' : ''})`,
    description: 'Standard Solana JSON-RPC method, forwarded to the cluster RPC: params, result and errors are the node\'s (docs/rpc.md).',
    tags: [{ name: 'Solana RPC' }],
    paramStructure: 'by-position',
    params: [],
    result: { name: 'result', schema: {} },
    errors: errors(),
    'x-forwarded': true,
  };
}

/**
 * The OpenRPC document of `methods` (every wire name and alias) and, when the process forwards them, the standard
 * Solana methods.
 */
export function buildOpenRpc(methods: readonly RpcMethod[], info: { version: string }, forwarded: readonly string[] = []): Record<string, unknown> {
  const entries: Record<string, unknown>[] = [];
  for (const m of methods) for (const n of [m.name, ...(m.aliases ?? [])]) entries.push(methodEntry(m, n));
  for (const n of forwarded) entries.push(forwardedEntry(n, standardCall(n, [])));
  return {
    openrpc: '1.3.2',
    info: {
      title: 'solgate JSON-RPC methods',
      version: info.version,
      description:
        'POST / with `?api-key=` (or the X-Api-Key header). Params are described from each method\'s paramsSchema, the schema its ' +
        'handler validates with (x-params-described: true; x-params-schema is the schema of the whole params value).',
    },
    methods: entries,
  };
}
