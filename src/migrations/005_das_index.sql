-- DAS list index: one row per asset with the columns the list methods filter and sort on, derived from the
-- asset's source rows (asset_accounts, cnft_assets, mints, token_accounts, token_extensions) by the asset-index
-- refresher, which re-derives an asset whenever one of its sources was written (das_dirty). Side tables for the
-- one-to-many filters (creators, authorities, groups) repeat the sort keys so every list query walks one index
-- in the order it returns rows (keyset, no sort step).
--
-- id_key is the asset id's 32 raw bytes: the reference orders ids byte-wise, which base58 text order is not.

CREATE TABLE das_assets (
  id                   TEXT PRIMARY KEY,
  id_key               BYTEA NOT NULL,
  interface            TEXT NOT NULL,
  owner                TEXT,                  -- ownership.owner of single-owner assets
  owner_type           TEXT NOT NULL,         -- single | token
  delegate             TEXT,
  frozen               BOOLEAN NOT NULL,
  supply               NUMERIC(20,0) NOT NULL,
  supply_mint          TEXT,                  -- token-backed assets: the mint (= id)
  compressed           BOOLEAN NOT NULL,
  tree                 TEXT,
  royalty_target_type  TEXT,
  royalty_target       TEXT,
  royalty_amount       INT,
  burnt                BOOLEAN NOT NULL,
  json_uri             TEXT,
  name                 TEXT,
  created_slot         BIGINT NOT NULL,       -- first slot the indexer saw the asset at
  updated_slot         BIGINT NOT NULL        -- latest slot of any of its sources
);
CREATE UNIQUE INDEX das_assets_key_idx ON das_assets (id_key);
CREATE INDEX das_assets_owner_idx ON das_assets (owner, id_key) WHERE owner IS NOT NULL;
CREATE INDEX das_assets_owner_updated_idx ON das_assets (owner, updated_slot, id_key) WHERE owner IS NOT NULL;
CREATE INDEX das_assets_owner_created_idx ON das_assets (owner, created_slot, id_key) WHERE owner IS NOT NULL;
CREATE INDEX das_assets_updated_idx ON das_assets (updated_slot, id_key);
CREATE INDEX das_assets_created_idx ON das_assets (created_slot, id_key);
CREATE INDEX das_assets_delegate_idx ON das_assets (delegate, id_key) WHERE delegate IS NOT NULL;
CREATE INDEX das_assets_tree_idx ON das_assets (tree, id_key) WHERE tree IS NOT NULL;

CREATE TABLE das_asset_creators (
  asset_id      TEXT NOT NULL,
  creator       TEXT NOT NULL,
  position      INT NOT NULL,
  verified      BOOLEAN NOT NULL,
  id_key        BYTEA NOT NULL,
  created_slot  BIGINT NOT NULL,
  updated_slot  BIGINT NOT NULL,
  PRIMARY KEY (asset_id, creator)
);
CREATE INDEX das_asset_creators_idx ON das_asset_creators (creator, id_key);
CREATE INDEX das_asset_creators_updated_idx ON das_asset_creators (creator, updated_slot, id_key);
CREATE INDEX das_asset_creators_created_idx ON das_asset_creators (creator, created_slot, id_key);

CREATE TABLE das_asset_authorities (
  asset_id      TEXT NOT NULL,
  authority     TEXT NOT NULL,
  scopes        TEXT[] NOT NULL,
  id_key        BYTEA NOT NULL,
  created_slot  BIGINT NOT NULL,
  updated_slot  BIGINT NOT NULL,
  PRIMARY KEY (asset_id, authority)
);
CREATE INDEX das_asset_authorities_idx ON das_asset_authorities (authority, id_key);
CREATE INDEX das_asset_authorities_updated_idx ON das_asset_authorities (authority, updated_slot, id_key);
CREATE INDEX das_asset_authorities_created_idx ON das_asset_authorities (authority, created_slot, id_key);

CREATE TABLE das_asset_groups (
  asset_id      TEXT NOT NULL,
  group_key     TEXT NOT NULL,
  group_value   TEXT NOT NULL,
  verified      BOOLEAN NOT NULL,
  id_key        BYTEA NOT NULL,
  created_slot  BIGINT NOT NULL,
  updated_slot  BIGINT NOT NULL,
  PRIMARY KEY (asset_id, group_key, group_value)
);
CREATE INDEX das_asset_groups_idx ON das_asset_groups (group_key, group_value, id_key);
CREATE INDEX das_asset_groups_updated_idx ON das_asset_groups (group_key, group_value, updated_slot, id_key);
CREATE INDEX das_asset_groups_created_idx ON das_asset_groups (group_key, group_value, created_slot, id_key);

-- Addresses whose rows changed since the refresher last looked (asset ids, mints, token accounts, edition and
-- collection accounts); written in the same statement/transaction as the change itself, so nothing is missed.
CREATE TABLE das_dirty (
  key  TEXT PRIMARY KEY
);

-- Assets indexed before this migration: mark them so the refresher derives their rows.
INSERT INTO das_dirty (key)
  SELECT address FROM asset_accounts
  UNION SELECT asset_id FROM asset_accounts WHERE asset_id IS NOT NULL
  UNION SELECT asset_id FROM cnft_assets
  UNION SELECT target FROM token_extensions
ON CONFLICT (key) DO NOTHING;
