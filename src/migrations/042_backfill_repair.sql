-- A backfill queued as a repair (the drift detector found the address's indexed state behind the cluster's, e.g. a
-- Bubblegum tree root): besides the history before the index's origin, the run also writes the address's
-- transactions at or after the origin, up to the checkpoint, that the index does not hold (a change live ingestion
-- missed). Writes are the ingest fold's guarded ones, so re-writing is harmless. Cleared when the run finishes.
ALTER TABLE backfill_addresses ADD COLUMN repair BOOLEAN NOT NULL DEFAULT false;
