-- Prices from the chain (docs/prices.md). Two small tables, one row per key, each row replaced only by a newer one.
--
-- pyth_prices: the latest Pyth price update seen per feed (PriceUpdateV2 accounts of the Pyth Solana Receiver, read
-- from ingested account updates or polled from the cluster). Fully verified updates only. Newer = later
-- (publish_time, posted_slot). Which mint a feed prices is configuration (SOLGATE_PRICE_FEEDS_FILE), applied when
-- prices are read.
CREATE TABLE pyth_prices (
  feed_id            TEXT PRIMARY KEY,      -- hex, 64 characters
  account            TEXT NOT NULL,         -- the PriceUpdateV2 account it was read from
  price              BIGINT NOT NULL,       -- price · 10^exponent = USD (for a */USD feed)
  conf               NUMERIC NOT NULL,
  exponent           INT NOT NULL,
  publish_time       BIGINT NOT NULL,       -- unix seconds
  prev_publish_time  BIGINT NOT NULL,
  ema_price          BIGINT NOT NULL,
  ema_conf           NUMERIC NOT NULL,
  posted_slot        BIGINT NOT NULL,
  slot               BIGINT NOT NULL        -- slot of the account state it was read from
);

-- swap_prices: per mint, the latest qualifying swap of that token against USDC/USDT (quote USD) or wrapped SOL
-- (quote SOL) in an indexed transaction (one DEX hop of the enhanced classifier's swap extraction). `price` is in
-- quote units per whole token; a SOL-quoted price is turned into USD with SOL's own price when read. Newer = later
-- (pos = slot·10⁶ + index in block, ord = hop within the transaction).
CREATE TABLE swap_prices (
  mint          TEXT PRIMARY KEY,
  quote         TEXT NOT NULL CHECK (quote IN ('USD', 'SOL')),
  quote_mint    TEXT NOT NULL,
  price         DOUBLE PRECISION NOT NULL,
  base_amount   DOUBLE PRECISION NOT NULL,  -- tokens traded (UI units)
  quote_amount  DOUBLE PRECISION NOT NULL,  -- quote units traded (USD or SOL)
  slot          BIGINT NOT NULL,
  pos           BIGINT NOT NULL,
  ord           INT NOT NULL,
  signature     TEXT NOT NULL,
  program       TEXT NOT NULL,              -- the DEX program of the hop
  block_time    BIGINT
);
