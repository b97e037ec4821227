/**
 * The account-filter offsets of `sources/group-state.ts` against recorded mainnet accounts (the DAS reference
 * fixtures): each Token Metadata `Metadata` account has its update authority, each creator and its collection key at
 * the offsets the filters use, and each MPL Core asset its `Collection(key)` update authority at 33.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { base58ToBytes } from '../../src/core/encoding.js';
import { decodeAssetAccount } from '../../src/parsers/asset-accounts.js';
import {
  CORE_UPDATE_AUTHORITY_OFFSET, TM_COLLECTION_KEY_OFFSETS, TM_CREATOR_OFFSETS, TM_UPDATE_AUTHORITY_OFFSET,
} from '../../src/sources/group-state.js';
import { DAS_DIR } from '../das/harness.js';

interface Recorded { pubkey: string; owner: string; lamports: number; data: [string, string]; slot: number }

function* recordedAccounts(): Generator<{ pubkey: string; owner: string; data: Uint8Array }> {
  const root = join(DAS_DIR, 'decoded', 'accounts');
  for (const dir of readdirSync(root)) {
    for (const f of readdirSync(join(root, dir))) {
      const a = JSON.parse(readFileSync(join(root, dir, f), 'utf8')) as Recorded;
      yield { pubkey: a.pubkey, owner: a.owner, data: new Uint8Array(Buffer.from(a.data[0], 'base64')) };
    }
  }
}

const at = (data: Uint8Array, offset: number, bytes: Uint8Array) => Buffer.from(data.subarray(offset, offset + bytes.length)).equals(Buffer.from(bytes));

describe('getProgramAccounts filter offsets on recorded accounts', () => {
  const decoded = [...recordedAccounts()].map((a) => ({ ...a, d: decodeAssetAccount({ ...a, lamports: 1n, executable: false, slot: 0, writeVersion: 0n } as never) }));

  it('Token Metadata: update authority at 1, creator i at 326 + 34·i, the collection key at one of 21 offsets', () => {
    const metas = decoded.filter((a) => a.d?.kind === 'tm.metadata');
    expect(metas.length).toBeGreaterThan(10);
    expect(TM_COLLECTION_KEY_OFFSETS).toHaveLength(21);
    let collections = 0;
    for (const { data, d } of metas) {
      if (d?.kind !== 'tm.metadata') continue;
      expect(at(data, TM_UPDATE_AUTHORITY_OFFSET, base58ToBytes(d.updateAuthority))).toBe(true);
      (d.creators ?? []).forEach((c, i) => expect(at(data, TM_CREATOR_OFFSETS[i], base58ToBytes(c.address)), `${d.address} creator ${i}`).toBe(true));
      if (d.collection) {
        collections++;
        const key = base58ToBytes(d.collection.key);
        expect(TM_COLLECTION_KEY_OFFSETS.filter((o) => at(data, o, key)), d.address).toHaveLength(1);
      }
    }
    expect(collections).toBeGreaterThan(3);
  });

  it('MPL Core: an asset in a collection has [2, collection] at 33, one with an address authority [1, address]', () => {
    const assets = decoded.filter((a) => a.d?.kind === 'core.asset');
    expect(assets.length).toBeGreaterThan(3);
    for (const { data, d } of assets) {
      if (d?.kind !== 'core.asset' || !d.updateAuthority.address) continue;
      const tag = d.updateAuthority.type === 'Collection' ? 2 : 1;
      expect(at(data, CORE_UPDATE_AUTHORITY_OFFSET, Uint8Array.from([tag, ...base58ToBytes(d.updateAuthority.address)])), d.address).toBe(true);
    }
    for (const { data, d } of decoded.filter((a) => a.d?.kind === 'core.collection')) {
      if (d?.kind === 'core.collection') expect(data[0]).toBe(5), expect(at(data, 1, base58ToBytes(d.updateAuthority))).toBe(true);
    }
  });
});
