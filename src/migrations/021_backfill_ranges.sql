-- Bulk backfill of slot ranges (`solgate backfill --from-slot A --to-slot B`): every block of the range written
-- through the same fold as live blocks (block rows included, the checkpoint untouched). `next_slot` is where a
-- crashed run resumes. Finished ranges that cover every slot from 0 to the index's origin make the index complete
-- from genesis.
CREATE TABLE backfill_ranges (
  from_slot     BIGINT NOT NULL,
  to_slot       BIGINT NOT NULL,
  next_slot     BIGINT NOT NULL,
  status        TEXT NOT NULL DEFAULT 'running',   -- running | done
  blocks        BIGINT NOT NULL DEFAULT 0,
  transactions  BIGINT NOT NULL DEFAULT 0,
  started_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at   TIMESTAMPTZ,
  PRIMARY KEY (from_slot, to_slot)
);
