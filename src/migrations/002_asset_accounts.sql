-- DAS: decoded asset-program accounts (Token Metadata, MPL Core, Libreplex inscriptions), latest state per
-- account, guarded by (slot, write_version). The API composes assets from these rows and the token tables.

CREATE TABLE asset_accounts (
  address        TEXT PRIMARY KEY,
  kind           TEXT NOT NULL,           -- tm.metadata | tm.masterEdition | tm.edition | tm.tokenRecord | tm.closed |
                                          -- core.asset | core.collection | core.closed | inscription | inscription.data
  asset_id       TEXT,                    -- the asset this account describes when the account says (metadata: its mint)
  owner          TEXT,                    -- core.asset: owner
  collection     TEXT,                    -- core.asset: collection; tm.metadata: collection key
  data           JSONB NOT NULL,          -- the decoded account (u64 as decimal strings)
  slot           BIGINT NOT NULL,
  write_version  NUMERIC(20,0) NOT NULL DEFAULT 0
);
CREATE INDEX asset_accounts_asset_idx ON asset_accounts (asset_id) WHERE asset_id IS NOT NULL;
CREATE INDEX asset_accounts_owner_idx ON asset_accounts (owner, address) WHERE owner IS NOT NULL;
CREATE INDEX asset_accounts_collection_idx ON asset_accounts (collection, address) WHERE collection IS NOT NULL;
