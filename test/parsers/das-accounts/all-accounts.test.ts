import { describe, expect, it } from 'vitest';
import { ASSET_ACCOUNT_PROGRAMS, decodeAssetAccount } from '../../../src/parsers/asset-accounts.js';
import type { AccountUpdate } from '../../../src/core/model.js';
import { allAccounts } from './fixtures.js';

const accounts = allAccounts();
const assetAccounts = accounts.filter((a) => ASSET_ACCOUNT_PROGRAMS.has(a.account.owner));

/** JSON.stringify that fails on anything not plain JSON except the documented bigint fields. */
const stringifyChecked = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'bigint') return x.toString();
    if (x instanceof Uint8Array) throw new Error('raw bytes in output');
    if (typeof x === 'number' && !Number.isFinite(x)) throw new Error('non-finite number');
    return x;
  });

describe('decodeAssetAccount on every recorded DAS account', () => {
  it('has Token Metadata and MPL Core accounts to decode', () => {
    expect(assetAccounts.length).toBeGreaterThanOrEqual(50);
  });

  it.each(assetAccounts.map((a) => [`${a.folder}/${a.file}`, a.account] as const))('%s decodes without failure', (_name, account) => {
    const r = decodeAssetAccount(account);
    expect(r, 'known asset account kinds only').not.toBeNull();
    expect(r!.kind).not.toBe('parse.failed');
    expect(r!.address).toBe(account.pubkey);
    expect(() => stringifyChecked(r)).not.toThrow();
  });

  it('returns null for accounts of other programs', () => {
    const others = accounts.filter((a) => !ASSET_ACCOUNT_PROGRAMS.has(a.account.owner));
    expect(others.length).toBeGreaterThan(0);
    for (const a of others) expect(decodeAssetAccount(a.account)).toBeNull();
  });

  it('never throws on truncated or corrupted data (parse.failed or a value instead)', () => {
    for (const { account } of assetAccounts) {
      const lengths = [1, 2, 8, 33, 65, 70, 100, account.data.length - 1];
      for (const n of lengths) {
        if (n <= 0 || n >= account.data.length) continue;
        const cut: AccountUpdate = { ...account, data: account.data.subarray(0, n) };
        expect(() => decodeAssetAccount(cut)).not.toThrow();
      }
      for (let i = 0; i < account.data.length; i += 7) {
        const bytes = account.data.slice();
        bytes[i] = bytes[i]! ^ 0xff;
        const flipped: AccountUpdate = { ...account, data: bytes };
        expect(() => decodeAssetAccount(flipped)).not.toThrow();
      }
    }
  });

  it('reports a truncated metadata account as parse.failed', () => {
    const md = assetAccounts.find((a) => a.account.data[0] === 4)!.account;
    const r = decodeAssetAccount({ ...md, data: md.data.subarray(0, 40) });
    expect(r).toMatchObject({ kind: 'parse.failed', address: md.pubkey, owner: md.owner });
  });

  it('reports empty Token Metadata / Core accounts as closed (DAS marks the asset burnt)', () => {
    const md = assetAccounts.find((a) => a.account.data[0] === 4)!.account;
    expect(decodeAssetAccount({ ...md, data: new Uint8Array() })).toEqual({ kind: 'tm.closed', address: md.pubkey });
    const core = assetAccounts.find((a) => a.account.owner.startsWith('CoRE'))!.account;
    expect(decodeAssetAccount({ ...core, data: new Uint8Array() })).toEqual({ kind: 'core.closed', address: core.pubkey });
    expect(decodeAssetAccount({ ...core, data: new Uint8Array([0]) })).toEqual({ kind: 'core.closed', address: core.pubkey });
  });
});
