-- One index of the events by signature instead of two: the uniqueness of (webhook, signature) is kept by a key that
-- starts with the signature, which also serves what the separate signature index did (payload retention looks for
-- any event of a signature). Every queued event and every recorded attempt (no update of an event is HOT) wrote an
-- entry into both; now into one. ON CONFLICT (webhook_id, signature) finds the new key (the columns are matched as
-- a set).
DO $$
DECLARE c text;
BEGIN
  SELECT conname INTO c FROM pg_constraint
   WHERE conrelid = 'webhook_events'::regclass AND contype = 'u'
     AND conkey::int[] @> ARRAY[(SELECT attnum FROM pg_attribute WHERE attrelid = 'webhook_events'::regclass AND attname = 'webhook_id')::int,
                                (SELECT attnum FROM pg_attribute WHERE attrelid = 'webhook_events'::regclass AND attname = 'signature')::int]
     AND cardinality(conkey) = 2;
  ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_signature_webhook_key UNIQUE (signature, webhook_id);
  IF c IS NOT NULL THEN
    EXECUTE format('ALTER TABLE webhook_events DROP CONSTRAINT %I', c);
  END IF;
END
$$;
DROP INDEX IF EXISTS webhook_events_signature_idx;
