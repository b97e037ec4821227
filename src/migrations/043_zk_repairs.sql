-- Automatic rebuilds of the ZK Compression trees' state (SOLGATE_DRIFT_ZK_REPAIR=rebuild). The drift detector, in
-- whichever process runs it, records a request once a tree's mismatch is confirmed; the ingester (the process holding
-- the ingester lock) picks it up between two blocks, at its checkpoint, and rebuilds the trees from the cluster
-- (src/ingest/zk-repair.ts). At most one request is open (requested or running); a failed attempt goes back to
-- requested with its error and a later not_before. One row per request: the past ones stay as the record.
CREATE TABLE zk_repairs (
  id            BIGSERIAL PRIMARY KEY,
  status        TEXT NOT NULL DEFAULT 'requested',   -- requested | running | done | truncated | superseded
  trees         TEXT[] NOT NULL,                     -- the trees the detector found differing
  slot          BIGINT NOT NULL,                     -- the slot it compared at
  -- zk_history.origin when the mismatch was judged (null: no row); a request made before a later rebuild or
  -- history read is superseded by it (judged on the state that rebuild replaced)
  basis         BIGINT,
  attempts      INT NOT NULL DEFAULT 0,
  last_error    TEXT,
  not_before    TIMESTAMPTZ NOT NULL DEFAULT now(),
  through       BIGINT,                              -- the checkpoint the finished rebuild read the history up to
  transactions  BIGINT,
  requested_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  started_at    TIMESTAMPTZ,
  finished_at   TIMESTAMPTZ
);
CREATE UNIQUE INDEX zk_repairs_open ON zk_repairs ((status IN ('requested', 'running'))) WHERE status IN ('requested', 'running');
