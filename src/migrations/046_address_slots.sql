-- One row per address and slot instead of one per address and transaction (issues #21, #22). The address links were
-- 73 % of the history's disk and most of the ingest's database work, one B-tree entry each: a mainnet block has about
-- 8,300 links but only about 3,000 distinct addresses (the programs, mints and pools its transactions share). Measured
-- on 100 copies of mainnet block 254170887 (docs/benchmarks.md#address-slots): 830,200 links become 301,400 rows
-- plus 106,900 typed entries, 215 MB become 123 MB, and COPY of them took 0.55x the time.
--
-- address_slots: the links of one address in one slot, positions ascending; `relation`, `writable` and the JSON array
-- `changes` are aligned with `tx_index` (`changes` and `writable` are NULL as a whole when no link of the row has one;
-- a link without one has a JSON null or a NULL element). A link's relation, balance changes and written flag are what
-- address_transactions held.
--
-- address_typed: (address, enhanced type, slot, position) of every link whose transaction has a type other than
-- UNKNOWN, the index of the history's type filter (what address_transactions_type_idx was). The type itself is the
-- transaction's (transactions.enhanced_type); readers check it there, so an entry left by a type that a later record
-- replaced never matches.
--
-- address_transactions stays as a read-only view with the old columns (one row per link), for SQL written against it.
--
-- Writes (src/store/chain.ts): new rows by COPY or a plain insert; rows of a slot written again are merged by
-- solgate_merge_links (relation the least, changes and written flag the latest known, as the old ON CONFLICT clause).
--
-- Both tables join the `history` partition family (src/store/partitions.ts) with the same ranges as the table they
-- replace; on a large index this rewrites the links once (in this transaction, like every migration; docs/storage.md).

CREATE TABLE address_slots (
  address   TEXT NOT NULL,
  slot      BIGINT NOT NULL,
  tx_index  INT[] NOT NULL,
  relation  SMALLINT[] NOT NULL,
  changes   JSONB,
  writable  BOOLEAN[]
) PARTITION BY RANGE (slot);

CREATE TABLE address_typed (
  address        TEXT NOT NULL,
  enhanced_type  TEXT NOT NULL,
  slot           BIGINT NOT NULL,
  tx_index       INT NOT NULL
) PARTITION BY RANGE (slot);

-- The partitions of address_transactions, with their bounds and storage parameters, for both new tables.
DO $$
DECLARE
  p RECORD;
  suffix TEXT;
  opts TEXT;
BEGIN
  FOR p IN
    SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound, c.reloptions
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'address_transactions'::regclass
  LOOP
    suffix := substr(p.relname, length('address_transactions') + 1);
    opts := CASE WHEN p.reloptions IS NULL THEN '' ELSE ' WITH (' || array_to_string(p.reloptions, ', ') || ')' END;
    EXECUTE format('CREATE TABLE %I PARTITION OF address_slots %s%s', 'address_slots' || suffix, p.bound, opts);
    EXECUTE format('CREATE TABLE %I PARTITION OF address_typed %s%s', 'address_typed' || suffix, p.bound, opts);
  END LOOP;
END
$$;

INSERT INTO address_slots (address, slot, tx_index, relation, changes, writable)
SELECT address, slot,
       array_agg(tx_index ORDER BY tx_index),
       array_agg(relation ORDER BY tx_index),
       CASE WHEN bool_or(changes IS NOT NULL) THEN jsonb_agg(changes ORDER BY tx_index) END,
       CASE WHEN bool_or(writable IS NOT NULL) THEN array_agg(writable ORDER BY tx_index) END
  FROM address_transactions
 GROUP BY address, slot;

INSERT INTO address_typed (address, enhanced_type, slot, tx_index)
SELECT address, enhanced_type, slot, tx_index
  FROM address_transactions
 WHERE enhanced_type IS NOT NULL AND enhanced_type <> 'UNKNOWN';

DROP TABLE address_transactions;

ALTER TABLE address_slots ADD PRIMARY KEY (address, slot);
ALTER TABLE address_typed ADD PRIMARY KEY (address, enhanced_type, slot, tx_index);

-- Two writes of one slot's links for an address: the union by position, ascending; for a position in both, the
-- least relation and the latest known changes and written flag (`n_*`, the new row, wins over `o_*`).
CREATE FUNCTION solgate_merge_links(
  o_tx INT[], o_rel SMALLINT[], o_ch JSONB, o_wr BOOLEAN[],
  n_tx INT[], n_rel SMALLINT[], n_ch JSONB, n_wr BOOLEAN[],
  OUT tx_index INT[], OUT relation SMALLINT[], OUT changes JSONB, OUT writable BOOLEAN[])
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_agg(g.i ORDER BY g.i),
         array_agg(g.r ORDER BY g.i),
         CASE WHEN bool_or(g.c IS NOT NULL) THEN jsonb_agg(g.c ORDER BY g.i) END,
         CASE WHEN bool_or(g.w IS NOT NULL) THEN array_agg(g.w ORDER BY g.i) END
    FROM (SELECT u.i, min(u.r)::SMALLINT AS r,
                 (array_agg(u.c ORDER BY u.src DESC) FILTER (WHERE u.c IS NOT NULL))[1] AS c,
                 (array_agg(u.w ORDER BY u.src DESC) FILTER (WHERE u.w IS NOT NULL))[1] AS w
            FROM (SELECT o.i, o.r, NULLIF(o.c, 'null'::JSONB) AS c, o.w, 0 AS src
                    FROM ROWS FROM (unnest(o_tx), unnest(o_rel), jsonb_array_elements(o_ch), unnest(o_wr)) AS o(i, r, c, w)
                  UNION ALL
                  SELECT n.i, n.r, NULLIF(n.c, 'null'::JSONB), n.w, 1
                    FROM ROWS FROM (unnest(n_tx), unnest(n_rel), jsonb_array_elements(n_ch), unnest(n_wr)) AS n(i, r, c, w)) u
           GROUP BY u.i) g
$$;

-- The links one per row, as address_transactions had them (the type is the transaction's).
CREATE VIEW address_transactions AS
SELECT s.address, s.slot, l.tx_index, l.relation, NULLIF(l.changes, 'null'::JSONB) AS changes, t.enhanced_type, l.writable
  FROM address_slots s
 CROSS JOIN LATERAL ROWS FROM (unnest(s.tx_index), unnest(s.relation), jsonb_array_elements(s.changes), unnest(s.writable))
       AS l(tx_index, relation, changes, writable)
  LEFT JOIN transactions t ON t.slot = s.slot AND t.tx_index = l.tx_index;
