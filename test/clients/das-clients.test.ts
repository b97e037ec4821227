/**
 * The official DAS clients against the real gateway on a loopback port: the Metaplex JS client (Umi + `dasApi()`,
 * in its default and Helius-compatible dialects) and `helius-sdk` v3 (`createHelius({ apiKey, baseUrl })`, which
 * sends every DAS call to `baseUrl?api-key=…`). The data is the reference's recorded inputs (a compressed NFT, Token
 * Metadata NFTs, MPL Core assets, a fungible token) replayed into one database, with cases chosen so that no two
 * share an owner, creator, authority or group (each list snapshot stays the whole answer); every expected value is
 * the reference's snapshot for that case (`expectedOf`) or derived from the raw fixture transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createUmi } from '@metaplex-foundation/umi-bundle-defaults';
import { publicKey } from '@metaplex-foundation/umi';
import { dasApi, type DasApiInterface } from '@metaplex-foundation/digital-asset-standard-api';
import { createHelius } from 'helius-sdk';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, callRpc, DAS_DIR, expectedOf, loadCases, type DasCase } from '../das/harness.js';
import { createReplaySource } from '../../src/sources/replay.js';
import { parseBubblegumTransaction } from '../../src/parsers/bubblegum/index.js';
import { verifyBuiltProof } from '../../src/proofs/verify.js';

const CASE_IDS = [
  'mint_transfer_transfer', // compressed NFT (Bubblegum v1)
  'asset_parsing', // Token Metadata NFT (programmable)
  'mpl_core_get_asset_with_edition', // MPL Core asset
  'mpl_core_get_assets_by_group', // MPL Core collection + assets
  'fungible_token_get_asset_scenario_1', // fungible token (USDC mint)
  'get_asset_by_owner_with_show_fungible', // Token Metadata NFT + fungible, lists by owner
  'get_asset_by_creator_with_show_fungible',
  'get_asset_by_authority_with_show_fungible',
  'reg_get_asset_by_group',
  'reg_search_assets',
  'get_nft_editions',
  'get_token_accounts_by_owner',
] as const;
type CaseId = (typeof CASE_IDS)[number];
/** A valid pubkey that no ingested case knows. */
const MISSING = 'BPU5vrAHafRuVeK33CgfdwTKSsmC4p6t3aqyav3cFF7Y';

const all = loadCases();
const cases = new Map(CASE_IDS.map((id) => [id, all.find((c) => c.id === id)!] as const));
const kase = (id: CaseId): DasCase => cases.get(id)!;
const params = (id: CaseId) => kase(id).params as Record<string, unknown>;
const expected = (id: CaseId) => expectedOf(kase(id)) as Record<string, unknown>;
const idOf = (id: CaseId) => params(id).id as string;
const CNFT = idOf('mint_transfer_transfer');
const GET_ASSET_CASES = ['mint_transfer_transfer', 'asset_parsing', 'mpl_core_get_asset_with_edition', 'fungible_token_get_asset_scenario_1'] as const;

/** From the raw fixture transactions: the cNFT's [signature, instruction] newest first, and each tree's last root. */
async function cnftFacts() {
  const sigs: { sig: string; ix: string; seq: bigint }[] = [];
  const roots = new Map<string, { seq: bigint; root: string }>();
  const files = kase('mint_transfer_transfer').inputs.flat().map((i) => join(DAS_DIR, i.decoded));
  for await (const item of createReplaySource(files).items()) {
    if (item.kind !== 'block') continue;
    for (const tx of item.block.transactions) {
      for (const e of parseBubblegumTransaction(tx)) {
        if (e.kind === 'parse.failed' || !e.changeLog) continue;
        const cl = e.changeLog;
        const cur = roots.get(cl.tree);
        if (!cur || cl.seq > cur.seq) roots.set(cl.tree, { seq: cl.seq, root: cl.path[cl.path.length - 1].node });
        if ('assetId' in e && e.assetId === CNFT) sigs.push({ sig: tx.signature, ix: e.instruction, seq: cl.seq });
      }
    }
  }
  return { signatures: sigs.sort((a, b) => (a.seq < b.seq ? 1 : -1)).map((s) => [s.sig, s.ix] as [string, string]), roots };
}

let ta: TestApp;
let base: string;
let facts: Awaited<ReturnType<typeof cnftFacts>>;

beforeAll(async () => {
  ta = await createTestApp();
  for (const c of cases.values()) await applyInputs(ta, c.inputs);
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ta.app.server.address() as AddressInfo).port}/`;
  facts = await cnftFacts();
}, 180_000);
afterAll(async () => ta?.close());

/** The proof checks shared by both clients: verified against the fixture's last root, leaf and tree as getAsset shows. */
function checkProof(p: { root: string; proof: string[]; node_index: number; leaf: string; tree_id: string; burnt?: boolean }) {
  const compression = expected('mint_transfer_transfer').compression as { asset_hash: string; tree: string; leaf_id: number };
  expect(p.tree_id).toBe(compression.tree);
  expect(p.leaf).toBe(compression.asset_hash);
  expect(p.root).toBe(facts.roots.get(compression.tree)?.root);
  expect(p.node_index).toBe(2 ** p.proof.length + compression.leaf_id);
  expect(verifyBuiltProof({ root: p.root, proof: p.proof, nodeIndex: p.node_index, leaf: p.leaf })).toBe(true);
  expect(p.burnt).toBe(false);
}

describe('the ingested cases answer as the reference over plain JSON-RPC (baseline for the client tests)', () => {
  for (const id of CASE_IDS) {
    it(`${id} (${kase(id).method})`, async () => {
      const r = await callRpc(ta, kase(id).method, kase(id).params);
      expect(r.error).toBeUndefined();
      expect(r.result).toEqual(expected(id));
    });
  }
});

for (const heliusCompatibility of [false, true]) {
  describe(`Metaplex DAS client (umi + dasApi({ heliusCompatibility: ${heliusCompatibility} }))`, () => {
    // The plugin's `Umi` augmentation targets a path NodeNext resolution does not see: type the decorated rpc here.
    const umi = () => createUmi(`${base}?api-key=${ta.key}`).use(dasApi({ heliusCompatibility })) as unknown as { rpc: DasApiInterface };

    it('getAsset: cNFT, Token Metadata NFT, MPL Core asset, fungible token', async () => {
      for (const id of GET_ASSET_CASES) expect(await umi().rpc.getAsset(publicKey(idOf(id))), id).toEqual(expected(id));
      const opts = await umi().rpc.getAsset({ assetId: publicKey(idOf('asset_parsing')), displayOptions: { showUnverifiedCollections: false } });
      expect(opts).toEqual(expected('asset_parsing'));
    });

    it('getAssets: aligned with the ids, null where unknown', async () => {
      const ids = [...GET_ASSET_CASES.map((id) => publicKey(idOf(id))), publicKey(MISSING)];
      expect(await umi().rpc.getAssets(ids)).toEqual([...GET_ASSET_CASES.map((id) => expected(id)), null]);
    });

    it('getAssetProof: verifies against the fixture’s last root', async () => {
      checkProof(await umi().rpc.getAssetProof(publicKey(CNFT)));
    });

    it('getAssetsByOwner', async () => {
      const p = params('get_asset_by_owner_with_show_fungible');
      expect(await umi().rpc.getAssetsByOwner({ owner: publicKey(p.ownerAddress as string), displayOptions: p.displayOptions as { showFungible: boolean } }))
        .toEqual(expected('get_asset_by_owner_with_show_fungible'));
    });

    it('getAssetsByGroup (Token Metadata and MPL Core collections)', async () => {
      for (const id of ['reg_get_asset_by_group', 'mpl_core_get_assets_by_group'] as const) {
        const p = params(id) as { groupKey: 'collection'; groupValue: string; sortBy: { sortBy: 'updated'; sortDirection: 'asc' }; page: number; limit: number };
        expect(await umi().rpc.getAssetsByGroup({ groupKey: p.groupKey, groupValue: p.groupValue, sortBy: p.sortBy, page: p.page, limit: p.limit }), id).toEqual(expected(id));
      }
    });

    it('getAssetsByCreator (the client requires onlyVerified; false is the reference default)', async () => {
      const p = params('get_asset_by_creator_with_show_fungible');
      expect(await umi().rpc.getAssetsByCreator({ creator: publicKey(p.creatorAddress as string), onlyVerified: false, displayOptions: p.displayOptions as { showFungible: boolean } }))
        .toEqual(expected('get_asset_by_creator_with_show_fungible'));
    });

    it('getAssetsByAuthority', async () => {
      const p = params('get_asset_by_authority_with_show_fungible');
      expect(await umi().rpc.getAssetsByAuthority({ authority: publicKey(p.authorityAddress as string), displayOptions: p.displayOptions as { showFungible: boolean } }))
        .toEqual(expected('get_asset_by_authority_with_show_fungible'));
    });

    it('searchAssets', async () => {
      const p = params('reg_search_assets');
      expect(await umi().rpc.searchAssets({ owner: publicKey(p.ownerAddress as string), page: p.page as number, limit: p.limit as number })).toEqual(expected('reg_search_assets'));
    });

    it('getAssetSignatures: by id, by tree + leaf index ascending, and paged by cursor', async () => {
      const want = facts.signatures;
      expect(want.map((w) => w[1])).toEqual(['Transfer', 'Transfer', 'MintV1']);
      expect(await umi().rpc.getAssetSignatures({ assetId: publicKey(CNFT) })).toMatchObject({ total: 3, limit: 1000, items: want });
      const c = expected('mint_transfer_transfer').compression as { tree: string; leaf_id: number };
      const asc = await umi().rpc.getAssetSignatures({ tree: publicKey(c.tree), leaf_index: c.leaf_id, sort_direction: 'asc' });
      expect(asc.items).toEqual([...want].reverse());
      const paged: unknown[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 5; i++) {
        const r = await umi().rpc.getAssetSignatures({ assetId: publicKey(CNFT), limit: 2, ...(cursor ? { cursor } : {}) });
        if (!r.items.length) break;
        paged.push(...r.items);
        cursor = (r.items[r.items.length - 1] as unknown as [string, string])[0];
      }
      expect(paged).toEqual(want);
    });

    it(`getNftEditions (sends ${heliusCompatibility ? 'mint' : 'mintAddress'})`, async () => {
      const p = params('get_nft_editions');
      expect(await umi().rpc.getNftEditions({ mintAddress: publicKey(p.mintAddress as string), limit: p.limit as number })).toEqual(expected('get_nft_editions'));
    });

    it(`getTokenAccounts (sends ${heliusCompatibility ? 'owner' : 'ownerAddress'})`, async () => {
      const p = params('get_token_accounts_by_owner');
      expect(await umi().rpc.getTokenAccounts({ ownerAddress: publicKey(p.ownerAddress as string) })).toEqual(expected('get_token_accounts_by_owner'));
    });
  });
}

describe('helius-sdk v3 (createHelius({ apiKey, baseUrl }))', () => {
  const helius = () => createHelius({ apiKey: ta.key, baseUrl: base });

  it('getAsset: cNFT, Token Metadata NFT, MPL Core asset, fungible token', async () => {
    for (const id of GET_ASSET_CASES) expect(await helius().getAsset({ id: idOf(id) }), id).toEqual(expected(id));
  });

  it('getAssetBatch: aligned with the ids, null where unknown', async () => {
    const ids = [...GET_ASSET_CASES.map((id) => idOf(id)), MISSING];
    expect(await helius().getAssetBatch({ ids })).toEqual([...GET_ASSET_CASES.map((id) => expected(id)), null]);
  });

  it('getAssetProof: verifies against the fixture’s last root', async () => {
    checkProof((await helius().getAssetProof({ id: CNFT })) as Parameters<typeof checkProof>[0]);
  });

  it('getAssetsByOwner', async () => {
    const p = params('get_asset_by_owner_with_show_fungible');
    expect(await helius().getAssetsByOwner({ ownerAddress: p.ownerAddress as string, displayOptions: p.displayOptions as { showFungible: boolean } }))
      .toEqual(expected('get_asset_by_owner_with_show_fungible'));
  });

  it('getAssetsByGroup (Token Metadata and MPL Core collections)', async () => {
    for (const id of ['reg_get_asset_by_group', 'mpl_core_get_assets_by_group'] as const) {
      const p = params(id) as { groupKey: string; groupValue: string; sortBy: { sortBy: 'updated'; sortDirection: 'asc' }; page: number; limit: number };
      expect(await helius().getAssetsByGroup(p), id).toEqual(expected(id));
    }
  });

  it('getAssetsByCreator / getAssetsByAuthority (options as the SDK sends them)', async () => {
    const c = params('get_asset_by_creator_with_show_fungible');
    expect(await helius().getAssetsByCreator({ creatorAddress: c.creatorAddress as string, options: c.displayOptions as { showFungible: boolean } }))
      .toEqual(expected('get_asset_by_creator_with_show_fungible'));
    const a = params('get_asset_by_authority_with_show_fungible');
    expect(await helius().getAssetsByAuthority({ authorityAddress: a.authorityAddress as string, options: a.displayOptions as { showFungible: boolean } }))
      .toEqual(expected('get_asset_by_authority_with_show_fungible'));
  });

  it('searchAssets', async () => {
    const p = params('reg_search_assets');
    expect(await helius().searchAssets({ ownerAddress: p.ownerAddress as string, page: p.page as number, limit: p.limit as number })).toEqual(expected('reg_search_assets'));
  });

  it('getSignaturesForAsset: page mode (the SDK type requires `page`) and the before/after bounds', async () => {
    const want = facts.signatures;
    expect(await helius().getSignaturesForAsset({ id: CNFT, page: 1 })).toEqual({ total: 3, limit: 1000, page: 1, items: want, last_indexed_slot: expect.any(Number) });
    expect((await helius().getSignaturesForAsset({ id: CNFT, page: 2, limit: 2 })).items).toEqual([want[2]]);
    // `page` is required by the SDK's type but exclusive with before/after on the wire (the reference's rule).
    const older = await helius().getSignaturesForAsset({ id: CNFT, before: want[0][0] } as unknown as { id: string; page: number });
    expect(older).toMatchObject({ total: 2, before: want[0][0], items: [want[1], want[2]] });
    await expect(helius().getSignaturesForAsset({ id: CNFT, page: 1, before: want[0][0] })).rejects.toThrow('Pagination Error. Only one pagination parameter supported per query.');
  });

  it('getTokenAccounts (owner)', async () => {
    const p = params('get_token_accounts_by_owner');
    expect(await helius().getTokenAccounts({ owner: p.ownerAddress as string })).toEqual(expected('get_token_accounts_by_owner'));
  });

  it('getNftEditions (mint; items in the Helius names mint / edition)', async () => {
    const p = params('get_nft_editions');
    const want = expected('get_nft_editions') as { editions: { mint_address: string; edition_address: string; edition_number: number }[] };
    expect(await helius().getNftEditions({ mint: p.mintAddress as string, limit: p.limit as number })).toEqual({
      ...want,
      editions: want.editions.map((e) => ({ mint: e.mint_address, edition_address: e.edition_address, edition: e.edition_number })),
    });
  });
});
