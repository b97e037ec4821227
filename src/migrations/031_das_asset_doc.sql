-- The ready DAS document of each asset (issue #21, "one round trip per read"): the refresher that derives an
-- asset's list columns from its rendered DAS object also stores that object's JSON text (rendered with token_info
-- and unverified collections, without off-chain content), so getAsset/getAssets and list pages read one indexed
-- row per asset and only project the display options (and merge the fetched off-chain document) at read time.
-- TEXT, not JSONB: the text is handed to JSON.parse as written (no jsonb output conversion, key order kept).
-- NULL until the refresher has rendered the asset; reads render such assets (and any asset with a pending dirty
-- mark) from their sources, as before.

ALTER TABLE das_assets ADD COLUMN doc TEXT;

-- Assets indexed before this migration: mark them so the refresher stores their documents.
INSERT INTO das_dirty (key) SELECT id FROM das_assets ON CONFLICT (key) DO NOTHING;
