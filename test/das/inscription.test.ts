/**
 * showInscription over HTTP, in the DAS reference's field names and formats. The recorded reference fixtures of
 * this repository hold no inscription account, so the account is laid out field by field (InscriptionV3, from the
 * program source) with the values of the reference's `get_asset_with_show_inscription_scenario_1` answer, a real
 * mainnet inscription; the expected object is that recorded answer's `inscription` (its `root` set to the asset
 * the account is attached to here).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { resetChainTables } from '../helpers/db.js';
import { applyInputs, callRpc, loadCases } from './harness.js';
import { replayInto } from '../../src/ingest/replay.js';
import { INSCRIPTIONS_PROGRAM } from '../../src/parsers/inscriptions/accounts.js';

const NFT = loadCases().find((c) => c.id === 'reg_get_asset')!;
const ASSET = (NFT.params as { id: string }).id;

/** The `inscription` of the reference's recorded answer (get_asset_with_show_inscription_scenario_1). */
const RECORDED = {
  authority: '11111111111111111111111111111111',
  root: '9FkS3kZV4MoGps14tUSp7iVnizGbxcK4bDEhSoF5oYAZ',
  inscription_data: '4Q18N6XrfJHgDbRTaHJR328jN9dixCLQAQhDsTsRzg3v',
  content: 'image/net/riupjyro3lsvkb_listajh0jdsrsjmnyhusxvznycqw',
  encoding: 'base64',
  order: 1733,
  size: 202,
  validation_hash: '7fa0041483b92f5a0448067ecef9beca2192b13bfe86fbd53a0024e84fcea652',
};

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const str = (s: string) => Buffer.concat([u32(Buffer.byteLength(s)), Buffer.from(s)]);
const optStr = (s: string | null) => (s === null ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), str(s)]));

/** InscriptionV3: discriminator, authority, root, inscription_data, order u64, size u32, content_type, encoding, validation_hash. */
function inscriptionV3(root: string, validationHash: string | null): Buffer {
  const order = Buffer.alloc(8);
  order.writeBigUInt64LE(BigInt(RECORDED.order));
  return Buffer.concat([
    Buffer.from([232, 120, 205, 47, 153, 239, 229, 224]),
    bs58.decode(RECORDED.authority),
    bs58.decode(root),
    bs58.decode(RECORDED.inscription_data),
    order,
    u32(RECORDED.size),
    str(RECORDED.content),
    str(RECORDED.encoding),
    optStr(validationHash),
  ]);
}

/** The legacy v1 Inscription layout (media type and encoding as enums before inscription_data). */
function inscriptionV1(root: string): Buffer {
  const order = Buffer.alloc(8);
  order.writeBigUInt64LE(7n);
  return Buffer.concat([
    Buffer.from([100, 11, 151, 42, 228, 38, 69, 187]),
    bs58.decode(RECORDED.authority),
    bs58.decode(root),
    Buffer.from([3]),
    str('png'),
    Buffer.from([1]),
    bs58.decode(RECORDED.inscription_data),
    order,
    u32(10),
    optStr(null),
  ]);
}

let ta: TestApp;
let dir: string;
beforeAll(async () => {
  ta = await createTestApp();
  dir = mkdtempSync(join(tmpdir(), 'solgate-inscription-'));
});
afterAll(async () => {
  await ta?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Replays one account update (the decoded-fixture JSON form) at `slot`. */
async function putAccount(pubkey: string, data: Buffer, slot: number): Promise<void> {
  const file = join(dir, `${pubkey}-${slot}.json`);
  writeFileSync(file, JSON.stringify({ pubkey, lamports: 2_000_000, owner: INSCRIPTIONS_PROGRAM, executable: false, rentEpoch: 0, data: [data.toString('base64'), 'base64'], dataLen: data.length, writeVersion: 0, slot, isStartup: false }));
  await replayInto(ta.t.db, [file]);
}

const ACCOUNT = 'DarH4z6SmdVzPrt8krAygpLodhdjvNAstP3taj2tysN2';

describe('showInscription', () => {
  it('renders an InscriptionV3 account under the reference field names, and nothing else (no spl20)', async () => {
    await resetChainTables(ta.t.db);
    await applyInputs(ta, NFT.inputs);
    await putAccount(ACCOUNT, inscriptionV3(ASSET, RECORDED.validation_hash), 10);
    const withIt = (await callRpc(ta, 'getAsset', { id: ASSET, displayOptions: { showInscription: true } })).result as Record<string, unknown>;
    expect(withIt.inscription).toEqual({ ...RECORDED, root: ASSET });
    expect(withIt).not.toHaveProperty('spl20');
    const without = (await callRpc(ta, 'getAsset', { id: ASSET })).result as Record<string, unknown>;
    expect(without).not.toHaveProperty('inscription');
    const batch = (await callRpc(ta, 'getAssetBatch', { ids: [ASSET], options: { showInscription: true } })).result as Record<string, unknown>[];
    expect(batch[0].inscription).toEqual({ ...RECORDED, root: ASSET });
  });

  it('an absent validation hash is null; a later account update replaces the inscription', async () => {
    await resetChainTables(ta.t.db);
    await applyInputs(ta, NFT.inputs);
    await putAccount(ACCOUNT, inscriptionV3(ASSET, null), 10);
    const r = (await callRpc(ta, 'getAsset', { id: ASSET, options: { showInscription: true } })).result as { inscription: Record<string, unknown> };
    expect(r.inscription.validation_hash).toBeNull();
    await putAccount(ACCOUNT, inscriptionV3(ASSET, RECORDED.validation_hash), 11);
    const r2 = (await callRpc(ta, 'getAsset', { id: ASSET, options: { showInscription: true } })).result as { inscription: Record<string, unknown> };
    expect(r2.inscription.validation_hash).toBe(RECORDED.validation_hash);
  });

  it('a legacy v1 Inscription account is not rendered (the reference parses only InscriptionV3)', async () => {
    await resetChainTables(ta.t.db);
    await applyInputs(ta, NFT.inputs);
    await putAccount(ACCOUNT, inscriptionV1(ASSET), 10);
    const r = (await callRpc(ta, 'getAsset', { id: ASSET, options: { showInscription: true } })).result as Record<string, unknown>;
    expect(r).not.toHaveProperty('inscription');
  });
});
