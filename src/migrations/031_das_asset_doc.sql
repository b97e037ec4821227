-- The ready DAS document of each asset (issue #21, "one round trip per read"): the refresher that derives an
-- asset's list columns from its rendered DAS object also stores that object's JSON text (rendered with token_info
-- and unverified collections, without off-chain content), so getAsset/getAssets and list pages read one indexed
-- row per asset and only project the display options (and merge the fetched off-chain document) at read time.
-- TEXT, not JSONB: the text is handed to JSON.parse as written (no jsonb output conversion, key order kept).
-- NULL until the refresher has rendered the asset; reads render such assets (and any asset with a pending dirty
-- mark) from their sources, as before.

ALTER TABLE das_assets ADD COLUMN doc TEXT;

-- Whether the stored document of an asset may be older than its sources: a dirty mark is pending that the refresher
-- would resolve to this asset (resolveAssetIds in src/store/das-index.ts, read backwards: the id itself, a token account
-- of its mint, an account of the asset, its edition account, its MPL Core collection). Only single-owner assets are
-- checked against their token accounts: only those render their holder (a fungible's mint changes mark the id). A
-- function, not inline SQL: a read statement stays cheap to plan, and this body is planned only when it is called
-- (reads call it only while some mark is pending). STABLE: it sees the calling statement's snapshot.
CREATE FUNCTION das_doc_stale(asset TEXT, owner_type TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $fn$
  SELECT EXISTS (SELECT 1 FROM das_dirty d WHERE d.key = asset)
      OR EXISTS (SELECT 1 FROM asset_accounts x JOIN das_dirty d ON d.key = x.address WHERE x.asset_id = asset)
      OR EXISTS (SELECT 1 FROM tm_edition_mints em JOIN das_dirty d ON d.key = em.edition WHERE em.mint = asset)
      OR EXISTS (SELECT 1 FROM asset_accounts x JOIN das_dirty d ON d.key = x.collection
                  WHERE x.address = asset AND x.kind IN ('core.asset', 'core.closed'))
      OR (owner_type = 'single' AND EXISTS (SELECT 1 FROM token_accounts ta JOIN das_dirty d ON d.key = ta.address WHERE ta.mint = asset))
$fn$;

-- Assets indexed before this migration: mark them so the refresher stores their documents.
INSERT INTO das_dirty (key) SELECT id FROM das_assets ON CONFLICT (key) DO NOTHING;
