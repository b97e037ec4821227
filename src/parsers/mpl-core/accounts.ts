/**
 * Pure decoding of MPL Core accounts (owner `CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d`): `AssetV1` and
 * `CollectionV1` with every plugin and external plugin adapter, rendered in the DAS wire shape.
 *
 * The walk mirrors mpl-core's Rust `IndexableAsset::fetch`, which DAS indexes through blockbuster
 * (https://github.com/metaplex-foundation/mpl-core/blob/main/clients/rust/src/indexable_asset.rs): base account,
 * `PluginHeaderV1` right after it, `PluginRegistryV1` at the header's offset; internal and external registry
 * records merged and sorted by offset (that order gives each plugin's `index`); a plugin's bytes end where the
 * next record (or, for adapters with data, the data) starts; unknown plugin types are kept as base64.
 * Layouts come from the @metaplex-foundation/mpl-core generated serializers; registry records are read with the
 * type byte as a plain u8 (Rust `RegistryRecordSafe` / `ExternalRegistryRecordSafe`) so unknown types survive.
 * Program source: https://github.com/metaplex-foundation/mpl-core/tree/main/programs/mpl-core/src/state
 */
import { isSome, type Option } from '../../vendor/umi.js';
import { array, option, struct, tuple, u64, u8 } from '../../vendor/umi-serializers.js';
import {
  ExternalPluginAdapterSchema,
  ExternalPluginAdapterType,
  HookableLifecycleEvent,
  Key,
  PluginType,
  getAssetV1AccountDataSerializer,
  getBasePluginAuthoritySerializer,
  getCollectionV1AccountDataSerializer,
  getExternalCheckResultSerializer,
  getExternalPluginAdapterSerializer,
  getPluginHeaderV1AccountDataSerializer,
  getPluginSerializer,
  type BasePluginAuthority,
  type ExternalCheckResult,
  type Plugin,
} from '../../vendor/mpl-core.js';
import type {
  AssetParseFailed,
  CoreAssetAccount,
  CoreAuthority,
  CoreClosedAccount,
  CoreCollectionAccount,
  CoreDerived,
  CorePlugins,
  Json,
} from '../asset-account-types.js';
import { dasText } from '../token-metadata/das-text.js';
import { adapterDataJson, authorityJson, serde, snakeCase, snakeKeys, transformAuthorities, unwrapVariant } from './das-json.js';

/** MPL Core program id. */
export const MPL_CORE_PROGRAM = 'CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d';

const opt = <T>(o: Option<T>): T | null => (isSome(o) ? o.value : null);
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

type InternalRecord = { pluginType: number; authority: BasePluginAuthority; offset: bigint };
type ExternalRecord = {
  pluginType: number;
  authority: BasePluginAuthority;
  lifecycleChecks: Option<Array<[number, ExternalCheckResult]>>;
  offset: bigint;
  dataOffset: Option<bigint>;
  dataLen: Option<bigint>;
};
const registryRecord = struct<InternalRecord>([
  ['pluginType', u8()],
  ['authority', getBasePluginAuthoritySerializer()],
  ['offset', u64()],
]);
const externalRegistryRecord = struct<ExternalRecord>([
  ['pluginType', u8()],
  ['authority', getBasePluginAuthoritySerializer()],
  ['lifecycleChecks', option(array(tuple<[number, ExternalCheckResult]>([u8(), getExternalCheckResultSerializer()])))],
  ['offset', u64()],
  ['dataOffset', option(u64())],
  ['dataLen', option(u64())],
]);
const pluginRegistry = struct<{ key: number; registry: InternalRecord[]; externalRegistry: ExternalRecord[] }>([
  ['key', u8()],
  ['registry', array(registryRecord)],
  ['externalRegistry', array(externalRegistryRecord)],
]);
type Combined = { offset: number; dataOffset: number | null; internal?: InternalRecord; external?: ExternalRecord };

/**
 * Decodes an MPL Core account: `core.asset` / `core.collection`, `core.closed` for an empty or uninitialised
 * (burnt) account, null for other account kinds (hashed assets, groups), `parse.failed` for undecodable data.
 * Never throws.
 */
export function decodeMplCoreAccount(
  address: string,
  data: Uint8Array,
): CoreAssetAccount | CoreCollectionAccount | CoreClosedAccount | AssetParseFailed | null {
  if (data.length === 0 || data[0] === Key.Uninitialized) return { kind: 'core.closed', address };
  try {
    if (data[0] === Key.AssetV1) {
      const [a, end] = getAssetV1AccountDataSerializer().deserialize(data);
      const ua = a.updateAuthority;
      return {
        kind: 'core.asset',
        address,
        owner: a.owner,
        updateAuthority: { type: ua.__kind, address: ua.__kind === 'None' ? null : ua.fields[0] },
        name: dasText(a.name),
        uri: dasText(a.uri),
        seq: opt(a.seq),
        ...decodePlugins(data, end),
      };
    }
    if (data[0] === Key.CollectionV1) {
      const [c, end] = getCollectionV1AccountDataSerializer().deserialize(data);
      return {
        kind: 'core.collection',
        address,
        updateAuthority: c.updateAuthority,
        name: dasText(c.name),
        uri: dasText(c.uri),
        numMinted: c.numMinted,
        currentSize: c.currentSize,
        ...decodePlugins(data, end),
      };
    }
    return data[0]! in Key ? null : failed(address, `unknown key ${data[0]}`);
  } catch (e) {
    return failed(address, e instanceof Error ? e.message : String(e));
  }
}

function failed(address: string, reason: string): AssetParseFailed {
  return { kind: 'parse.failed', address, owner: MPL_CORE_PROGRAM, reason };
}

function slice(data: Uint8Array, start: number, end: number): Uint8Array {
  if (!(start <= end && end <= data.length)) throw new Error(`plugin bytes ${start}..${end} outside the account (${data.length})`);
  return data.subarray(start, end);
}

/** Walks the plugin registry that follows the base account at `baseEnd` (nothing when the account ends there). */
function decodePlugins(data: Uint8Array, baseEnd: number): CorePlugins & CoreDerived {
  const out: CorePlugins & CoreDerived = {
    plugins: {},
    unknownPlugins: null,
    externalPlugins: [],
    unknownExternalPlugins: null,
    royalty: null,
    frozen: false,
    transferDelegate: null,
  };
  if (baseEnd === data.length) return out;
  const [header] = getPluginHeaderV1AccountDataSerializer().deserialize(data, baseEnd);
  const registryOffset = Number(header.pluginRegistryOffset);
  const [reg] = pluginRegistry.deserialize(slice(data, registryOffset, data.length));
  const combined: Combined[] = [
    ...reg.registry.map((r) => ({ offset: Number(r.offset), dataOffset: null, internal: r })),
    ...reg.externalRegistry.map((r) => ({ offset: Number(r.offset), dataOffset: numOrNull(r.dataOffset), external: r })),
  ].sort((a, b) => a.offset - b.offset);

  const unknown: Json[] = [];
  const unknownExternal: Json[] = [];
  combined.forEach((rec, index) => {
    const end = rec.dataOffset ?? combined[index + 1]?.offset ?? registryOffset;
    const bytes = slice(data, rec.offset, end);
    const authority = authorityJson(serde((rec.internal ?? rec.external)!.authority));
    if (rec.internal) {
      const type = rec.internal.pluginType;
      const name = PluginType[type];
      if (name === undefined) {
        unknown.push(snakeKeys({ index, offset: rec.offset, authority, type, data: b64(bytes) }));
        return;
      }
      const [plugin] = getPluginSerializer().deserialize(bytes);
      // Keyed by the PluginType name, snake_cased like every key (e.g. `BubblegumV2` → `bubblegum_v2`).
      out.plugins[snakeCase(name)] = snakeKeys({ index, offset: rec.offset, authority, data: unwrapVariant(serde(plugin)) });
      derive(out, plugin, rec.internal);
      return;
    }
    const ext = rec.external!;
    const base: { [k: string]: Json } = { index, offset: rec.offset, authority, ...lifecycleChecks(ext) };
    const dataInfo = adapterData(data, ext);
    const typeName = ExternalPluginAdapterType[ext.pluginType];
    if (typeName === undefined) {
      const json: { [k: string]: Json } = { ...base, type: ext.pluginType, unknown_adapter_config: b64(bytes) };
      if (dataInfo) Object.assign(json, { data_offset: dataInfo.offset, data_len: dataInfo.len, data: b64(dataInfo.bytes) });
      unknownExternal.push(snakeKeys(json));
      return;
    }
    const [adapter] = getExternalPluginAdapterSerializer().deserialize(bytes);
    const json: { [k: string]: Json } = { ...base, type: typeName, adapter_config: unwrapVariant(serde(adapter)) };
    if (dataInfo) {
      const inner = adapter.fields[0] as { schema?: number };
      // Rust picks the adapter's schema; Oracle (and adapters without one) are treated as Binary.
      const schema =
        adapter.__kind === 'Oracle' || typeof inner.schema !== 'number' ? 'Binary' : (ExternalPluginAdapterSchema[inner.schema] ?? 'Binary');
      Object.assign(json, { data_offset: dataInfo.offset, data_len: dataInfo.len, data: adapterDataJson(schema, dataInfo.bytes) });
    }
    out.externalPlugins.push(snakeKeys(transformAuthorities(json)));
  });
  out.unknownPlugins = unknown.length ? unknown : null;
  out.unknownExternalPlugins = unknownExternal.length ? unknownExternal : null;
  return out;
}

function numOrNull(o: Option<bigint>): number | null {
  const v = opt(o);
  return v === null ? null : Number(v);
}

function adapterData(data: Uint8Array, r: ExternalRecord): { offset: number; len: number; bytes: Uint8Array } | null {
  const off = opt(r.dataOffset);
  const len = opt(r.dataLen);
  if (off === null || len === null) return null;
  return { offset: Number(off), len: Number(len), bytes: slice(data, Number(off), Number(off) + Number(len)) };
}

const EVENT_KEYS: Record<number, string> = {
  [HookableLifecycleEvent.Create]: 'create',
  [HookableLifecycleEvent.Update]: 'update',
  [HookableLifecycleEvent.Transfer]: 'transfer',
  [HookableLifecycleEvent.Burn]: 'burn',
};

/** `lifecycle_checks` (known events, empty lists omitted) and `unknown_lifecycle_checks`, as the Rust indexer does. */
function lifecycleChecks(r: ExternalRecord): { [k: string]: Json } {
  const checks = opt(r.lifecycleChecks);
  if (!checks) return {};
  const known: { [k: string]: Json } = {};
  const unknown: Json[] = [];
  for (const [event, { flags }] of checks) {
    const results: Json[] = [];
    if (flags & 1) results.push('CanListen');
    if (flags & 2) results.push('CanApprove');
    if (flags & 4) results.push('CanReject');
    const key = EVENT_KEYS[event];
    if (key === undefined) unknown.push([event, results]);
    else if (results.length) known[key] = results;
    else delete known[key];
  }
  const out: { [k: string]: Json } = {};
  if (Object.keys(known).length) out.lifecycle_checks = known;
  if (unknown.length) out.unknown_lifecycle_checks = unknown;
  return out;
}

/** Royalty, frozen and transfer delegate, derived from the plugins the way DAS derives them. */
function derive(out: CoreDerived, plugin: Plugin, record: InternalRecord): void {
  if (plugin.__kind === 'Royalties') {
    const r = plugin.fields[0];
    out.royalty = { basisPoints: r.basisPoints, creators: r.creators.map((c) => ({ address: c.address, percentage: c.percentage })) };
  } else if (plugin.__kind === 'FreezeDelegate') {
    out.frozen = plugin.fields[0].frozen;
  } else if (plugin.__kind === 'TransferDelegate') {
    out.transferDelegate = authorityJson(serde(record.authority)) as unknown as CoreAuthority;
  }
}
