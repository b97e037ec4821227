-- ZK Compression history of an index that began after the cluster's first slot: before live ingestion writes its
-- first block, every Light tree's and queue's transactions older than the origin are read from the cluster and
-- applied in chain order (src/ingest/zk-history.ts), so the trees are whole. One row: the index's.
CREATE TABLE zk_history (
  id            TEXT PRIMARY KEY DEFAULT 'chain',
  origin        BIGINT NOT NULL,
  status        TEXT NOT NULL DEFAULT 'running',   -- running | done | truncated | failed
  trees         INT NOT NULL DEFAULT 0,
  transactions  BIGINT NOT NULL DEFAULT 0,
  -- truncated: the oldest slot the cluster serves (history older than it is not available)
  oldest_slot   BIGINT,
  last_error    TEXT,
  started_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at   TIMESTAMPTZ
);
