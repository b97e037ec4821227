-- DAS getNftEditions: print editions by their master edition, and the mint each edition account belongs to
-- (an Edition account does not name its mint; the link is derived from every 0-decimals mint written, as the
-- edition PDA ["metadata", program, mint, "edition"]).

CREATE TABLE tm_edition_mints (
  edition  TEXT PRIMARY KEY,               -- edition (or master edition) PDA of the mint
  mint     TEXT NOT NULL
);

CREATE INDEX asset_accounts_edition_parent_idx ON asset_accounts ((data->>'parent'), address) WHERE kind = 'tm.edition';
