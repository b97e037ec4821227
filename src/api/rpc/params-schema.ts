/**
 * JSON Schemas of JSON-RPC `params` (draft 2020-12 / OpenRPC content descriptors). A method file that exports a
 * `paramsSchema` takes the names it accepts from the schema (`paramNames`: unknown fields are refused against
 * exactly the schema's properties) and the OpenRPC document (/docs/openrpc.json) describes the method from the
 * same object. Type and format checks stay in the handlers (they answer the reference servers' exact messages);
 * test/api/docs.test.ts checks that schema and handler agree on required and unknown fields.
 *
 * Three forms (`ParamsSchema`): a by-name object (`byNameParams`, most methods), a list whose `params` is the JSON
 * array itself (`listParams`: Photon's `HashList`, `AddressList`, `AddressListWithTrees`), and no params at all
 * (`NO_PARAMS`: the method reads none and ignores whatever is given).
 */

export type JsonSchema = Record<string, unknown>;

/** The params of a by-name method: one JSON object, no other field than `properties`. */
export interface ObjectParamsSchema extends JsonSchema {
  type: 'object' | ['object', 'null'];
  properties: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties: false;
}

/**
 * An object params schema. `optionalObject` when the whole params may be absent or null (every field optional,
 * as the DAS methods take a missing params as `{}`).
 */
export function byNameParams(properties: Record<string, JsonSchema>, required: string[] = [], optionalObject = required.length === 0): ObjectParamsSchema {
  for (const r of required) if (!(r in properties)) throw new Error(`params schema: required field ${r} is not a property`);
  return {
    type: optionalObject ? ['object', 'null'] : 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** The params of a list method: `params` is itself a JSON array of `items` (not an object, not wrapped). */
export interface ListParamsSchema extends JsonSchema {
  type: 'array';
  /** The name of the list in the documents (e.g. `hashes`); the list has no field name on the wire. */
  title: string;
  items: JsonSchema;
  maxItems: number;
}

/** A method that reads no params: any `params` (absent, null, `[]`, `{}` …) is accepted and ignored. */
export interface NoParamsSchema extends JsonSchema {
  description: string;
  'x-ignored': true;
}

/** The params of a JSON-RPC method (`RpcMethod.paramsSchema`). */
export type ParamsSchema = ObjectParamsSchema | ListParamsSchema | NoParamsSchema;

export function isListParams(s: ParamsSchema): s is ListParamsSchema {
  return s.type === 'array';
}

export function isNoParams(s: ParamsSchema): s is NoParamsSchema {
  return s['x-ignored'] === true;
}

export function isObjectParams(s: ParamsSchema): s is ObjectParamsSchema {
  return !isListParams(s) && !isNoParams(s);
}

/** A list params schema: the whole `params` is an array of `items`, at most `maxItems`. */
export function listParams(title: string, items: JsonSchema, maxItems: number, description: string): ListParamsSchema {
  return { type: 'array', title, description, items, maxItems };
}

/** The params of a method that reads none (Photon registers it without reading params; clients send `[]`). */
export const NO_PARAMS: NoParamsSchema = { description: 'no params: whatever `params` holds (omitted, null, [], {}) is ignored', 'x-ignored': true };

/** The field names a by-name method accepts (its unknown-field check), in the schema's order. */
export function paramNames(schema: ObjectParamsSchema): string[] {
  return Object.keys(schema.properties);
}

/** An optional field that also accepts `null` (serde's `Option`, the DAS handlers' `!= null`). */
export function nullable(s: JsonSchema): JsonSchema {
  if (typeof s.type === 'string') return { ...s, type: [s.type, 'null'] };
  return { anyOf: [s, { type: 'null' }] };
}

/** A base58 public key (32 bytes). */
export const PUBKEY: JsonSchema = { type: 'string', description: 'base58 public key (32 bytes)', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' };
/** A base58 hash (32 bytes, same form as a public key). */
export const HASH: JsonSchema = { type: 'string', description: 'base58 hash (32 bytes)', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' };

/** DAS display options (`options`, alias `displayOptions`); unknown options are refused, four are accepted without effect. */
export const DISPLAY_OPTIONS: JsonSchema = nullable({
  type: 'object',
  description: 'display options (give `options` or `displayOptions`, not both)',
  properties: Object.fromEntries(
    ['showUnverifiedCollections', 'showCollectionMetadata', 'showFungible', 'showInscription', 'showZeroBalance', 'showNativeBalance', 'showGrandTotal',
      'showRawData', 'requireFullIndex', 'showSystemMetadata', 'showClosedAccounts'].map((k) => [k, { type: ['boolean', 'null'] }]),
  ),
  additionalProperties: false,
});

/** DAS pagination fields: `page` (from 1), or keyset `before`/`after`, or `cursor`; `limit` ≤ 1000. */
export const DAS_PAGINATION: Record<string, JsonSchema> = {
  page: nullable({ type: 'integer', minimum: 1, maximum: 0xffff_ffff, description: 'page number (from 1); not with before/after/cursor' }),
  limit: nullable({ type: 'integer', minimum: 0, maximum: 1000, default: 1000 }),
  before: nullable({ ...PUBKEY, description: 'keyset: ids before this one' }),
  after: nullable({ ...PUBKEY, description: 'keyset: ids after this one' }),
  cursor: nullable({ ...PUBKEY, description: 'the cursor of the previous page' }),
};

/** `sortBy: {sortBy, sortDirection}` of the DAS asset lists (default id, descending). */
export const DAS_SORT_BY: JsonSchema = nullable({
  type: 'object',
  properties: {
    sortBy: nullable({ type: 'string', enum: ['id', 'created', 'recent_action', 'updated', 'none'], default: 'id' }),
    sortDirection: nullable({ type: 'string', enum: ['asc', 'desc'], default: 'desc' }),
  },
  additionalProperties: false,
});

/** The fields every DAS asset list takes besides its own (pagination, sortBy, display options). */
export const DAS_LIST_FIELDS: Record<string, JsonSchema> = {
  ...DAS_PAGINATION,
  sortBy: DAS_SORT_BY,
  options: DISPLAY_OPTIONS,
  displayOptions: DISPLAY_OPTIONS,
};

/** A base58 transaction signature (64 bytes). */
export const SIGNATURE: JsonSchema = { type: 'string', description: 'base58 signature (64 bytes)', pattern: '^[1-9A-HJ-NP-Za-km-z]{64,88}$' };

/** Photon's page `limit` (`Option<Limit>`): at most 1000, 1000 when absent. */
export const ZK_LIMIT: JsonSchema = nullable({ type: 'integer', minimum: 0, maximum: 1000, default: 1000 });

/** A `{address, tree}` pair (Photon's `AddressWithTree`): both required, no other field. */
export const ADDRESS_WITH_TREE: ObjectParamsSchema = byNameParams(
  { address: { ...PUBKEY, description: 'the new address' }, tree: { ...PUBKEY, description: 'the address tree it goes into' } },
  ['address', 'tree'],
);
