/**
 * Wallet balances tied to the DAS index, on the reference's recorded DAS inputs (test/fixtures/das): token names
 * and symbols from the mints' Token Metadata accounts and Token-2022 tokenMetadata extensions (registry values
 * winning field by field), and `showNfts` listing what getAssetsByOwner lists — Token Metadata NFTs, compressed
 * NFTs with their collection — and nothing the wallet does not own. Every expected value is read from the
 * fixtures (reference snapshots, raw account bytes, recorded transactions), never from our own output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, callRpc, DAS_DIR, expectedOf, loadCases, type DasCase } from '../das/harness.js';
import { replayInto } from '../../src/ingest/replay.js';
import { createReplaySource } from '../../src/sources/replay.js';
import { parseBubblegumTransaction } from '../../src/parsers/bubblegum/index.js';

type Asset = {
  id: string;
  interface: string;
  burnt: boolean;
  content: { json_uri: string; metadata: { name: string; symbol: string } };
  compression: { compressed: boolean };
  grouping: { group_key: string; group_value: string }[];
  ownership: { owner: string; ownership_model: string };
};
type Nft = { mint: string; compressed: boolean; name: string | null; imageUri: string | null; collectionName: string | null; collectionAddress: string | null };
type Balance = { mint: string; balance: number; decimals: number; tokenProgram: string; symbol: string | null; name: string | null; pricePerToken: number | null; usdValue: number | null; logoUri: string | null };
type Body = { balances: Balance[]; totalUsdValue: number; pagination: { page: number; limit: number; hasMore: boolean }; nfts?: Nft[] };

const CASES = [
  'search_asset_with_token_type_all_scenario_1', // pNFTs of 2oerfx…
  'search_asset_with_token_type_regular_nft', // another pNFT of 2oerfx…
  'search_asset_with_token_type_fungible', // Silly Dragon (Token Metadata fungible) held by 2oerfx…
  'mint_v2_to_collection_transfer_v2', // compressed NFT in an MPL Core collection, minted to one wallet, sent to another
  'mint_v2_to_collection_burn_v2', // compressed NFT burnt by its owner
  'fungible_token_get_asset_scenario_1', // USDC mint + Token Metadata account
  'token_extensions_get_asset_scenario_3', // PYUSD: Token-2022 mint with a tokenMetadata extension
  'token_extensions_get_asset_scenario_1', // DAS Dev: Token-2022, 0 decimals, supply 1, tokenMetadata → FungibleToken
];

const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
const DAS_DEV = 'BPU5vrAHafRuVeK33CgfdwTKSsmC4p6t3aqyav3cFF7Y';
/** A wallet of our own holding the three mints above (the fixtures record no holder of them). */
const HOLDER = bs58.encode(Buffer.alloc(32, 7));

let ta: TestApp;
let cases: Map<string, DasCase>;
let dir: string;

const caseOf = (id: string) => cases.get(id)!;
/** The reference's recorded assets of a case (getAsset result or AssetList items). */
function recorded(id: string): Asset[] {
  const e = expectedOf(caseOf(id)) as Asset | { items: Asset[] };
  return 'items' in e ? e.items : [e];
}
/** Raw bytes of a recorded account. */
function accountBytes(caseId: string, pubkey: string): Buffer {
  const acc = JSON.parse(readFileSync(join(DAS_DIR, 'decoded', 'accounts', caseId, `${pubkey}.json`), 'utf8')) as { data: string | [string, string] };
  return Buffer.from(Array.isArray(acc.data) ? acc.data[0] : acc.data, 'base64');
}
/** Decimals of a recorded SPL / Token-2022 mint (byte 44 of the base mint layout). */
const mintDecimals = (caseId: string, mint: string) => accountBytes(caseId, mint)[44];
/** Byte-wise id order, as the reference sorts asset ids. */
const cmpIds = (a: string, b: string) => Buffer.compare(Buffer.from(bs58.decode(a)), Buffer.from(bs58.decode(b)));

/** A plain 165-byte SPL / Token-2022 token account (initialized, no delegate, not native, no close authority). */
function tokenAccountFile(address: string, program: string, mint: string, owner: string, amount: bigint, slot: number): string {
  const data = Buffer.alloc(165);
  Buffer.from(bs58.decode(mint)).copy(data, 0);
  Buffer.from(bs58.decode(owner)).copy(data, 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = 1;
  const file = join(dir, `${address}.json`);
  writeFileSync(file, JSON.stringify({ pubkey: address, lamports: 2_039_280, owner: program, data: [data.toString('base64'), 'base64'], slot }));
  return file;
}

async function get(url: string): Promise<{ status: number; body: Body & { error?: string; code?: number; details?: string } }> {
  const r = await ta.app.inject({ method: 'GET', url, headers: { 'x-api-key': ta.key } });
  return { status: r.statusCode, body: r.json() };
}
async function balances(wallet: string, qs = ''): Promise<Body> {
  const r = await get(`/v1/wallet/${wallet}/balances${qs}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

beforeAll(async () => {
  ta = await createTestApp();
  cases = new Map(loadCases().map((c) => [c.id, c]));
  for (const id of CASES) await applyInputs(ta, caseOf(id).inputs);
  dir = mkdtempSync(join(tmpdir(), 'wallet-das-'));
  const slot = 400_000_000;
  await replayInto(ta.t.db, [
    tokenAccountFile(bs58.encode(Buffer.alloc(32, 11)), TOKEN, USDC, HOLDER, 1_500_000n, slot),
    tokenAccountFile(bs58.encode(Buffer.alloc(32, 12)), TOKEN_2022, PYUSD, HOLDER, 2_000_000n, slot),
    tokenAccountFile(bs58.encode(Buffer.alloc(32, 13)), TOKEN_2022, DAS_DEV, HOLDER, 1n, slot),
  ]);
}, 120_000);
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await ta?.close();
});

describe('balances: token names and symbols from on-chain metadata', () => {
  it('a Token Metadata fungible: name/symbol of its metadata account, amount and decimals of its accounts', async () => {
    const silly = recorded('search_asset_with_token_type_fungible')[0];
    const owner = '2oerfxddTpK5hWAmCMYB6fr9WvNrjEH54CHCWK8sAq7g';
    const fixture = 'search_asset_with_token_type_fungible';
    const tokenAccount = caseOf(fixture).inputs.flat().map((i) => i.decoded.split('/').pop()!.replace('.json', '')).find((k) => k !== silly.id && accountBytes(fixture, k).length === 165)!;
    const raw = accountBytes(fixture, tokenAccount);
    expect(bs58.encode(raw.subarray(32, 64))).toBe(owner);
    const decimals = mintDecimals(fixture, silly.id);
    const body = await balances(owner, '?showNative=false');
    expect(body.balances).toEqual([
      {
        mint: silly.id,
        balance: Number(raw.readBigUInt64LE(64)) / 10 ** decimals,
        decimals,
        tokenProgram: 'spl-token',
        symbol: silly.content.metadata.symbol,
        name: silly.content.metadata.name,
        pricePerToken: null,
        usdValue: null,
        logoUri: null, // no logo in the registry, and the off-chain JSON is not fetched
      },
    ]);
  });

  it('Token Metadata and Token-2022 tokenMetadata names; a 0-decimal supply-1 FungibleToken stays a token', async () => {
    const usdc = recorded('fungible_token_get_asset_scenario_1')[0];
    const pyusd = recorded('token_extensions_get_asset_scenario_3')[0];
    const dev = recorded('token_extensions_get_asset_scenario_1')[0];
    expect(dev.interface).toBe('FungibleToken');
    const body = await balances(HOLDER, '?showNative=false&showNfts=true');
    const by = new Map(body.balances.map((b) => [b.mint, b]));
    expect([...by.keys()].sort()).toEqual([USDC, PYUSD, DAS_DEV].sort());
    expect(by.get(USDC)).toMatchObject({ tokenProgram: 'spl-token', decimals: mintDecimals('fungible_token_get_asset_scenario_1', USDC), balance: 1.5, name: usdc.content.metadata.name, symbol: usdc.content.metadata.symbol });
    expect(by.get(PYUSD)).toMatchObject({ tokenProgram: 'token-2022', decimals: mintDecimals('token_extensions_get_asset_scenario_3', PYUSD), balance: 2, name: pyusd.content.metadata.name, symbol: pyusd.content.metadata.symbol });
    expect(by.get(DAS_DEV)).toMatchObject({ tokenProgram: 'token-2022', decimals: 0, balance: 1, name: dev.content.metadata.name, symbol: dev.content.metadata.symbol });
    expect(body.nfts).toEqual([]);
  });

  it('registry values win field by field; on-chain metadata fills the rest', async () => {
    const usdc = recorded('fungible_token_get_asset_scenario_1')[0];
    const pyusd = recorded('token_extensions_get_asset_scenario_3')[0];
    ta.tokens.set(USDC, { name: 'Registry Dollar', logoUri: 'https://logos.test/usdc.png', priceUsd: 1 });
    ta.tokens.set(PYUSD, { priceUsd: 1 });
    try {
      const body = await balances(HOLDER, '?showNative=false');
      // priced before unpriced, by USD value: PYUSD 2 × 1, USDC 1.5 × 1, then DAS Dev
      expect(body.balances.map((b) => b.mint)).toEqual([PYUSD, USDC, DAS_DEV]);
      expect(body.balances[1]).toMatchObject({ name: 'Registry Dollar', symbol: usdc.content.metadata.symbol, logoUri: 'https://logos.test/usdc.png', pricePerToken: 1, usdValue: 1.5 });
      expect(body.balances[0]).toMatchObject({ name: pyusd.content.metadata.name, symbol: pyusd.content.metadata.symbol, logoUri: null, usdValue: 2 });
      expect(body.totalUsdValue).toBeCloseTo(3.5, 9);
      // names are looked up for the page shown; other pages are named the same way
      const p2 = await balances(HOLDER, '?showNative=false&limit=1&page=2');
      expect(p2.balances).toEqual([body.balances[1]]);
      expect(p2.pagination).toEqual({ page: 2, limit: 1, hasMore: true });
    } finally {
      ta.tokens.delete(USDC);
      ta.tokens.delete(PYUSD);
    }
  });
});

describe('balances: showNfts from the DAS index', () => {
  it('Token Metadata NFTs of a wallet: id-descending, names, collection address, never among the tokens', async () => {
    const owner = '2oerfxddTpK5hWAmCMYB6fr9WvNrjEH54CHCWK8sAq7g';
    const mine = new Map<string, Asset>();
    for (const id of ['search_asset_with_token_type_all_scenario_1', 'search_asset_with_token_type_regular_nft'])
      for (const a of recorded(id)) if (a.ownership.owner === owner && a.ownership.ownership_model === 'single' && !a.burnt) mine.set(a.id, a);
    expect(mine.size).toBe(3);
    const body = await balances(owner, '?showNfts=true');
    const want = [...mine.values()].sort((a, b) => cmpIds(b.id, a.id)).map((a) => {
      const col = a.grouping.find((g) => g.group_key === 'collection')!;
      return {
        mint: a.id,
        compressed: false,
        name: a.content.metadata.name,
        imageUri: null,
        // the collection's own metadata account is not among the recorded inputs: no name known
        collectionName: null,
        collectionAddress: col.group_value,
      };
    });
    expect(body.nfts).toEqual(want);
    for (const id of mine.keys()) expect(body.balances.map((b) => b.mint)).not.toContain(id);
    // the same set and order getAssetsByOwner gives
    const byOwner = (await callRpc(ta, 'getAssetsByOwner', { ownerAddress: owner })).result as { items: Asset[] };
    expect(body.nfts!.map((n) => n.mint)).toEqual(byOwner.items.map((a) => a.id));
  });

  it('a compressed NFT: compressed flag, its MPL Core collection name and address', async () => {
    const [cnft] = recorded('mint_v2_to_collection_transfer_v2');
    const col = cnft.grouping.find((g) => g.group_key === 'collection')!.group_value;
    // MPL Core CollectionV1: key u8, update authority (32), name (u32 length + UTF-8)
    const raw = accountBytes('mint_v2_to_collection_transfer_v2', col);
    const colName = raw.subarray(37, 37 + raw.readUInt32LE(33)).toString('utf8');
    const body = await balances(cnft.ownership.owner, '?showNfts=true');
    expect(body.nfts).toEqual([{ mint: cnft.id, compressed: true, name: cnft.content.metadata.name, imageUri: null, collectionName: colName, collectionAddress: col }]);
    expect(body.balances.map((b) => b.mint)).not.toContain(cnft.id);
  });

  it('not-owned and burnt NFTs are absent', async () => {
    const [cnft] = recorded('mint_v2_to_collection_transfer_v2');
    // the wallet the cNFT was minted to (recorded MintV2 transaction), which then transferred it away
    const firstOwners: string[] = [];
    const src = createReplaySource(caseOf('mint_v2_to_collection_transfer_v2').inputs.flat().map((i) => join(DAS_DIR, i.decoded)));
    for await (const item of src.items()) {
      if (item.kind !== 'block') continue;
      for (const tx of item.block.transactions)
        for (const e of parseBubblegumTransaction(tx)) if (e.kind !== 'parse.failed' && e.instruction === 'MintV2') firstOwners.push((e as { accounts: Record<string, string> }).accounts.leafOwner);
    }
    expect(firstOwners).toHaveLength(1);
    expect(firstOwners[0]).not.toBe(cnft.ownership.owner);
    expect((await balances(firstOwners[0], '?showNfts=true')).nfts).toEqual([]);
    const [burnt] = recorded('mint_v2_to_collection_burn_v2');
    expect(burnt.burnt).toBe(true);
    expect((await balances(burnt.ownership.owner, '?showNfts=true')).nfts).toEqual([]);
  });

  it('showNfts false or absent: no `nfts`; pages after the first: an empty list', async () => {
    const owner = '2oerfxddTpK5hWAmCMYB6fr9WvNrjEH54CHCWK8sAq7g';
    expect(await balances(owner)).not.toHaveProperty('nfts');
    expect(await balances(owner, '?showNfts=false')).not.toHaveProperty('nfts');
    const p2 = await balances(owner, '?showNfts=true&limit=1&page=2');
    expect(p2.nfts).toEqual([]);
  });

  for (const bad of ['maybe', 'yes', '2', 'TRUEISH']) {
    it(`showNfts=${bad} → 400 in the wallet error format`, async () => {
      const r = await get(`/v1/wallet/${HOLDER}/balances?showNfts=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(400);
      expect(typeof r.body.error).toBe('string');
      expect(`${r.body.error} ${r.body.details ?? ''}`).toMatch(/showNfts/);
    });
  }
  it('showNfts given twice → 400', async () => {
    const r = await get(`/v1/wallet/${HOLDER}/balances?showNfts=true&showNfts=false`);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(400);
  });
});
