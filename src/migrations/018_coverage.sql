-- Coverage: what the index is complete for.
-- index_origin: the slot the ingester first started from on an empty index (0 = the cluster's first slot, so every
-- address's state and history are in the index). address_coverage: per address, the slot its current state was
-- read from the cluster at (hydration); live ingestion keeps it current from there.
CREATE TABLE index_origin (
  id           TEXT PRIMARY KEY,            -- 'chain'
  first_slot   BIGINT NOT NULL,
  recorded_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE address_coverage (
  address      TEXT PRIMARY KEY,
  state_slot   BIGINT,                      -- NULL: never hydrated
  state_at     TIMESTAMPTZ,
  last_error   TEXT,                        -- the last failed hydration, cleared by a successful one
  last_error_at TIMESTAMPTZ
);

-- An index that already holds the cluster's slot 0 began at genesis.
INSERT INTO index_origin (id, first_slot) SELECT 'chain', 0 WHERE EXISTS (SELECT 1 FROM blocks WHERE slot = 0);
