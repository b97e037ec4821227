/**
 * Stored DAS documents (migration 031, api/das/asset-docs.ts): reads project the display options of the document
 * the refresher stored and merge off-chain content, which must equal the live rendering of every option; a
 * document is used only while no dirty mark that would re-derive its asset is pending (an asynchronous refresh never
 * lets a read see a document older than the sources).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, callRpc, loadCases } from './harness.js';
import { loadAssets } from '../../src/api/das/load-assets.js';
import { loadAssetAnswers, loadAssetDocs, passThrough } from '../../src/api/das/asset-docs.js';
import { RawJson, stringifyRpc } from '../../src/api/wire/json.js';
import { defaultDisplayOptions, type DisplayOptions } from '../../src/api/das/asset-json.js';
import { drainAssetIndex } from '../../src/ingest/asset-index.js';
import { readAssetDocs } from '../../src/store/das-index.js';

type Asset = { id: string; ownership: { owner: string }; content: { metadata: { name: string } } };

describe('stored DAS documents', () => {
  let ta: TestApp;
  let ids: string[];
  beforeAll(async () => {
    ta = await createTestApp();
    // Every reference case's accounts in one database: Token Metadata (fungible, NFT, prints, unverified
    // collections), MPL Core, compressed, Token-2022 and inscriptions.
    const cases = loadCases();
    for (const c of cases) await applyInputs(ta, c.inputs);
    await drainAssetIndex(ta.t.db);
    ids = (await ta.t.db.query<{ id: string }>('SELECT id FROM das_assets ORDER BY id')).rows.map((r) => r.id);
    // An off-chain document for one asset with a uri, so its merge is compared too.
    const { rows } = await ta.t.db.query<{ json_uri: string }>("SELECT json_uri FROM das_assets WHERE json_uri <> '' LIMIT 1");
    if (rows.length) {
      await ta.t.db.query(`INSERT INTO offchain_metadata (uri, status, content) VALUES ($1, 'ok', $2) ON CONFLICT (uri) DO UPDATE SET content = EXCLUDED.content`, [
        rows[0].json_uri,
        JSON.stringify({ description: 'd', image: 'https://x.test/a.png', attributes: [{ trait_type: 't', value: 1 }], properties: { files: [{ uri: 'https://x.test/a.mp4', type: 'video/mp4' }] } }),
      ]);
    }
  }, 600_000);
  afterAll(async () => ta?.close());

  it('every asset has a current document after the refresh', async () => {
    expect(ids.length).toBeGreaterThan(20);
    const rows = await readAssetDocs(ta.t.db, ids);
    expect(rows.filter((r) => r.doc === null || r.stale).map((r) => r.id)).toEqual([]);
  });

  it('documents projected to each combination of display options equal the live rendering', async () => {
    const flags = ['showFungible', 'showUnverifiedCollections', 'showCollectionMetadata', 'showInscription'] as const;
    for (let m = 0; m < 1 << flags.length; m++) {
      const opts: DisplayOptions = { ...defaultDisplayOptions() };
      flags.forEach((f, i) => (opts[f] = (m & (1 << i)) !== 0));
      const [live, docs] = await Promise.all([loadAssets(ta.t.db, ids, opts), loadAssetDocs(ta.t.db, ids, opts)]);
      expect([...docs.keys()].sort(), JSON.stringify(opts)).toEqual([...live.keys()].sort());
      for (const id of ids) expect(docs.get(id), `${id} ${JSON.stringify(opts)}`).toStrictEqual(live.get(id));
    }
  });

  it('answers as stored text are byte for byte the parsed projection, and equal the live rendering', async () => {
    const flags = ['showFungible', 'showUnverifiedCollections', 'showCollectionMetadata', 'showInscription'] as const;
    let raw = 0;
    for (let m = 0; m < 1 << flags.length; m++) {
      const opts: DisplayOptions = { ...defaultDisplayOptions() };
      flags.forEach((f, i) => (opts[f] = (m & (1 << i)) !== 0));
      const [live, docs, answers] = await Promise.all([loadAssets(ta.t.db, ids, opts), loadAssetDocs(ta.t.db, ids, opts), loadAssetAnswers(ta.t.db, ids, opts)]);
      const text = stringifyRpc(ids.map((id) => answers.get(id) ?? null));
      expect(text, JSON.stringify(opts)).toBe(JSON.stringify(ids.map((id) => docs.get(id) ?? null)));
      expect(JSON.parse(text), JSON.stringify(opts)).toStrictEqual(JSON.parse(JSON.stringify(ids.map((id) => live.get(id) ?? null))));
      if (passThrough(opts)) raw += [...answers.values()].filter((a) => a instanceof RawJson).length;
    }
    expect(raw).toBe(2 * ids.length);
  });

  it('a read uses the document while no mark is pending, and renders from the sources while one is', async () => {
    const db = ta.t.db;
    const { rows } = await db.query<{ id: string; address: string; owner: string }>(
      `SELECT a.id, ta.address, ta.owner FROM das_assets a JOIN token_accounts ta ON ta.mint = a.id AND ta.amount > 0
        WHERE a.owner_type = 'single' AND a.owner = ta.owner LIMIT 1`,
    );
    expect(rows).toHaveLength(1);
    const { id, address } = rows[0];
    const get = async () => (await callRpc(ta, 'getAsset', { id })).result as Asset;
    // The document is what answers: a marked-up copy shows.
    await db.query(`UPDATE das_assets SET doc = replace(doc, '"name":"', '"name":"DOC ') WHERE id = $1`, [id]);
    expect((await get()).content.metadata.name.startsWith('DOC ')).toBe(true);
    // A source change with its dirty mark (as a block write commits them) and no refresh yet: the sources answer.
    const NEW_OWNER = 'BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY';
    await db.tx(async (q) => {
      await q.query('UPDATE token_accounts SET owner = $2 WHERE address = $1', [address, NEW_OWNER]);
      await q.query('INSERT INTO das_dirty (key) VALUES ($1) ON CONFLICT DO NOTHING', [address]);
    });
    const stale = await get();
    expect(stale.ownership.owner).toBe(NEW_OWNER);
    expect(stale.content.metadata.name.startsWith('DOC ')).toBe(false);
    expect((await readAssetDocs(db, [id]))[0].stale).toBe(true);
    // The list (read through the index, refreshed or not) shows the same.
    // After the refresh the document is current again and carries the change.
    await drainAssetIndex(db);
    expect((await readAssetDocs(db, [id]))[0].stale).toBe(false);
    const after = await get();
    expect(after.ownership.owner).toBe(NEW_OWNER);
    expect(after).toStrictEqual(stale);
    const listed = (await callRpc(ta, 'getAssetsByOwner', { ownerAddress: NEW_OWNER })).result as { items: Asset[] };
    expect(listed.items.map((a) => a.id)).toContain(id);
  });

  it('an asset without an index row yet (its first refresh pending) is rendered from the sources', async () => {
    const db = ta.t.db;
    const id = ids[0];
    const before = (await callRpc(ta, 'getAsset', { id })).result;
    await db.query('UPDATE das_assets SET doc = NULL WHERE id = $1', [id]);
    expect((await callRpc(ta, 'getAsset', { id })).result).toStrictEqual(before);
    await db.query('DELETE FROM das_asset_groups WHERE asset_id = $1', [id]);
    await db.query('DELETE FROM das_asset_creators WHERE asset_id = $1', [id]);
    await db.query('DELETE FROM das_asset_authorities WHERE asset_id = $1', [id]);
    await db.query('DELETE FROM das_assets WHERE id = $1', [id]);
    expect((await callRpc(ta, 'getAsset', { id })).result).toStrictEqual(before);
    expect(((await callRpc(ta, 'getAssetBatch', { ids: [id, ids[1]] })).result as unknown[])[0]).toStrictEqual(before);
  });
});
