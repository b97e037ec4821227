-- An owner's holdings (getAssetsByOwner with showFungible, searchAssets by owner) probe the mints of its token
-- accounts for token-owned (fungible) assets. Most probes are NFT mints that are not; a partial index holding
-- only token-owned rows answers those misses from a small index instead of the whole asset table.
CREATE INDEX das_assets_token_owned_idx ON das_assets (id) WHERE owner_type = 'token' AND supply_mint IS NOT NULL;
