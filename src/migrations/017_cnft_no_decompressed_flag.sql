-- A DecompressV1 instruction no longer marks a compressed asset decompressed. As in the DAS reference, the
-- instruction changes nothing: an asset leaves the tree for DAS when its Token Metadata accounts (mint, metadata)
-- are indexed, which a decompress transaction creates. Until then a redeemed asset stays compressed with the
-- zeroed leaf of its redeem.
ALTER TABLE cnft_assets DROP COLUMN decompressed;
