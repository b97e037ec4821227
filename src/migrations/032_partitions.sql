-- Storage that grows for months (issue #22): the append-only tables become range-partitioned tables, so a retention
-- setting can drop whole partitions instead of deleting rows (src/store/partitions.ts, src/ingest/retention.ts,
-- docs/storage.md). Table families and partition keys:
--   history           transactions, address_transactions, wallet_transfers   by slot (BIGINT)
--   webhook_attempts  webhook_attempts                                        by `at` (TIMESTAMPTZ, UTC days)
--   usage             usage_daily                                             by `day` (DATE)
--
-- THIS MIGRATION REWRITES THESE TABLES ONCE: each is renamed, a partitioned table with the same columns (same order)
-- is created, every row is copied (INSERT … SELECT), the old table is dropped and the indexes are built again. It
-- runs in one transaction like every migration: on a large index plan for the time and twice the tables' disk space
-- (docs/storage.md "Converting an existing database").
--
-- Layout right after it: per table, `<table>_p_old` holds every value below the boundary (the slot after the highest
-- slot written or checkpointed; tomorrow, UTC, for the time families), and `<table>_default` (the DEFAULT partition)
-- catches any value no other partition covers, so an insert never fails. The partition maintenance job creates the
-- next partitions ahead of ingestion (contiguous, fixed width) and drops the ones wholly older than the retention
-- horizon.
--
-- Keys: a partitioned table's unique indexes must contain the partition key, so `transactions` is keyed by
-- (signature, slot) (lookups by signature alone use its prefix) and `webhook_attempts` by (id, at); the other tables'
-- keys already contain it.

ALTER TABLE transactions RENAME TO transactions_unpartitioned;
ALTER TABLE address_transactions RENAME TO address_transactions_unpartitioned;
ALTER TABLE wallet_transfers RENAME TO wallet_transfers_unpartitioned;
ALTER TABLE webhook_attempts RENAME TO webhook_attempts_unpartitioned;
ALTER TABLE usage_daily RENAME TO usage_daily_unpartitioned;

CREATE TABLE transactions (LIKE transactions_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (slot);
CREATE TABLE address_transactions (LIKE address_transactions_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (slot);
CREATE TABLE wallet_transfers (LIKE wallet_transfers_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (slot);
CREATE TABLE webhook_attempts (LIKE webhook_attempts_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (at);
CREATE TABLE usage_daily (LIKE usage_daily_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (day);

DO $$
DECLARE
  b BIGINT;
  d DATE := (now() AT TIME ZONE 'UTC')::date + 1;
BEGIN
  SELECT GREATEST(
    COALESCE((SELECT max(slot) FROM transactions_unpartitioned), -1),
    COALESCE((SELECT max(slot) FROM address_transactions_unpartitioned), -1),
    COALESCE((SELECT max(slot) FROM wallet_transfers_unpartitioned), -1),
    COALESCE((SELECT slot FROM ingest_checkpoint WHERE id = 'chain'), -1)) + 1 INTO b;
  EXECUTE format('CREATE TABLE transactions_p_old PARTITION OF transactions FOR VALUES FROM (MINVALUE) TO (%s)', b);
  EXECUTE format('CREATE TABLE address_transactions_p_old PARTITION OF address_transactions FOR VALUES FROM (MINVALUE) TO (%s)', b);
  EXECUTE format('CREATE TABLE wallet_transfers_p_old PARTITION OF wallet_transfers FOR VALUES FROM (MINVALUE) TO (%s)', b);
  EXECUTE format('CREATE TABLE webhook_attempts_p_old PARTITION OF webhook_attempts FOR VALUES FROM (MINVALUE) TO (%L)', to_char(d, 'YYYY-MM-DD') || ' 00:00:00+00');
  EXECUTE format('CREATE TABLE usage_daily_p_old PARTITION OF usage_daily FOR VALUES FROM (MINVALUE) TO (%L)', to_char(d, 'YYYY-MM-DD'));
END
$$;

CREATE TABLE transactions_default PARTITION OF transactions DEFAULT;
CREATE TABLE address_transactions_default PARTITION OF address_transactions DEFAULT;
CREATE TABLE wallet_transfers_default PARTITION OF wallet_transfers DEFAULT;
CREATE TABLE webhook_attempts_default PARTITION OF webhook_attempts DEFAULT;
CREATE TABLE usage_daily_default PARTITION OF usage_daily DEFAULT;

INSERT INTO transactions SELECT * FROM transactions_unpartitioned;
INSERT INTO address_transactions SELECT * FROM address_transactions_unpartitioned;
INSERT INTO wallet_transfers SELECT * FROM wallet_transfers_unpartitioned;
INSERT INTO webhook_attempts SELECT * FROM webhook_attempts_unpartitioned;
INSERT INTO usage_daily SELECT * FROM usage_daily_unpartitioned;

-- The attempts' id sequence belonged to the old table's column: keep it (and its position) for the new one.
ALTER SEQUENCE webhook_attempts_id_seq OWNED BY NONE;
DROP TABLE transactions_unpartitioned;
DROP TABLE address_transactions_unpartitioned;
DROP TABLE wallet_transfers_unpartitioned;
DROP TABLE webhook_attempts_unpartitioned;
DROP TABLE usage_daily_unpartitioned;
ALTER SEQUENCE webhook_attempts_id_seq OWNED BY webhook_attempts.id;

ALTER TABLE transactions ADD PRIMARY KEY (signature, slot);
CREATE INDEX transactions_slot_idx ON transactions (slot, tx_index);
ALTER TABLE address_transactions ADD PRIMARY KEY (address, slot, tx_index, signature);
CREATE INDEX address_transactions_type_idx ON address_transactions (address, enhanced_type, slot, tx_index, signature)
  WHERE enhanced_type <> 'UNKNOWN';
ALTER TABLE wallet_transfers ADD PRIMARY KEY (wallet, slot, tx_index, signature, ord, direction);
ALTER TABLE webhook_attempts ADD PRIMARY KEY (id, at);
ALTER TABLE webhook_attempts ADD FOREIGN KEY (event_id) REFERENCES webhook_events (id) ON DELETE CASCADE;
CREATE INDEX webhook_attempts_event_idx ON webhook_attempts (event_id, attempt);
CREATE INDEX webhook_attempts_window_idx ON webhook_attempts (webhook_id, at);
ALTER TABLE usage_daily ADD PRIMARY KEY (key_id, day, method);
ALTER TABLE usage_daily ADD FOREIGN KEY (key_id) REFERENCES api_keys (id) ON DELETE CASCADE;
CREATE INDEX usage_daily_key_day_idx ON usage_daily (key_id, day);

-- What retention removed, per family: every row of a value (slot, or UTC day number for the time families) from
-- `complete_from` on is kept; rows below it may be gone. Read by the history answers' coverage
-- (`partial; basis=retention; slot=S`). No row = nothing was ever removed.
CREATE TABLE storage_retention (
  family              TEXT PRIMARY KEY,
  complete_from       BIGINT NOT NULL,
  partitions_dropped  BIGINT NOT NULL DEFAULT 0,
  rows_deleted        BIGINT NOT NULL DEFAULT 0,
  updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
