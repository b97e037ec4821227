/**
 * Libreplex inscription accounts. The recorded DAS fixtures hold none, so the accounts here are encoded field by
 * field from the program source (state/inscription.rs) with its IDL discriminators.
 */
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { decodeAssetAccount } from '../../../src/parsers/asset-accounts.js';
import { INSCRIPTIONS_PROGRAM, decodeInscriptionAccount } from '../../../src/parsers/inscriptions/accounts.js';
import type { AccountUpdate } from '../../../src/core/model.js';

const key = (n: number): Buffer => Buffer.alloc(32, n);
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};
const str = (s: string): Buffer => Buffer.concat([u32(Buffer.byteLength(s)), Buffer.from(s)]);
const optStr = (s: string | null): Buffer => (s === null ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), str(s)]));

const INSCRIPTION = Buffer.from([100, 11, 151, 42, 228, 38, 69, 187]);
const INSCRIPTION_V3 = Buffer.from([232, 120, 205, 47, 153, 239, 229, 224]);
const SUMMARY = Buffer.from([189, 189, 190, 90, 73, 71, 253, 107]);

const update = (data: Buffer): AccountUpdate => ({
  pubkey: bs58.encode(key(9)),
  owner: INSCRIPTIONS_PROGRAM,
  lamports: 1n,
  data: new Uint8Array(data),
  executable: false,
  slot: 1,
  writeVersion: 0n,
});

describe('Libreplex inscriptions', () => {
  it('decodes a v1 Inscription (media type image/png, base64, validation hash)', () => {
    const data = Buffer.concat([
      INSCRIPTION,
      key(1), // authority
      key(2), // root (mint)
      Buffer.from([3]), // MediaType::Image
      str('png'),
      Buffer.from([1]), // EncodingType::Base64
      key(3), // inscription_data
      u64(42n),
      u32(1234),
      optStr('abc123'),
      Buffer.alloc(16), // spare space the program allocates
    ]);
    expect(decodeAssetAccount(update(data))).toEqual({
      kind: 'inscription',
      address: bs58.encode(key(9)),
      version: 1,
      authority: bs58.encode(key(1)),
      root: bs58.encode(key(2)),
      inscriptionData: bs58.encode(key(3)),
      order: 42n,
      size: 1234,
      contentType: 'image/png',
      encoding: 'base64',
      validationHash: 'abc123',
    });
  });

  it('renders every MediaType like MediaType::convert_to_string', () => {
    const cases: [Buffer, string][] = [
      [Buffer.from([0]), ''],
      [Buffer.concat([Buffer.from([1]), str('mpeg')]), 'audio/mpeg'],
      [Buffer.concat([Buffer.from([2]), str('json')]), 'application/json'],
      [Buffer.concat([Buffer.from([4]), str('mp4')]), 'video/mp4'],
      [Buffer.concat([Buffer.from([5]), str('plain')]), 'text/plain'],
      [Buffer.concat([Buffer.from([6]), str('animalia/hedgehog')]), 'animalia/hedgehog'],
      [Buffer.from([7]), 'application/erc721'],
    ];
    for (const [media, expected] of cases) {
      const data = Buffer.concat([INSCRIPTION, key(1), key(2), media, Buffer.from([0]), key(3), u64(0n), u32(0), optStr(null)]);
      expect(decodeInscriptionAccount('x', new Uint8Array(data))).toMatchObject({ contentType: expected, encoding: '', validationHash: null });
    }
  });

  it('decodes an InscriptionV3', () => {
    const data = Buffer.concat([INSCRIPTION_V3, key(1), key(2), key(3), u64(7n), u32(99), str('text/plain'), str('base64'), optStr(null)]);
    expect(decodeInscriptionAccount('x', new Uint8Array(data))).toMatchObject({
      kind: 'inscription',
      version: 3,
      root: bs58.encode(key(2)),
      inscriptionData: bs58.encode(key(3)),
      order: 7n,
      size: 99,
      contentType: 'text/plain',
      encoding: 'base64',
      validationHash: null,
    });
  });

  it('treats headerless accounts as inscription data and skips bookkeeping accounts', () => {
    const content = Buffer.from('{"p":"spl-20","op":"mint","tick":"helius","amt":"1000"}');
    expect(decodeAssetAccount(update(content))).toEqual({ kind: 'inscription.data', address: bs58.encode(key(9)), data: content.toString('base64') });
    expect(decodeAssetAccount(update(Buffer.concat([SUMMARY, Buffer.alloc(90)])))).toBeNull();
  });

  it('reports truncated or malformed inscriptions as parse.failed', () => {
    const good = Buffer.concat([INSCRIPTION, key(1), key(2), Buffer.from([3]), str('png'), Buffer.from([1]), key(3), u64(1n), u32(1), optStr('h')]);
    for (let n = 9; n < good.length; n += 5) {
      expect(decodeInscriptionAccount('x', new Uint8Array(good.subarray(0, n)))).toMatchObject({ kind: 'parse.failed', owner: INSCRIPTIONS_PROGRAM });
    }
    const badMedia = Buffer.from(good);
    badMedia[8 + 64] = 42;
    expect(decodeInscriptionAccount('x', new Uint8Array(badMedia))).toMatchObject({ kind: 'parse.failed', reason: 'unknown media type 42' });
  });
});
