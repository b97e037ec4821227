/**
 * addOffchainContent: the reference's `v1_content_from_json` mapping on real metadata documents (the shapes of the
 * reference's own recorded test data: a Mad Lads NFT and an animated one), applied to assets ingested from the
 * DAS fixtures; and no change at all when nothing is fetched (the conformance snapshots have no off-chain data).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, expectedOf, loadCases } from '../das/harness.js';
import { loadAssets } from '../../src/api/das/load-assets.js';
import { defaultDisplayOptions, type AssetJson } from '../../src/api/das/asset-json.js';
import { addOffchainContent, applyOffchainJson, filesFromJson, mimeFromUri } from '../../src/api/das/offchain-content.js';
import { recordFailure, recordSuccess } from '../../src/store/offchain.js';
import type { Queryable } from '../../src/store/db.js';

/** A Mad Lads metadata document (the reference's `tests/data/mad_lad.json` shape). */
const MAD_LAD = {
  name: 'Mad Lads #1',
  description: 'Fock it.',
  symbol: 'MAD',
  image: 'https://madlads.s3.us-west-2.amazonaws.com/images/1.png',
  external_url: 'https://madlads.com',
  seller_fee_basis_points: 500,
  attributes: [
    { trait_type: 'Gender', value: 'Male' },
    { trait_type: 'Type', value: 'Light' },
    { trait_type: 'Background', value: 'Purple' },
  ],
  properties: {
    files: [
      { id: 'rug', uri: 'https://arweave.net/qJ5B6fx5hEt4P7XbicbJQRyTcbyLaV-OQNA1KjzdqOQ/1.png', type: 'image/png' },
      { id: 'portrait', uri: 'https://madlads.s3.us-west-2.amazonaws.com/images/1.png', type: 'image/png' },
    ],
    category: 'image',
    collection: { name: 'Mad Lads', family: 'MAD' },
    creators: [{ address: '2RtGg6fsFiiF1EQzHqbd66AhW7R5bWeQGpTbv2UMkCdW', share: 100 }],
  },
};

/** An animated piece (the reference's `tests/data/infinite_fungi.json` shape): image + animation_url, typed files. */
const FUNGI = {
  animation_url: 'https://arweave.net/HVOJ3bTpqMJJJtd5nW2575vPTekLa_SSDsQc7AqV_Ho?ext=mp4',
  attributes: [],
  description: 'Infinite Fungi',
  image: 'https://arweave.net/_a4sXT6fOHI-5VHFOHLEF73wqKuZtJgE518Ciq9DGyI?ext=gif',
  name: 'Infinite Fungi',
  properties: {
    category: 'video',
    files: [
      { type: 'video/mp4', uri: 'https://arweave.net/HVOJ3bTpqMJJJtd5nW2575vPTekLa_SSDsQc7AqV_Ho?ext=mp4' },
      { type: 'image/gif', uri: 'https://arweave.net/_a4sXT6fOHI-5VHFOHLEF73wqKuZtJgE518Ciq9DGyI?ext=gif' },
    ],
  },
  seller_fee_basis_points: 500,
  symbol: '',
};

describe('mapping (pure)', () => {
  it('Mad Lads: image file first, typed files kept, links and metadata from the document, on-chain name/symbol kept', () => {
    const a: AssetJson = {
      content: { $schema: 'https://schema.metaplex.com/nft1.0.json', json_uri: 'u', files: [], metadata: { name: 'On-chain name', symbol: 'OC', token_standard: 'NonFungible' }, links: {} },
    };
    applyOffchainJson(a, MAD_LAD);
    expect(a.content).toEqual({
      $schema: 'https://schema.metaplex.com/nft1.0.json',
      json_uri: 'u',
      files: [
        { uri: 'https://madlads.s3.us-west-2.amazonaws.com/images/1.png', mime: 'image/png' },
        { uri: 'https://arweave.net/qJ5B6fx5hEt4P7XbicbJQRyTcbyLaV-OQNA1KjzdqOQ/1.png', mime: 'image/png' },
      ],
      metadata: { attributes: MAD_LAD.attributes, description: 'Fock it.', name: 'On-chain name', symbol: 'OC', token_standard: 'NonFungible' },
      links: { image: MAD_LAD.image, external_url: 'https://madlads.com' },
    });
    // Keys in the reference's (BTreeMap) order.
    expect(Object.keys((a.content as { metadata: object }).metadata)).toEqual(['attributes', 'description', 'name', 'symbol', 'token_standard']);
  });

  it('animated: animation_url link, mime from the file type (not the extension-less path), image first', () => {
    const files = filesFromJson(FUNGI);
    expect(files).toEqual([
      { uri: FUNGI.image, mime: 'image/gif' },
      { uri: FUNGI.animation_url, mime: 'video/mp4' },
    ]);
    const a: AssetJson = { content: { json_uri: 'u', files: [], metadata: { name: 'n', symbol: '' }, links: {} } };
    applyOffchainJson(a, FUNGI);
    expect((a.content as { links: object }).links).toEqual({ image: FUNGI.image, animation_url: FUNGI.animation_url });
    expect((a.content as { metadata: object }).metadata).toEqual({ attributes: [], description: 'Infinite Fungi', name: 'n', symbol: '' });
  });

  it('untyped and string files get a guessed mime; image/animation added when not listed; url for uri; duplicates once', () => {
    const files = filesFromJson({
      image: 'https://x.test/img/cover.JPG',
      animation_url: 'ipfs://bafy/anim.mp4',
      properties: {
        files: [
          'https://x.test/model.glb',
          { url: 'https://x.test/a.webp' },
          { uri: 'https://x.test/noext', type: 7 },
          { uri: 42, type: 'image/png' },
          { uri: 'https://x.test/dup.png', type: 'image/one' },
          { uri: 'https://x.test/dup.png', type: 'image/two' },
          null,
        ],
      },
    });
    expect(files).toEqual([
      { uri: 'https://x.test/img/cover.JPG', mime: 'image/jpeg' },
      { uri: 'https://x.test/model.glb', mime: 'model/gltf-binary' },
      { uri: 'https://x.test/a.webp', mime: 'image/webp' },
      { uri: 'https://x.test/noext', mime: 'image/png' },
      { uri: 'https://x.test/dup.png', mime: 'image/two' },
      { uri: 'ipfs://bafy/anim.mp4', mime: 'video/mp4' },
    ]);
    expect(mimeFromUri('not a url')).toBe('image/png');
    expect(mimeFromUri('https://x.test/a.json?x=1.png')).toBe('application/json');
    expect(mimeFromUri('https://x.test/.png')).toBe('image/png');
    expect(mimeFromUri('https://x.test/file.unknownext')).toBe('image/png');
  });

  it('a document without media leaves files and links empty and keeps the metadata', () => {
    const a: AssetJson = { content: { json_uri: 'u', files: [], metadata: { name: 'n', symbol: 's' }, links: {} } };
    applyOffchainJson(a, { name: 'other', symbol: 'OTHER' });
    expect(a.content).toEqual({ json_uri: 'u', files: [], metadata: { name: 'n', symbol: 's' }, links: {} });
  });
});

describe('addOffchainContent on ingested assets', () => {
  const ids = ['asset_parsing', 'mint_transfer_noop', 'mpl_core_get_asset_with_edition'];
  const cases = loadCases().filter((c) => ids.includes(c.id));
  let ta: TestApp;
  const assetId = (c: (typeof cases)[number]) => (c.params as { id: string }).id;
  const uriOf = (c: (typeof cases)[number]) => ((expectedOf(c) as { content: { json_uri: string } }).content.json_uri);

  beforeAll(async () => {
    ta = await createTestApp();
    for (const c of cases) await applyInputs(ta, c.inputs);
  });
  afterAll(async () => ta?.close());

  async function render(q: Queryable = ta.t.db) {
    const assets = await loadAssets(ta.t.db, cases.map(assetId), defaultDisplayOptions());
    await addOffchainContent(q, assets.values());
    return assets;
  }

  it('without fetched documents (none, failed, pending) the output is the reference snapshot, unchanged', async () => {
    expect(cases).toHaveLength(3);
    let assets = await render();
    for (const c of cases) expect(assets.get(assetId(c)), c.id).toEqual(expectedOf(c));
    // A failed fetch and a pending row change nothing either.
    await recordFailure(ta.t.db, uriOf(cases[0]), null, 'HTTP 404', { gaveUp: true, retryAfterMs: null });
    // (Indexing already queued every json_uri as pending; make sure this one is.)
    await ta.t.db.query(
      `INSERT INTO offchain_metadata (uri, next_attempt_at) VALUES ($1, now())
       ON CONFLICT (uri) DO UPDATE SET status = 'pending', content = NULL, next_attempt_at = now()`,
      [uriOf(cases[1])],
    );
    assets = await render();
    for (const c of cases) expect(assets.get(assetId(c)), c.id).toEqual(expectedOf(c));
  });

  it('fills content from the stored documents, in one query for all assets, touching nothing else', async () => {
    const [tm, cnft, core] = ids.map((id) => cases.find((x) => x.id === id)!);
    await recordSuccess(ta.t.db, uriOf(tm), null, MAD_LAD, null);
    await recordSuccess(ta.t.db, uriOf(cnft), null, FUNGI, null);
    let queries = 0;
    const counting: Queryable = { query: (sql, params) => (queries++, ta.t.db.query(sql, params)) };
    const assets = await render(counting);
    expect(queries).toBe(1);

    const want = (c: typeof tm) => expectedOf(c) as Record<string, unknown> & { content: Record<string, unknown> };
    const a = assets.get(assetId(tm))!;
    const e = want(tm);
    expect({ ...a, content: undefined }).toEqual({ ...e, content: undefined });
    expect(a.content).toEqual({
      ...e.content,
      files: [
        { uri: MAD_LAD.image, mime: 'image/png' },
        { uri: MAD_LAD.properties.files[0].uri, mime: 'image/png' },
      ],
      metadata: {
        attributes: MAD_LAD.attributes,
        description: 'Fock it.',
        name: 'Phantom Mage #1233', // on-chain name and symbol win over the document's
        symbol: 'PM',
        token_standard: 'ProgrammableNonFungible',
      },
      links: { image: MAD_LAD.image, external_url: 'https://madlads.com' },
    });

    const b = assets.get(assetId(cnft))!;
    expect((b.content as { links: object }).links).toEqual({ image: FUNGI.image, animation_url: FUNGI.animation_url });
    expect((b.content as { metadata: { name: string } }).metadata.name).toBe((want(cnft).content.metadata as { name: string }).name);
    expect({ ...b, content: undefined }).toEqual({ ...want(cnft), content: undefined });

    // Core asset: its uri has no document → unchanged.
    expect(assets.get(assetId(core))).toEqual(want(core));
  });
});
