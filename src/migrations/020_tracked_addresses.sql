-- The watch list: addresses to read from the cluster ahead of their first request (`solgate track`, the admin API,
-- every address a webhook names). A background loop hydrates tracked rows whose state was never read and queues
-- their history backfill.
ALTER TABLE address_coverage ADD COLUMN tracked_at TIMESTAMPTZ;
CREATE INDEX address_coverage_track_idx ON address_coverage (tracked_at) WHERE tracked_at IS NOT NULL AND state_slot IS NULL;
