/**
 * The off-chain path end to end: replaying an NFT queues its metadata uri (the list-index refresher enqueues the
 * json_uri of every asset it indexes), the real fetcher's worker round fetches it from a local server, and the
 * document then shows in getAsset / getAssetsByOwner `content` and in the wallet's `showNfts` image.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, callRpc, expectedOf, loadCases } from '../das/harness.js';
import type { OffchainFetcher } from '../../src/offchain/fetcher.js';
import { localFetcher, startDocServer, type DocServer } from './local-fetcher.js';

const CASE = loadCases().find((c) => c.id === 'asset_parsing')!;
const MINT = (CASE.params as { id: string }).id;
const EXPECTED = expectedOf(CASE) as { content: { json_uri: string }; ownership: { owner: string } };
const URI = EXPECTED.content.json_uri;
const DOC = {
  name: 'Ignored off-chain name',
  description: 'A mage.',
  image: 'https://cdn.example/1232.png',
  animation_url: 'https://cdn.example/1232.mp4',
  external_url: 'https://example.com',
  attributes: [{ trait_type: 'Class', value: 'Mage' }],
  properties: { files: [{ uri: 'https://cdn.example/1232.mp4', type: 'video/mp4' }] },
};

describe('off-chain metadata through ingest, the fetcher worker and the API', () => {
  let ta: TestApp;
  let server: DocServer;
  let fetcher: OffchainFetcher;
  let hits = 0;

  beforeAll(async () => {
    server = await startDocServer((req, res) => {
      hits++;
      res.setHeader('content-type', 'application/json');
      res.end(req.url === new URL(URI).pathname ? JSON.stringify(DOC) : '{}');
    });
    ta = await createTestApp();
    fetcher = localFetcher(ta.t.db, (u) => `${server.base}${u.pathname}`);
    await applyInputs(ta, CASE.inputs);
  });
  afterAll(async () => {
    await fetcher?.stop();
    await ta?.close();
    await server?.close();
  });

  it('indexing the asset queues its uri once, and nothing is fetched before a worker round', async () => {
    const { rows } = await ta.t.db.query<{ uri: string; status: string }>('SELECT uri, status FROM offchain_metadata');
    expect(rows).toEqual([{ uri: URI, status: 'pending' }]);
    // Replaying again does not duplicate or reset the row.
    await applyInputs(ta, CASE.inputs);
    expect((await ta.t.db.query('SELECT uri FROM offchain_metadata')).rows).toHaveLength(1);
    const before = await callRpc(ta, 'getAsset', { id: MINT });
    expect(before.result).toEqual(EXPECTED);
    expect(hits).toBe(0);
  });

  it('after a worker round, DAS content and the wallet NFT image come from the document', async () => {
    expect(await fetcher.runOnce()).toBe(1);
    expect(hits).toBe(1);
    expect(await fetcher.runOnce()).toBe(0); // fetched rows are not due again before the TTL

    const r = (await callRpc(ta, 'getAsset', { id: MINT })).result as { content: Record<string, unknown> };
    expect(r.content.links).toEqual({ image: DOC.image, animation_url: DOC.animation_url, external_url: DOC.external_url });
    expect(r.content.files).toEqual([
      { uri: DOC.image, mime: 'image/png' },
      { uri: DOC.animation_url, mime: 'video/mp4' },
    ]);
    const meta = r.content.metadata as Record<string, unknown>;
    expect(meta.description).toBe('A mage.');
    expect(meta.attributes).toEqual(DOC.attributes);
    // The on-chain name stays.
    expect(meta.name).toBe((EXPECTED.content as unknown as { metadata: { name: string } }).metadata.name);
    // Everything outside content is unchanged.
    expect({ ...r, content: undefined }).toEqual({ ...EXPECTED, content: undefined });

    const list = (await callRpc(ta, 'getAssetsByOwner', { ownerAddress: EXPECTED.ownership.owner })).result as { items: { id: string; content: unknown }[] };
    expect(list.items.find((i) => i.id === MINT)?.content).toEqual(r.content);

    const w = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${EXPECTED.ownership.owner}/balances?showNfts=true&api-key=${ta.key}` });
    expect(w.statusCode).toBe(200);
    const nft = (w.json() as { nfts: { mint: string; imageUri: string | null }[] }).nfts.find((n) => n.mint === MINT);
    expect(nft?.imageUri).toBe(DOC.image);
  });
});
