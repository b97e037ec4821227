-- The address links' slot rows (address_slots, migration 046) compressed with LZ4 instead of pglz where the server has
-- it (PostgreSQL built with lz4, as Debian's packages are; PGlite is not, and keeps pglz). Only the rows of busy
-- addresses (programs, pools, mints: hundreds of links in a slot) are large enough to be compressed, and those are
-- the rows a history page takes apart entry by entry: the type filter reads each entry's balance changes out of its
-- slot row, decompressing the row's changes each time. With LZ4 a page of 100 SWAP entries of the busiest address of
-- the recorded mainnet block took 1.03-1.06 ms instead of 1.24 ms (docs/benchmarks.md#address-slots-lz4).
-- Partitions do not follow a partitioned table's SET COMPRESSION: each existing one is set here, and those created
-- later copy it from the parent (src/store/partitions.ts: LIKE ... INCLUDING COMPRESSION). Values written before keep
-- pglz and stay readable.
DO $$
DECLARE t regclass;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    FOR t IN SELECT 'address_slots'::regclass UNION ALL SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'address_slots'::regclass
    LOOP
      EXECUTE format('ALTER TABLE %s ALTER COLUMN tx_index SET COMPRESSION lz4, ALTER COLUMN relation SET COMPRESSION lz4, '
                     'ALTER COLUMN changes SET COMPRESSION lz4, ALTER COLUMN writable SET COMPRESSION lz4', t);
    END LOOP;
  END IF;
END
$$;
