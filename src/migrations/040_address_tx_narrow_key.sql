-- Narrower keys for the address index (issues #21, #22): `address_transactions` is 85 % of the history's disk and
-- most of the ingest write, and more than half of it was its primary key, whose entries carried the 88-character
-- signature. A transaction is identified in its slot by its position (`tx_index`), so the key becomes
-- (address, slot, tx_index) and the type index (address, enhanced_type, slot, tx_index); the signature stays a
-- column of the row (answers read it from there). Measured on 48 copies of mainnet block 254170887: the indexes
-- shrink from 128 to 57 MB and an 8-block insert takes about a fifth less time (docs/benchmarks.md#storage).
--
-- Positions must therefore be unique per slot. Every source that reads whole blocks (the poller, Yellowstone,
-- replay of `getBlock` records, backfill, which fetches each slot's signatures) records the true position; a
-- transaction whose position is not known (a recorded single `getTransaction`, a backfilled signature its block
-- does not list) is written at a NEGATIVE position derived from its signature (src/core/tx-position.ts), which
-- never meets a real one. Before this migration such transactions were written at position 0: below, every
-- transaction that shares its (slot, tx_index) with another one gets the derived position instead, in every
-- history table, so the new keys hold. Existing rows keep everything else.
--
-- On a large index this rebuilds the two indexes of every `address_transactions` partition (in this transaction,
-- like every migration); plan for the time (docs/storage.md).

CREATE TEMP TABLE solgate_040_moved ON COMMIT DROP AS
-- unknownTxIndex (src/core/tx-position.ts): -(1 + (first 4 bytes of md5(signature), unsigned) mod 2147483646).
SELECT signature, slot, -(1 + ('x' || substr(md5(signature), 1, 8))::bit(32)::bigint % 2147483646)::int AS new_index
  FROM transactions t
 WHERE EXISTS (SELECT 1 FROM transactions o WHERE o.slot = t.slot AND o.tx_index = t.tx_index AND o.signature <> t.signature);

UPDATE transactions x SET tx_index = m.new_index FROM solgate_040_moved m WHERE x.signature = m.signature AND x.slot = m.slot;
UPDATE address_transactions x SET tx_index = m.new_index FROM solgate_040_moved m WHERE x.signature = m.signature AND x.slot = m.slot;
UPDATE wallet_transfers x SET tx_index = m.new_index FROM solgate_040_moved m WHERE x.signature = m.signature AND x.slot = m.slot;
UPDATE wallet_funding x SET tx_index = m.new_index FROM solgate_040_moved m WHERE x.signature = m.signature AND x.slot = m.slot;

-- Links that still share (address, slot, tx_index) — only possible for a link whose transaction row is gone, or
-- two unknown positions whose derived values meet — keep the row of the lowest signature; the count is reported.
DO $$
DECLARE n BIGINT;
BEGIN
  DELETE FROM address_transactions a
   USING address_transactions b
   WHERE a.address = b.address AND a.slot = b.slot AND a.tx_index = b.tx_index AND a.signature > b.signature;
  GET DIAGNOSTICS n = ROW_COUNT;
  IF n > 0 THEN RAISE NOTICE 'migration 040: % address links shared a position with another transaction''s and were removed', n; END IF;
END
$$;

ALTER TABLE address_transactions DROP CONSTRAINT address_transactions_pkey;
DROP INDEX address_transactions_type_idx;
ALTER TABLE address_transactions ADD PRIMARY KEY (address, slot, tx_index);
CREATE INDEX address_transactions_type_idx ON address_transactions (address, enhanced_type, slot, tx_index)
  WHERE enhanced_type <> 'UNKNOWN';
