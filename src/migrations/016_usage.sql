-- Accounts (issue #8): credits used per key, day and method. Request handlers never write here: each process adds
-- up its usage in memory and flushes it with one statement every few seconds (src/accounts/usage.ts).
CREATE TABLE usage_daily (
  key_id   TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  day      DATE NOT NULL,
  method   TEXT NOT NULL,
  calls    BIGINT NOT NULL DEFAULT 0,
  credits  BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day, method)
);
-- Month-to-date credits of a key (quota).
CREATE INDEX usage_daily_key_day_idx ON usage_daily (key_id, day);

-- When a key's secret was last regenerated (the old secret stops working at once).
ALTER TABLE api_keys ADD COLUMN rotated_at TIMESTAMPTZ;
