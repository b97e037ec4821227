-- Rendering a Token Metadata asset reads its (master) edition account by mint: the link table is looked up by
-- mint, so the edition PDA (a SHA-256 plus an on-curve check per bump) is not derived on every read.
CREATE INDEX tm_edition_mints_mint_idx ON tm_edition_mints (mint);
