-- DAS: compressed NFTs (Bubblegum). State per asset in column groups, each guarded by the change-log `seq` of
-- the instruction that wrote it (a group is replaced only by an equal or higher seq), so any order of the
-- transactions gives the same final state. burnt / decompressed are sticky; tree, leaf index and authority are
-- immutable facts (first writer wins, all writers agree).

CREATE TABLE cnft_assets (
  asset_id          TEXT PRIMARY KEY,
  tree              TEXT,
  leaf_index        BIGINT,
  authority         TEXT,                 -- the tree config (update authority as DAS reports it)
  -- leaf group (leaf event or redeem), guarded by leaf_seq
  leaf_schema       INT,                  -- 1 or 2
  leaf_hash         TEXT,
  data_hash         TEXT,
  creator_hash      TEXT,
  collection_hash   TEXT,                 -- V2 only
  asset_data_hash   TEXT,                 -- V2 only
  flags             INT,                  -- V2 only
  leaf_seq          BIGINT,
  -- ownership group (leaf event), guarded by owner_seq
  owner             TEXT,
  delegate          TEXT,                 -- NULL when the delegate is the owner
  owner_seq         BIGINT,
  -- metadata group: the whole metadata (name, symbol, uri, royalty, creators with verified flags, collection
  -- with its verified flag, ...) as of metadata_seq; written by mint, creator/collection verification and
  -- metadata updates, each of which knows the full metadata after the instruction.
  metadata          JSONB,
  metadata_version  INT,                  -- 1 (MetadataArgs) or 2 (MetadataArgsV2)
  metadata_seq      BIGINT,
  seq               BIGINT,               -- highest seq of any instruction on the asset (compression.seq)
  burnt             BOOLEAN NOT NULL DEFAULT false,
  decompressed      BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX cnft_assets_owner_idx ON cnft_assets (owner, asset_id) WHERE owner IS NOT NULL;
CREATE INDEX cnft_assets_tree_idx ON cnft_assets (tree, leaf_index);

-- Merkle tree nodes from change logs: one row per (tree, node_index), the newest seq wins.
CREATE TABLE cnft_nodes (
  tree        TEXT NOT NULL,
  node_index  BIGINT NOT NULL,            -- heap index, root = 1
  level       INT NOT NULL,               -- 0 = leaf, depth = root
  hash        TEXT NOT NULL,              -- base58
  seq         BIGINT NOT NULL,
  leaf_index  BIGINT,                     -- on level-0 rows
  PRIMARY KEY (tree, node_index)
);

-- Signatures per asset (getSignaturesForAsset), append-only.
CREATE TABLE cnft_signatures (
  asset_id     TEXT NOT NULL,
  signature    TEXT NOT NULL,
  ix_path      TEXT NOT NULL,             -- "outer" or "outer.inner": one row per instruction
  instruction  TEXT NOT NULL,
  slot         BIGINT NOT NULL,
  seq          BIGINT,
  PRIMARY KEY (asset_id, signature, ix_path)
);
