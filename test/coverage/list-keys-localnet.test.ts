/**
 * DAS lists by collection, creator and authority on an index that began after those assets were made: a localnet
 * holds real recorded mainnet accounts (the DAS reference fixtures: an MPL Core collection with its assets, three
 * SMB Gen3 pNFTs of a Token Metadata collection, a Mad Lads pNFT — mints, metadata and holding token accounts)
 * installed at genesis, as the chain cannot run the Metaplex programs; and an MPL Core collection whose one member is
 * a compressed NFT (Bubblegum V2), whose mint and transfer the reference index also replays. One index ingests those accounts directly
 * (the reference); a late index, whose origin is after them, reads each key's assets from the localnet with
 * getProgramAccounts filters on its first getAssetsByGroup / ByCreator / ByAuthority / searchAssets request. The
 * answers are compared by content, with the `x-solgate-coverage` header; concurrent first requests share one read;
 * an RPC failure part-way writes nothing and answers partial; unknown keys and the watch list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createLocalnet, type GenesisAccount, type Localnet } from '../../src/sources/localnet/index.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createCoverageService, type CoverageService } from '../../src/ingest/hydrate.js';
import { replayInto } from '../../src/ingest/replay.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { recordIndexOrigin } from '../../src/store/coverage.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { tableDigests } from '../helpers/db.js';
import { DAS_DIR } from '../das/harness.js';

const logger = pino({ level: 'silent' });

/** The recorded accounts installed on the chain (one file per account). */
const CASES = ['mpl_core_get_assets_by_group', 'reg_get_asset_by_group', 'get_asset_by_creator_with_show_fungible', 'mint_v2_to_collection_transfer_v2'];
const files = CASES.flatMap((c) => readdirSync(join(DAS_DIR, 'decoded', 'accounts', c)).map((f) => join(DAS_DIR, 'decoded', 'accounts', c, f)));
/** The compressed NFT's mint and transfers: only the reference index has them (they are no accounts). */
const CNFT_TXS = readdirSync(join(DAS_DIR, 'decoded', 'transactions', 'mint_v2_to_collection_transfer_v2')).map((f) => join(DAS_DIR, 'decoded', 'transactions', 'mint_v2_to_collection_transfer_v2', f));
const CNFT_COLLECTION = '9r8CKUNFd3zGV5cDcQNf9iiMgkavYqGLBFLLiT4bgwA9';
const CNFT = '86c2p9hZJTPWmFRKz1znX3yx9E8vhESk9wr9soTMET8Y';

const CORE_COLLECTION = 'JChzyyp1CnNz56tJLteQ5BsbngmWQ3JwcxLZrmuQA5b7';
/** The Core collection's update authority (and so its assets'); also their owner. */
const CORE_AUTHORITY = 'APrZTeVysBJqAznfLXS71NAzjr2fCVTSF1A66MeErzM7';
const SMB_COLLECTION = '8Rt3Ayqth4DAiPnW9MDFi63TiQJHmohfTWLMQFHi4KZH';
const SMB_AUTHORITY = 'GfELr1GA9bLmgiMymUm7h8nDkZLG2Ls6txSsANopeVEW';
/** SMB creators at positions 0 and 2; Mad Lads creators at 0 and 1 (the second is also its update authority). */
const SMB_CREATOR_0 = 'HV4Nvm9zHfNA43JYYkjZu8vwqiuE8bfEhwcKFfyQ65o5';
const SMB_CREATOR_2 = 'HqqiyJcm3yWPyzwisRKAQa2bJAj14V837yJRGaxwRFaG';
const MAD_CREATOR_0 = '5XvhfmRjwXkGp3jHGmaKpqeerNYjkuZZBYLVQYdeVcRv';
const MAD_AUTHORITY = '2RtGg6fsFiiF1EQzHqbd66AhW7R5bWeQGpTbv2UMkCdW';
const UNKNOWN = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

let net: Localnet;
let full: TestApp;
const clients: RpcClient[] = [];
const byId = { sortBy: { sortBy: 'id', sortDirection: 'asc' }, limit: 100 };

function genesisAccounts(): GenesisAccount[] {
  return files.map((f) => {
    const a = JSON.parse(readFileSync(f, 'utf8')) as { pubkey: string; lamports: number; owner: string; executable: boolean; data: [string, string] };
    return { address: a.pubkey, lamports: BigInt(a.lamports), owner: a.owner, executable: a.executable, data: new Uint8Array(Buffer.from(a.data[0], 'base64')) };
  });
}

/** A client of the localnet counting calls by method; `fail(method, n)` decides whether the n-th call of a method fails. */
function countingClient(fail?: (method: string, n: number) => boolean) {
  const real = createRpcClient({ url: net.url, maxRetries: 0 });
  clients.push(real);
  const counts: Record<string, number> = {};
  const client: RpcClient = {
    url: net.url,
    call: async <T,>(m: string, p: unknown[], s?: AbortSignal) => {
      counts[m] = (counts[m] ?? 0) + 1;
      if (fail?.(m, counts[m])) throw new Error(`${m}: connection reset (test)`);
      return real.call<T>(m, p, s);
    },
    close: async () => {},
  };
  return { client, counts };
}

const ADMIN = 'list-keys-admin-token';

/** A late index: origin after everything on the chain, coverage over `client` (and its admin API). */
async function lateIndex(client: RpcClient): Promise<TestApp & { coverage: CoverageService }> {
  let coverage!: CoverageService;
  const ta = await createTestApp((db) => {
    coverage = createCoverageService({ db, ingester: createIngester(db, logger), client, commitment: 'confirmed', logger });
    return {
      ensureCovered: coverage.ensureCovered, indexCoverage: coverage.indexCoverage, trackAddresses: coverage.track, trackKeys: coverage.trackKeys,
      admin: { token: ADMIN },
    };
  });
  await recordIndexOrigin(ta.t.db, net.chain.slot + 1);
  return { ...ta, coverage };
}

async function rpc(ta: TestApp, method: string, params: unknown) {
  const r = await ta.app.inject({ method: 'POST', url: '/', headers: { 'x-api-key': ta.key }, payload: { jsonrpc: '2.0', id: 1, method, params } });
  expect(r.statusCode, r.body).toBe(200);
  const body = r.json() as { result?: { total: number; items: { id: string }[] }; error?: unknown };
  expect(body.error, r.body).toBeUndefined();
  return { result: body.result!, coverage: r.headers['x-solgate-coverage'] as string | undefined };
}

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0, accounts: genesisAccounts() });
  for (let i = 0; i < 3; i++) net.chain.produceSlot();
  full = await createTestApp();
  await replayInto(full.t.db, [...files, ...CNFT_TXS]);
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  await full?.close();
  await net?.close();
});

describe('lists by key on a late index equal the index that ingested the accounts', () => {
  let late: TestApp & { coverage: CoverageService };
  let counts: Record<string, number>;
  beforeAll(async () => {
    const c = countingClient();
    counts = c.counts;
    late = await lateIndex(c.client);
  });
  afterAll(async () => late?.close());

  /** The same call on both indexes: equal results (non-empty), and the late one's header. */
  async function same(method: string, params: Record<string, unknown>, minItems: number) {
    const a = await rpc(full, method, { ...params, ...byId });
    const b = await rpc(late, method, { ...params, ...byId });
    expect(b.result, `${method} ${JSON.stringify(params)}`).toEqual(a.result);
    expect(b.result.items.length).toBeGreaterThanOrEqual(minItems);
    return b;
  }

  it('getAssetsByGroup of an MPL Core collection: complete (its current_size equals the assets read), read once', async () => {
    const before = counts.getProgramAccounts ?? 0;
    const b = await same('getAssetsByGroup', { groupKey: 'collection', groupValue: CORE_COLLECTION }, 3);
    expect(b.coverage).toMatch(/^complete; basis=hydrated; slot=\d+$/);
    expect(counts.getProgramAccounts - before).toBe(1);
    // The next request answers from the index.
    const again = await rpc(late, 'getAssetsByGroup', { groupKey: 'collection', groupValue: CORE_COLLECTION });
    expect(again.coverage).toBe(b.coverage);
    expect(counts.getProgramAccounts - before).toBe(1);
  });

  it('getAssetsByGroup of a Token Metadata collection: the 21 collection offsets, mints and holders; partial (its size is not known here)', async () => {
    const before = counts.getProgramAccounts ?? 0;
    const b = await same('getAssetsByGroup', { groupKey: 'collection', groupValue: SMB_COLLECTION }, 3);
    expect(counts.getProgramAccounts - before).toBe(21);
    // The collection's own mint and metadata are not on this chain: whether compressed NFTs are in it is unknown.
    expect(b.coverage).toMatch(/^partial; basis=accounts; slot=\d+; reason="no collection mint account: .*compressed NFTs/);
    // The holders were read: each SMB is owned.
    for (const item of b.result.items as unknown as { ownership: { owner: string } }[]) expect(item.ownership.owner).not.toBe('');
  });

  it('a Core collection whose member is a compressed NFT: its current_size says one is missing, partial with the reason', async () => {
    const params = { groupKey: 'collection', groupValue: CNFT_COLLECTION, ...byId };
    const a = await rpc(full, 'getAssetsByGroup', params);
    expect(a.result.items.map((i) => i.id)).toEqual([CNFT]);
    const b = await rpc(late, 'getAssetsByGroup', params);
    expect(b.result.total).toBe(0);
    expect(b.coverage).toMatch(/^partial; basis=accounts; slot=\d+; reason="the collection counts 1 asset and 0 are MPL Core accounts; the others are compressed NFTs, read only from their tree's history"$/);
  });

  it('getAssetsByCreator at creator positions 0, 1 and 2 (fungibles shown), partial: compressed NFTs and Core creators are not filterable', async () => {
    for (const [creator, n] of [[SMB_CREATOR_0, 3], [SMB_CREATOR_2, 3], [MAD_CREATOR_0, 1], [MAD_AUTHORITY, 1]] as const) {
      const b = await same('getAssetsByCreator', { creatorAddress: creator, displayOptions: { showFungible: true } }, n);
      expect(b.result.total).toBe(n);
      expect(b.coverage).toMatch(/^partial; basis=accounts; slot=\d+; reason="compressed NFTs and MPL Core assets/);
    }
  });

  it('getAssetsByAuthority: Token Metadata update authorities and a Core collection\'s authority (the collection and its assets), complete', async () => {
    for (const [authority, n] of [[MAD_AUTHORITY, 1], [SMB_AUTHORITY, 3], [CORE_AUTHORITY, 4]] as const) {
      const b = await same('getAssetsByAuthority', { authorityAddress: authority, displayOptions: { showFungible: true } }, n);
      expect(b.result.total).toBe(n);
      expect(b.coverage).toMatch(/^complete; basis=hydrated; slot=\d+$/);
    }
  });

  it('searchAssets: complete when any of its keys is (the Core authority), else the first partial report', async () => {
    const a = await same('searchAssets', { authorityAddress: CORE_AUTHORITY, grouping: ['collection', CORE_COLLECTION] }, 3);
    expect(a.coverage).toMatch(/^complete; basis=hydrated/);
    const b = await same('searchAssets', { creatorAddress: SMB_CREATOR_2, grouping: ['collection', SMB_COLLECTION] }, 3);
    expect(b.coverage).toMatch(/^partial; basis=accounts; slot=\d+; reason="no collection mint account/);
  });

  it('unknown keys are read once and answered empty: an authority complete, a collection and a creator partial', async () => {
    const before = counts.getProgramAccounts ?? 0;
    for (const [method, params, header] of [
      ['getAssetsByAuthority', { authorityAddress: UNKNOWN }, /^complete; basis=hydrated; slot=\d+$/],
      ['getAssetsByGroup', { groupKey: 'collection', groupValue: UNKNOWN }, /^partial; basis=accounts; slot=\d+; reason="no collection mint account/],
      ['getAssetsByCreator', { creatorAddress: UNKNOWN }, /^partial; basis=accounts/],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const r = await rpc(late, method, params);
        expect(r.result.total).toBe(0);
        expect(r.coverage).toMatch(header);
      }
    }
    // Authority 3 scans, collection 21, creator 5; none on the second requests.
    expect(counts.getProgramAccounts - before).toBe(3 + 21 + 5);
    // Another group key than a collection is not read: it answers from the index, as before.
    const other = await rpc(late, 'getAssetsByGroup', { groupKey: 'rarity', groupValue: 'legendary' });
    expect(other.coverage).toMatch(/^partial; basis=since-origin; slot=\d+$/);
  });
});

describe('reads shared, failures, the watch list', () => {
  it('concurrent first requests for one key read the cluster once', async () => {
    const { client, counts } = countingClient();
    const late = await lateIndex(client);
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => rpc(late, 'getAssetsByAuthority', { authorityAddress: SMB_AUTHORITY })));
      for (const a of answers) {
        expect(a.coverage).toMatch(/^complete; basis=hydrated/);
        expect(a.result.total).toBe(3);
      }
      expect(counts.getProgramAccounts).toBe(3);
      expect(counts.getTokenLargestAccounts).toBe(3);
    } finally {
      await late.close();
    }
  });

  it('an RPC failure part-way (after the scans, at the second holder) writes nothing and answers partial; the next request reads again', async () => {
    let failing = true;
    const { client, counts } = countingClient((m, n) => failing && m === 'getTokenLargestAccounts' && n === 2);
    const late = await lateIndex(client);
    try {
      const empty = await tableDigests(late.t.db);
      const r = await rpc(late, 'getAssetsByGroup', { groupKey: 'collection', groupValue: SMB_COLLECTION });
      expect(r.coverage).toMatch(/^partial; basis=failed; error="getTokenLargestAccounts: connection reset \(test\)"$/);
      expect(r.result.total).toBe(0);
      expect(counts.getProgramAccounts).toBe(21);
      expect(await tableDigests(late.t.db)).toEqual(empty);
      const { rows } = await late.t.db.query<{ slot: unknown; last_error: string }>(`SELECT slot, last_error FROM key_coverage WHERE need = 'group' AND key = $1`, [SMB_COLLECTION]);
      expect(rows).toEqual([{ slot: null, last_error: expect.stringContaining('connection reset') }]);
      failing = false;
      const params = { groupKey: 'collection', groupValue: SMB_COLLECTION, ...byId };
      const again = await rpc(late, 'getAssetsByGroup', params);
      expect(again.coverage).toMatch(/^partial; basis=accounts; slot=\d+/);
      expect(again.result).toEqual((await rpc(full, 'getAssetsByGroup', params)).result);
      expect(counts.getProgramAccounts).toBe(42);
    } finally {
      await late.close();
    }
  });

  it('a key watched through the admin API is read before its first request', async () => {
    const { client, counts } = countingClient();
    const late = await lateIndex(client);
    const admin = (method: 'GET' | 'POST', url: string, payload?: object) =>
      late.app.inject({ method, url: `/admin/api${url}`, headers: { authorization: `Bearer ${ADMIN}` }, payload });
    try {
      late.coverage.start();
      const bad = await admin('POST', '/track', { collections: ['not-an-address'] });
      expect(bad.statusCode).toBe(400);
      const tracked = await admin('POST', '/track', { collections: [CORE_COLLECTION, CORE_COLLECTION] });
      expect(tracked.statusCode, tracked.body).toBe(202);
      expect(tracked.json()).toEqual({ tracked: 1 });
      const read = async () => (await late.t.db.query<{ slot: string | null }>(`SELECT slot FROM key_coverage WHERE need = 'group' AND key = $1`, [CORE_COLLECTION])).rows[0]?.slot ?? null;
      for (let i = 0; i < 200 && (await read()) === null; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await read()).not.toBeNull();
      expect(counts.getProgramAccounts).toBe(1);
      const r = await rpc(late, 'getAssetsByGroup', { groupKey: 'collection', groupValue: CORE_COLLECTION });
      expect(r.coverage).toBe(`complete; basis=hydrated; slot=${await read()}`);
      expect(r.result.total).toBe(3);
      expect(counts.getProgramAccounts).toBe(1);
      // What the index knows of the key, as the admin API shows it.
      const shown = await admin('GET', `/coverage/${CORE_COLLECTION}`);
      expect(shown.json().keys).toEqual([{ need: 'group', coverage: r.coverage, slot: Number(await read()), trackedAt: expect.any(String), lastError: null }]);
    } finally {
      await late.coverage.stop();
      await late.close();
    }
  });
});
