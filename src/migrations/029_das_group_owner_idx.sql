-- searchAssets by owner and grouping (a wallet's NFTs in one collection): the group rows carry the owner the asset
-- is listed under, so the pair is one index range walked in id order (keyset, no sort step) instead of the
-- owner's whole holding set probed against the group. `owner` is das_assets.owner of assets an owner's list shows
-- directly (single-owner, or without a supply mint); `token_owned` marks token-owned assets with a supply mint
-- (listed through the owner's token accounts), so a group's few such members are found without reading the rest.
-- Both are rewritten with the group rows whenever the refresher re-derives the asset (a transfer re-derives it).

ALTER TABLE das_asset_groups ADD COLUMN owner TEXT;
ALTER TABLE das_asset_groups ADD COLUMN token_owned BOOLEAN NOT NULL DEFAULT false;

UPDATE das_asset_groups g
   SET owner = CASE WHEN a.supply_mint IS NULL OR a.owner_type = 'single' THEN a.owner END,
       token_owned = (a.owner_type = 'token' AND a.supply_mint IS NOT NULL)
  FROM das_assets a
 WHERE a.id = g.asset_id;

CREATE INDEX das_asset_groups_owner_idx ON das_asset_groups (group_key, group_value, owner, id_key) WHERE owner IS NOT NULL;
CREATE INDEX das_asset_groups_token_owned_idx ON das_asset_groups (group_key, group_value, id_key) WHERE token_owned;
