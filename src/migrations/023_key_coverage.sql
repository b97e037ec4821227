-- Coverage of keys that list assets (DAS getAssetsByGroup / ByCreator / ByAuthority, searchAssets): per key and
-- need ('group' = a collection, 'creator', 'authority'), the slot its assets were read from the cluster at with
-- getProgramAccounts filters (src/sources/group-state.ts); live ingestion keeps them current from there.
-- `partial` says what the accounts read may not include (compressed NFTs, MPL Core creators), NULL = nothing.
CREATE TABLE key_coverage (
  need          TEXT NOT NULL,               -- group | creator | authority
  key           TEXT NOT NULL,
  slot          BIGINT,                      -- NULL: never read
  read_at       TIMESTAMPTZ,
  partial       TEXT,
  last_error    TEXT,                        -- the last failed read, cleared by a successful one
  last_error_at TIMESTAMPTZ,
  tracked_at    TIMESTAMPTZ,                 -- on the watch list: read ahead of the first request
  PRIMARY KEY (need, key)
);
CREATE INDEX key_coverage_track_idx ON key_coverage (tracked_at) WHERE tracked_at IS NOT NULL AND slot IS NULL;
