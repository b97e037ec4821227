-- Per-address history backfill: a queue of addresses whose transactions before the index's origin are fetched
-- from the cluster (getSignaturesForAddress, newest to oldest, then getTransaction) and written through the same
-- fold as live blocks. `cursor` is the oldest signature written so far: a crashed run resumes from it. A wallet's
-- history also holds the transactions of its token accounts (a transfer into one does not name the wallet), so a
-- finished wallet queues each token account it owns or owned, with the wallet as `parent`.
CREATE TABLE backfill_addresses (
  address        TEXT PRIMARY KEY,
  parent         TEXT,                             -- a token account: the wallet whose history needs its history
  status         TEXT NOT NULL DEFAULT 'pending',  -- pending | running | done | truncated | failed
  cursor         TEXT,                             -- oldest signature written (resume point); NULL = from the newest
  oldest_slot    BIGINT,                           -- slot of `cursor`
  transactions   BIGINT NOT NULL DEFAULT 0,        -- transactions written by the backfill
  pages          INT NOT NULL DEFAULT 0,
  attempts       INT NOT NULL DEFAULT 0,
  last_error     TEXT,
  lease_until    TIMESTAMPTZ,                      -- a running backfill's lease (another worker takes it after)
  requested_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at    TIMESTAMPTZ
);
CREATE INDEX backfill_addresses_parent_idx ON backfill_addresses (parent) WHERE parent IS NOT NULL;
CREATE INDEX backfill_addresses_due_idx ON backfill_addresses (requested_at) WHERE status IN ('pending', 'running');
