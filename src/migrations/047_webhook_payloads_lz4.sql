-- Webhook payloads compressed with LZ4 instead of pglz where the server has it (PostgreSQL 14+ built with lz4, as
-- Debian's packages are; PGlite is not, and keeps pglz). Each payload (several KB of JSON per matched transaction) is
-- compressed once in the block's write and read back at every delivery attempt: with LZ4, PostgreSQL's CPU per queued
-- event was 0.67x and per delivered event 0.85x (`npm run bench -- outbox`, docs/benchmarks.md#outbox). Values
-- written before keep pglz and stay readable; only new ones use LZ4.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE webhook_payloads ALTER COLUMN raw SET COMPRESSION lz4, ALTER COLUMN enhanced SET COMPRESSION lz4;
  END IF;
END
$$;
