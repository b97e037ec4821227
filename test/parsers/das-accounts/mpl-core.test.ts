/**
 * MPL Core accounts against upstream DAS outputs for the same recorded accounts: plugin JSON (`plugins`,
 * `external_plugins`, `unknown_*`), `mpl_core_info`, name/uri, royalty, creators, ownership and grouping.
 */
import { describe, expect, it } from 'vitest';
import { decodeAssetAccount } from '../../../src/parsers/asset-accounts.js';
import type { CoreAssetAccount, CoreCollectionAccount } from '../../../src/parsers/asset-account-types.js';
import { decodeMplCoreAccount } from '../../../src/parsers/mpl-core/accounts.js';
import { adapterDataJson, snakeCase } from '../../../src/parsers/mpl-core/das-json.js';
import { caseAccounts, expectedAssets, expectedOf, loadCases } from './fixtures.js';

type Core = CoreAssetAccount | CoreCollectionAccount;
/** An upstream DAS asset object (shape checked field by field below). */
type Asset = Record<string, any>;

const pairs: [string, Core, Asset][] = [];
for (const c of loadCases()) {
  const decoded = new Map<string, Core>();
  for (const a of caseAccounts(c)) {
    const r = decodeAssetAccount(a);
    if (r?.kind === 'core.asset' || r?.kind === 'core.collection') decoded.set(r.address, r);
  }
  for (const asset of expectedAssets(expectedOf(c))) {
    const d = decoded.get(asset.id as string);
    if (d && String(asset.interface).startsWith('MplCore')) pairs.push([`${c.id} ${asset.id as string}`, d, asset]);
  }
}

describe('MPL Core accounts vs upstream DAS outputs', () => {
  it('covers the recorded Core cases', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(18);
  });

  it.each(pairs)('%s', (_name, d, asset) => {
    expect(d.kind).toBe(asset.interface === 'MplCoreCollection' ? 'core.collection' : 'core.asset');
    // Plugin JSON is what the API serves verbatim.
    expect(d.plugins).toEqual(asset.plugins);
    expect(d.externalPlugins).toEqual(asset.external_plugins);
    expect(d.unknownPlugins).toEqual(asset.unknown_plugins ?? null);
    expect(d.unknownExternalPlugins).toEqual(asset.unknown_external_plugins ?? null);
    if (d.kind === 'core.collection') {
      expect({ num_minted: d.numMinted, current_size: d.currentSize }).toEqual({
        num_minted: asset.mpl_core_info.num_minted,
        current_size: asset.mpl_core_info.current_size,
      });
    }
    expect(d.name).toBe(asset.content.metadata.name);
    expect(d.uri).toBe(asset.content.json_uri);
    expect(d.royalty?.basisPoints ?? 0).toBe(asset.royalty.basis_points);
    expect((d.royalty?.creators ?? []).map((c) => ({ address: c.address, share: c.percentage, verified: true }))).toEqual(asset.creators);
    expect(d.frozen).toBe(asset.ownership.frozen);
    if (d.kind === 'core.asset') {
      expect(d.owner).toBe(asset.ownership.owner);
      const collection = d.updateAuthority.type === 'Collection' ? [d.updateAuthority.address] : [];
      expect(asset.grouping.map((g: Asset) => g.group_value)).toEqual(collection);
      expect(asset.mutable).toBe(d.updateAuthority.type !== 'None');
      if (d.transferDelegate?.type === 'Owner') expect(asset.ownership.delegate).toBe(d.owner);
      if (d.transferDelegate === null) expect(asset.ownership.delegated).toBe(false);
    } else {
      expect(asset.authorities[0].address).toBe(d.updateAuthority);
    }
  });

  it('renders an asset with no plugins with empty plugin data', () => {
    const [, d] = pairs.find(([, x]) => Object.keys(x.plugins).length === 0 && x.externalPlugins.length === 0)!;
    expect(d.royalty).toBeNull();
    expect(d.frozen).toBe(false);
  });

  it('keeps unknown plugin types as base64 with their registry index, offset and authority', () => {
    // An asset with one Edition plugin (type 9 at offset 119); rewrite the registry's type byte to an unknown 200.
    const account = caseAccounts(loadCases().find((c) => c.id === 'mpl_core_get_asset_with_edition')!)[0]!;
    const bytes = account.data.slice();
    // Base AssetV1 = key 1 + owner 32 + update authority 33 + name (4+10) + uri (4+25) + seq None 1 = 110 bytes,
    // then PluginHeaderV1 {key u8, plugin_registry_offset u64}.
    const registryOffset = Number(new DataView(bytes.buffer).getBigUint64(111, true));
    expect(bytes[registryOffset + 5]).toBe(9); // key u8, vec len u32, then the record's type byte
    bytes[registryOffset + 5] = 200;
    const r = decodeMplCoreAccount(account.pubkey, bytes) as CoreAssetAccount;
    expect(r.kind).toBe('core.asset');
    expect(r.plugins).toEqual({});
    expect(r.unknownPlugins).toEqual([
      { index: 0, offset: 119, authority: { type: 'UpdateAuthority', address: null }, type: 200, data: Buffer.from(bytes.subarray(119, registryOffset)).toString('base64') },
    ]);
  });
});

describe('DAS JSON helpers', () => {
  it('snake_cases keys like heck', () => {
    expect(snakeCase('BubblegumV2')).toBe('bubblegum_v2');
    expect(snakeCase('PermanentFreezeDelegate')).toBe('permanent_freeze_delegate');
    expect(snakeCase('baseAddressConfig')).toBe('base_address_config');
    expect(snakeCase('HTTPServer')).toBe('http_server');
    expect(snakeCase('data_len')).toBe('data_len');
    expect(snakeCase('$schema')).toBe('schema');
    expect(snakeCase('some-key name')).toBe('some_key_name');
  });

  it('renders adapter data by schema (binary base64, json parsed, msgpack as json, fallbacks as strings)', () => {
    const hello = new TextEncoder().encode('Hello, world!');
    expect(adapterDataJson('Binary', hello)).toBe('SGVsbG8sIHdvcmxkIQ==');
    expect(adapterDataJson('Json', new TextEncoder().encode('{"a":1}'))).toEqual({ a: 1 });
    expect(adapterDataJson('Json', hello)).toBe('Hello, world!');
    // msgpack {"message":"Hello","n":7}
    const mp = Uint8Array.from([0x82, 0xa7, ...new TextEncoder().encode('message'), 0xa5, ...new TextEncoder().encode('Hello'), 0xa1, 0x6e, 0x07]);
    expect(adapterDataJson('MsgPack', mp)).toEqual({ message: 'Hello', n: 7 });
    // msgpack bin (not representable as JSON) falls back to base64
    expect(adapterDataJson('MsgPack', Uint8Array.from([0xc4, 0x01, 0x41]))).toBe('xAFB');
    expect(adapterDataJson('MsgPack', new Uint8Array())).toBe('');
  });
});
