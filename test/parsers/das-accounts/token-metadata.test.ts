/**
 * Token Metadata accounts against upstream DAS outputs for the same recorded accounts: name, symbol, json_uri,
 * creators, royalty, token standard, mutability, edition nonce, collection grouping, update authority, and the
 * master edition / print edition numbers of getNftEditions. The account_updates cases apply their byte patch.
 */
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { decodeAssetAccount } from '../../../src/parsers/asset-accounts.js';
import type { AssetAccount, TmMetadataAccount } from '../../../src/parsers/asset-account-types.js';
import { decodeTokenMetadataAccount } from '../../../src/parsers/token-metadata/accounts.js';
import { dasText } from '../../../src/parsers/token-metadata/das-text.js';
import { caseAccounts, expectedAssets, expectedOf, loadCases, mutationsOf, type DasCase } from './fixtures.js';

/** An upstream DAS asset object (shape checked field by field below). */
type Asset = Record<string, any>;

/** Decodes a case's accounts after applying its accepted byte patches (`thenApplyAccountMutations`). */
function decodeCase(c: DasCase): AssetAccount[] {
  const patches = mutationsOf(c);
  return caseAccounts(c).flatMap((a) => {
    const patch = patches.get(a.pubkey);
    const data = a.data.slice();
    for (const p of patch ?? []) if (p.newValueHex) data.set(Buffer.from(p.newValueHex, 'hex'), p.range[0]);
    const r = decodeAssetAccount({ ...a, data });
    return r ? [r] : [];
  });
}

const pairs: [string, TmMetadataAccount, Asset][] = [];
for (const c of loadCases()) {
  const byMint = new Map<string, TmMetadataAccount>();
  for (const r of decodeCase(c)) if (r.kind === 'tm.metadata') byMint.set(r.mint, r);
  for (const asset of expectedAssets(expectedOf(c))) {
    const md = byMint.get(asset.id as string);
    if (md) pairs.push([`${c.id} ${asset.id as string}`, md, asset]);
  }
}

describe('Token Metadata accounts vs upstream DAS outputs', () => {
  it('covers the recorded NFT, pNFT and fungible cases', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(25);
    expect(new Set(pairs.map(([, , a]) => a.interface))).toEqual(new Set(['ProgrammableNFT', 'V1_NFT', 'FungibleToken']));
  });

  it.each(pairs)('%s', (_name, md, asset) => {
    expect(md.name).toBe(asset.content.metadata.name);
    expect(md.symbol).toBe(asset.content.metadata.symbol);
    expect(md.uri).toBe(asset.content.json_uri);
    expect(md.tokenStandard).toBe(asset.content.metadata.token_standard ?? null);
    expect(md.sellerFeeBasisPoints).toBe(asset.royalty.basis_points);
    expect(md.primarySaleHappened).toBe(asset.royalty.primary_sale_happened);
    expect(md.creators ?? []).toEqual(asset.creators);
    expect(md.isMutable).toBe(asset.mutable);
    if (asset.supply) expect(md.editionNonce).toBe(asset.supply.edition_nonce);
    expect(asset.authorities[0].address).toBe(md.updateAuthority);
    // DAS lists verified collections only (unverified ones need showUnverifiedCollections).
    const groups = (asset.grouping as Asset[]).filter((g) => g.group_key === 'collection').map((g) => g.group_value);
    expect(groups).toEqual(md.collection?.verified ? [md.collection.key] : []);
  });

  it('decodes the pNFT extras: programmable config rule set, no collection details or uses', () => {
    const [, md] = pairs.find(([, m]) => m.tokenStandard === 'ProgrammableNonFungible')!;
    expect(md.programmableConfig).toEqual({ version: 'V1', ruleSet: expect.any(String) });
    expect(md.collectionDetails).toBeNull();
    expect(md.uses).toBeNull();
  });
});

describe('editions vs upstream getNftEditions', () => {
  const c = loadCases().find((x) => x.method === 'getNftEditions')!;
  const expected = expectedOf(c) as Asset;
  const decoded = decodeCase(c);

  it('decodes the master edition supply and max supply', () => {
    const me = decoded.find((r) => r.address === expected.master_edition_address);
    expect(me).toMatchObject({ kind: 'tm.masterEdition', version: 2, supply: BigInt(expected.supply), maxSupply: BigInt(expected.max_supply) });
  });

  it('decodes each print edition with its parent and number', () => {
    for (const e of expected.editions as Asset[]) {
      const ed = decoded.find((r) => r.address === e.edition_address);
      expect(ed).toEqual({ kind: 'tm.edition', address: e.edition_address, parent: expected.master_edition_address, edition: BigInt(e.edition_number) });
    }
    for (const e of expected.editions as Asset[]) {
      const md = decoded.find((r) => r.kind === 'tm.metadata' && r.mint === e.mint_address) as TmMetadataAccount;
      expect(md.tokenStandard).toBe('NonFungibleEdition');
    }
  });
});

describe('Token Metadata edge cases', () => {
  const base = decodeCase(loadCases().find((x) => x.id === 'reg_get_asset')!).find((r) => r.kind === 'tm.metadata') as TmMetadataAccount;
  const raw = caseAccounts(loadCases().find((x) => x.id === 'reg_get_asset')!).find((a) => a.pubkey === base.address)!;

  it('keeps the on-chain name bytes and trims like DAS (Rust trim first, then NULs removed)', () => {
    expect(Buffer.from(base.rawName, 'base64').toString('utf8')).toMatch(/^Mad Lads #9964\0*$/);
    expect(dasText('  Foo \0\0')).toBe('Foo ');
    expect(dasText('\0Foo\0 ')).toBe('Foo');
    expect(dasText(' \u00a0Bar\t')).toBe('Bar');
  });

  it('falls back like Metadata::safe_deserialize when the optional tail is corrupt', () => {
    const data = raw.data.slice();
    // Point past the fixed head: name/symbol/uri/fee/creators/flags/nonce end before the token standard option.
    const full = decodeTokenMetadataAccount(raw.pubkey, data) as TmMetadataAccount;
    expect(full.tokenStandard).toBe('ProgrammableNonFungible');
    // An invalid TokenStandard value fails the full layout; the lenient path drops token standard, collection and
    // uses together (Rust: "if any of these deserializations fail, set all values to None").
    const tsAt = findTokenStandardOffset(data);
    expect([data[tsAt], data[tsAt + 1]]).toEqual([1, 4]); // Some(ProgrammableNonFungible)
    data[tsAt + 1] = 9;
    const lenient = decodeTokenMetadataAccount(raw.pubkey, data) as TmMetadataAccount;
    expect(lenient.kind).toBe('tm.metadata');
    expect(lenient.name).toBe(full.name);
    expect(lenient.tokenStandard).toBeNull();
    expect(lenient.collection).toBeNull();
    expect(lenient.uses).toBeNull();
    expect(lenient.creators).toEqual(full.creators);
  });

  it('decodes a pNFT TokenRecord built with the client layout', () => {
    // key 11, bump 254, state Locked, ruleSetRevision None, delegate Some(x), role Some(Staking), lockedTransfer None
    const delegate = Buffer.alloc(32, 7);
    const bytes = Buffer.concat([Buffer.from([11, 254, 1, 0, 1]), delegate, Buffer.from([1, 3, 0])]);
    const r = decodeTokenMetadataAccount('Rec1111111111111111111111111111111111111111', new Uint8Array(bytes));
    expect(r).toMatchObject({ kind: 'tm.tokenRecord', bump: 254, state: 'Locked', ruleSetRevision: null, delegateRole: 'Staking', lockedTransfer: null });
    expect((r as { delegate: string }).delegate).toBe(bs58.encode(delegate));
  });

  it('ignores account kinds DAS does not index and flags unknown keys', () => {
    expect(decodeTokenMetadataAccount('X', Uint8Array.from([7, ...new Uint8Array(40)]))).toBeNull(); // EditionMarker
    expect(decodeTokenMetadataAccount('X', Uint8Array.from([99]))).toMatchObject({ kind: 'parse.failed' });
    expect(decodeTokenMetadataAccount('X', Uint8Array.from([0, 0, 0]))).toBeNull(); // Uninitialized
  });
});

/** Offset of the token standard option in a metadata account (after the variable-length head). */
function findTokenStandardOffset(data: Uint8Array): number {
  const v = new DataView(data.buffer, data.byteOffset);
  let o = 65;
  for (let i = 0; i < 3; i++) o += 4 + v.getUint32(o, true);
  o += 2; // seller fee
  if (data[o++] === 1) o += 4 + v.getUint32(o, true) * 34; // creators
  o += 2; // primary sale, mutable
  o += data[o] === 1 ? 2 : 1; // edition nonce
  return o;
}
