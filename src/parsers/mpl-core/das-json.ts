/**
 * JSON rendering of MPL Core plugins exactly as the Metaplex DAS reference stores and serves them.
 *
 * DAS serialises the Rust `mpl_core::IndexableAsset` plugin structs with serde, then post-processes the JSON
 * (digital-asset-rpc-infrastructure `program_transformers/src/mpl_core_program/v1_asset.rs`):
 * `remove_plugins_nesting` (drop the enum-variant wrapper of `data` / `adapter_config`),
 * `transform_plugins_authority` (authorities → `{type, address}`), and `convert_keys_to_snake_case` (heck).
 * External plugin `data` follows mpl-core `convert_external_plugin_adapter_data_to_string` + its `custom_serde`
 * (https://github.com/metaplex-foundation/mpl-core/blob/main/clients/rust/src/indexable_asset.rs).
 * Here the same steps run on the values decoded by the @metaplex-foundation/mpl-core umi serializers.
 */
import { decodeMulti } from '@msgpack/msgpack';
import { ExternalPluginAdapterSchema } from '../../vendor/mpl-core.js';
import type { Json } from '../asset-account-types.js';

type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Builds an object without prototype pitfalls (`__proto__` keys from user JSON stay plain keys). */
const objectOf = (entries: [string, Json][]): JsonObject => Object.fromEntries(entries) as JsonObject;

/** A u64 as JSON: a number when exact, else its decimal string. */
export function u64Json(v: bigint): Json {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

/**
 * Renders a umi-decoded value the way serde_json renders the corresponding Rust type: struct fields under
 * their snake_case Rust names, enum variants externally tagged (`"Unit"`, `{"Newtype": value}`, `{"Struct": {...}}`), `Option` is the value or null,
 * `Vec<u8>` is an array of numbers, and `schema` (the only scalar enum inside plugin data) is its variant name.
 */
export function serde(v: unknown): Json {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return u64Json(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Array.from(v);
  if (Array.isArray(v)) return v.map(serde);
  const o = v as Record<string, unknown>;
  if (o.__option === 'Some') return serde(o.value);
  if (o.__option === 'None') return null;
  if (typeof o.__kind === 'string') {
    const { __kind, ...rest } = o;
    if (Array.isArray(rest.fields)) {
      const f = rest.fields as unknown[];
      return objectOf([[__kind, f.length === 1 ? serde(f[0]) : f.map(serde)]]);
    }
    return Object.keys(rest).length === 0 ? __kind : objectOf([[__kind, fieldsOf(rest)]]);
  }
  return fieldsOf(o);
}

/** Struct fields under their Rust names (the umi clients camelCase them). */
function fieldsOf(o: Record<string, unknown>): JsonObject {
  return objectOf(
    Object.entries(o).map(([k, x]): [string, Json] => [
      snakeCase(k),
      k === 'schema' && typeof x === 'number' ? (ExternalPluginAdapterSchema[x] ?? x) : serde(x),
    ]),
  );
}

type WordMode = 'boundary' | 'lower' | 'upper';
const LOWER = /\p{Ll}/u;
const UPPER = /\p{Lu}/u;

/** heck `to_snake_case` (word boundaries on non-alphanumerics, `aB`, and `ABc`; words lower-cased, joined by `_`). */
export function snakeCase(s: string): string {
  const words: string[] = [];
  for (const part of s.split(/[^\p{L}\p{N}]/u)) {
    const cs = [...part];
    let init = 0;
    let mode = 'boundary' as WordMode;
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i] as string;
      const next = cs[i + 1];
      if (next === undefined) {
        words.push(cs.slice(init).join(''));
        break;
      }
      const nextMode: WordMode = LOWER.test(c) ? 'lower' : UPPER.test(c) ? 'upper' : mode;
      if (nextMode === 'lower' && UPPER.test(next)) {
        words.push(cs.slice(init, i + 1).join(''));
        init = i + 1;
        mode = 'boundary';
      } else if (mode === 'upper' && UPPER.test(c) && LOWER.test(next)) {
        words.push(cs.slice(init, i).join(''));
        init = i;
        mode = 'boundary';
      } else {
        mode = nextMode;
      }
    }
  }
  return words.map((w) => w.toLowerCase()).join('_');
}

/** `convert_keys_to_snake_case`: every object key at every depth (serde_json maps iterate keys sorted). */
export function snakeKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(snakeKeys);
  if (!isObject(v)) return v;
  const keys = Object.keys(v).sort();
  return objectOf(keys.map((k): [string, Json] => [snakeCase(k), snakeKeys(v[k] as Json)]));
}

/** `transform_authority`: `"Owner"` → `{type:"Owner", address:null}`, `{"Address":{"address":a}}` → `{type, address}`. */
export function authorityJson(a: Json): Json {
  if (typeof a === 'string') return { type: a, address: null };
  if (isObject(a)) {
    const [type] = Object.keys(a);
    const inner = type === undefined ? undefined : a[type];
    if (type !== undefined && isObject(inner) && 'address' in inner) {
      const rest = objectOf(Object.entries(a).filter(([k]) => k !== type));
      return { ...rest, type, address: inner.address as Json };
    }
  }
  return a;
}

/** `remove_nesting_from_plugin`: `{"FreezeDelegate":{"frozen":false}}` → `{"frozen":false}`. */
export function unwrapVariant(v: Json): Json {
  if (!isObject(v)) return v;
  const first = Object.values(v)[0];
  if (first === undefined) return v;
  return isObject(first) ? { ...first } : {};
}

/** Applies the authority transforms DAS runs on one plugin object (its authority, data_authority, parent_key). */
export function transformAuthorities(plugin: JsonObject): JsonObject {
  const out: JsonObject = { ...plugin };
  if ('authority' in out) out.authority = authorityJson(out.authority as Json);
  const cfg = out.adapter_config;
  if (isObject(cfg)) {
    const c: JsonObject = { ...cfg };
    if ('data_authority' in c) c.data_authority = authorityJson(c.data_authority as Json);
    const pk = c.parent_key;
    if (isObject(pk) && 'LinkedAppData' in pk) c.parent_key = { ...pk, LinkedAppData: authorityJson(pk.LinkedAppData as Json) };
    out.adapter_config = c;
  }
  return out;
}

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const utf8Lossy = new TextDecoder('utf-8', { fatal: false });

/**
 * External plugin data as DAS serves it: the schema turns the bytes into a string (Binary → base64, Json → UTF-8
 * lossy, MsgPack → decoded then re-encoded as JSON, base64 when it does not decode to JSON), then that string is
 * emitted as parsed JSON when it parses, else as the string itself.
 */
export function adapterDataJson(schema: string, bytes: Uint8Array): Json {
  let s: string;
  if (schema === 'Json') s = utf8Lossy.decode(bytes);
  else if (schema === 'MsgPack') s = msgpackToJsonText(bytes) ?? b64(bytes);
  else s = b64(bytes);
  try {
    return JSON.parse(s) as Json;
  } catch {
    return s;
  }
}

/** rmp_serde → serde_json::Value: only values JSON can hold (string map keys, no bin/ext), else null. */
function msgpackToJsonText(bytes: Uint8Array): string | null {
  try {
    const first = decodeMulti(bytes, {
      useBigInt64: true,
      mapKeyConverter: (k: unknown) => {
        if (typeof k !== 'string') throw new Error('non-string map key');
        return k;
      },
    }).next();
    if (first.done) return null;
    const json = plainJson(first.value);
    return json === undefined ? null : JSON.stringify(json);
  } catch {
    return null;
  }
}

function plainJson(v: unknown): Json | undefined {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return u64Json(v);
  if (Array.isArray(v)) {
    const out: Json[] = [];
    for (const x of v) {
      const j = plainJson(x);
      if (j === undefined) return undefined;
      out.push(j);
    }
    return out;
  }
  if (Object.getPrototypeOf(v) === Object.prototype) {
    const entries: [string, Json][] = [];
    for (const [k, x] of Object.entries(v as object)) {
      const j = plainJson(x);
      if (j === undefined) return undefined;
      entries.push([k, j]);
    }
    return objectOf(entries);
  }
  return undefined; // Uint8Array (bin), ExtData, Date (timestamp ext): serde_json::Value cannot hold them
}
